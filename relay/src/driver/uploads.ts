import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { BadRequestError } from '../errors.js';

/**
 * Files for an upload, read here and handed to the page as contents, not
 * paths. chrome.debugger forbids DOM.setFileInputFiles to extensions, and a
 * remote browser cannot read this machine's paths anyway; Playwright sets
 * in-memory payloads through a DataTransfer, the same way for every profile.
 */

export interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** Playwright's own limit for in-memory payloads. */
const MAX_TOTAL_BYTES = 50 * 1024 * 1024;

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

export async function readUploads(paths: string[]): Promise<UploadFile[]> {
  const files: UploadFile[] = [];
  let total = 0;
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new BadRequestError(`Upload path does not exist: ${path}`);
    if (!info.isFile()) throw new BadRequestError(`Upload path is not a file: ${path}`);
    await access(path, constants.R_OK).catch(() => {
      throw new BadRequestError(`Upload path is not readable: ${path}`);
    });
    total += info.size;
    if (total > MAX_TOTAL_BYTES) throw new BadRequestError(`Uploads exceed ${MAX_TOTAL_BYTES / 1024 / 1024} MB in total (at ${path})`);
    files.push({ name: basename(path), mimeType: MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream', buffer: await readFile(path) });
  }
  return files;
}
