import { readFile, realpath, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, extname, isAbsolute, join, resolve, sep } from 'node:path';
import { BadRequestError } from '../../errors.js';

/**
 * Files for an upload, handed to the page as contents, not paths.
 * chrome.debugger forbids DOM.setFileInputFiles to extensions, and a remote
 * browser cannot read this machine's paths anyway; Playwright sets in-memory
 * payloads through a DataTransfer, the same way for every profile.
 *
 * Paths are read only from the upload folders (spec §9): the relay must not
 * become a way to read any file the server can (the token in $CLAWD_HOME, SSH
 * keys). A path is checked as written and again after resolving symlinks, and
 * a path outside the folders gets the same answer whether or not it exists.
 * Callers without a shared filesystem send contents inline instead.
 */

export interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** A file sent in the request body. */
export interface InlineFile {
  name: string;
  mimeType?: string;
  /** The contents, base64. */
  base64: string;
}

export interface UploadPolicy {
  /** Folders files may be read from. */
  dirs: string[];
  /** $CLAWD_HOME: never readable, but for its uploads/ folder. */
  clawdHome: string;
}

/** Playwright's own limit for in-memory payloads. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.zip': 'application/zip',
};

function mimeTypeOf(name: string): string {
  return MIME_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** The default upload folders: the system temp dir, $CLAWD_HOME/uploads and ~/Downloads. */
export function defaultUploadDirs(clawdHome: string): string[] {
  return [tmpdir(), join(clawdHome, 'uploads'), join(homedir(), 'Downloads')];
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** Both the written and the symlink-resolved form of each folder, since either may be how a path names it. */
async function bothForms(paths: string[]): Promise<string[]> {
  const forms = await Promise.all(paths.map(async (path) => [resolve(path), await realpath(path).catch(() => resolve(path))]));
  return [...new Set(forms.flat())];
}

/**
 * Why a path may not be read: outside every upload folder, or inside
 * $CLAWD_HOME (its secrets) but for its uploads/; undefined when it may.
 * Folders are resolved once per request.
 */
type FolderRule = (candidate: string) => 'outside' | 'clawd-home' | undefined;

async function folderRule(policy: UploadPolicy): Promise<FolderRule> {
  const dirs = await bothForms(policy.dirs);
  const homes = await bothForms([policy.clawdHome]);
  const uploadsInHome = homes.map((home) => join(home, 'uploads'));
  return (candidate) => {
    if (!dirs.some((dir) => inside(candidate, dir))) return 'outside';
    if (homes.some((home) => inside(candidate, home)) && !uploadsInHome.some((uploads) => inside(candidate, uploads))) return 'clawd-home';
    return undefined;
  };
}

async function checkedPath(path: string, policy: UploadPolicy, refusedBy: FolderRule): Promise<string> {
  const refusal = (why: 'outside' | 'clawd-home') =>
    why === 'clawd-home'
      ? new BadRequestError(
          `Upload path ${JSON.stringify(path)} is in clawd-browser's own folder (${policy.clawdHome}), which is never an upload source ` +
            `(only its uploads/ is); copy the file elsewhere, or send it inline as {name, base64}`,
        )
      : new BadRequestError(
          `Upload path ${JSON.stringify(path)} is not inside an upload folder (${policy.dirs.join(', ')}; config.json uploadDirs sets them), ` +
            'or send the file inline as {name, base64}',
        );
  if (!isAbsolute(path)) throw new BadRequestError(`Upload paths must be absolute: ${JSON.stringify(path)}`);
  // Judged as written first, touching nothing: outside, it gets one answer whether it exists or not.
  const asWritten = refusedBy(resolve(path));
  if (asWritten) throw refusal(asWritten);
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) throw new BadRequestError(`Upload path does not exist: ${path}`);
  // A symlink inside a folder that points out of it is outside.
  const resolved = refusedBy(real);
  if (resolved) throw refusal(resolved);
  return real;
}

export async function readUploads(paths: string[], policy: UploadPolicy): Promise<UploadFile[]> {
  const files: UploadFile[] = [];
  let total = 0;
  const refusedBy = await folderRule(policy);
  for (const path of paths) {
    const real = await checkedPath(path, policy, refusedBy);
    const info = await stat(real);
    if (!info.isFile()) throw new BadRequestError(`Upload path is not a file: ${path}`);
    total += info.size;
    if (total > MAX_UPLOAD_BYTES) throw new BadRequestError(`Uploads exceed ${MAX_UPLOAD_BYTES / 1024 / 1024} MB in total (at ${path})`);
    const buffer = await readFile(real).catch(() => {
      throw new BadRequestError(`Upload path is not readable: ${path}`);
    });
    files.push({ name: basename(path), mimeType: mimeTypeOf(path), buffer });
  }
  return files;
}

/** Files sent inline: names are bare file names, contents are base64. */
export function inlineUploads(inline: InlineFile[], already: UploadFile[] = []): UploadFile[] {
  let total = already.reduce((sum, file) => sum + file.buffer.length, 0);
  return inline.map((file) => {
    const buffer = Buffer.from(file.base64, 'base64');
    total += buffer.length;
    if (total > MAX_UPLOAD_BYTES) throw new BadRequestError(`Uploads exceed ${MAX_UPLOAD_BYTES / 1024 / 1024} MB in total (at ${file.name})`);
    return { name: file.name, mimeType: file.mimeType ?? mimeTypeOf(file.name), buffer };
  });
}
