import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';
import type { Platform } from '../config/platform.js';

/**
 * Which browser a managed profile launches (spec: "Chrome Canary, then
 * Chromium, then Google Chrome ... unless `executablePath` is set").
 * Candidate lists are plain data so every platform is testable anywhere;
 * only `findExecutable` touches the file system.
 */

/** The parts of the environment that decide where browsers are installed. */
export interface ExecutableEnv {
  home: string;
  localAppData?: string;
  programFiles?: string;
  programFilesX86?: string;
  /** PATH, searched on Linux after the well-known directories. */
  path?: string;
}

export class ExecutableNotFoundError extends Error {
  constructor(
    message: string,
    /** Every path that was tried, in order. */
    readonly searched: string[],
  ) {
    super(message);
    this.name = 'ExecutableNotFoundError';
  }
}

/**
 * Command names grouped by channel, in spec order. `google-chrome-unstable`
 * is the Dev channel (not Canary), so it goes after stable with Beta.
 */
const LINUX_NAMES = [
  'google-chrome-canary',
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'google-chrome-beta',
  'google-chrome-unstable',
];
/** Where distro packages, snaps and manual installs put their launchers. */
const LINUX_DIRS = ['/usr/bin', '/usr/local/bin', '/snap/bin'];
/** Google's .deb/.rpm install trees, for when the /usr/bin symlink is missing. */
const LINUX_INSTALL_TREES = [
  '/opt/google/chrome-canary/chrome',
  '/opt/google/chrome/chrome',
  '/opt/google/chrome-beta/chrome',
  '/opt/google/chrome-unstable/chrome',
];

const MAC_APPS = ['Google Chrome Canary', 'Chromium', 'Google Chrome', 'Google Chrome Beta', 'Google Chrome Dev'];

/** Install folders relative to a Windows base folder, paired with which base. */
const WINDOWS_INSTALLS: Array<[base: keyof Omit<ExecutableEnv, 'home' | 'path'>, folder: string]> = [
  ['localAppData', 'Google\\Chrome SxS'],
  ['localAppData', 'Chromium'],
  ['programFiles', 'Google\\Chrome'],
  ['programFilesX86', 'Google\\Chrome'],
  ['localAppData', 'Google\\Chrome'],
  ['programFiles', 'Google\\Chrome Beta'],
  ['localAppData', 'Google\\Chrome Beta'],
  ['programFiles', 'Google\\Chrome Dev'],
  ['localAppData', 'Google\\Chrome Dev'],
];

/** The ordered, de-duplicated absolute paths to try. */
export function candidateExecutables(platform: Platform, env: ExecutableEnv): string[] {
  if (platform === 'darwin') {
    return MAC_APPS.flatMap((app) => ['/Applications', posix.join(env.home, 'Applications')].map((dir) => posix.join(dir, `${app}.app/Contents/MacOS`, app)));
  }
  if (platform === 'win32') {
    // Fall back to the stock locations when the variables are unset (e.g. a service account).
    const bases = {
      localAppData: env.localAppData || win32.join(env.home, 'AppData\\Local'),
      programFiles: env.programFiles || 'C:\\Program Files',
      programFilesX86: env.programFilesX86 || 'C:\\Program Files (x86)',
    };
    return unique(WINDOWS_INSTALLS.map(([base, folder]) => win32.join(bases[base], folder, 'Application\\chrome.exe')));
  }
  // Relative or empty PATH entries depend on the cwd: not a stable answer, so skip them.
  const pathDirs = (env.path ?? '').split(posix.delimiter).filter((dir) => posix.isAbsolute(dir));
  const dirs = unique([...LINUX_DIRS, ...pathDirs].map((dir) => posix.normalize(dir).replace(/(.)\/$/, '$1')));
  const onPath = LINUX_NAMES.flatMap((name) => dirs.map((dir) => posix.join(dir, name)));
  return unique([...onPath, ...LINUX_INSTALL_TREES]);
}

export interface FindExecutableOptions {
  /** `executablePath` from config.json: used as is, never second-guessed. */
  executablePath?: string;
  platform: Platform;
  env: ExecutableEnv;
  isExecutable?: (path: string) => boolean;
}

export function findExecutable(options: FindExecutableOptions): string {
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const configured = options.executablePath;
  if (configured !== undefined) {
    // A wrong configured path is a mistake to report, not a reason to launch some other browser.
    if (isExecutable(configured)) return configured;
    throw new ExecutableNotFoundError(
      `executablePath "${configured}" in config.json is not an executable file. Fix or remove it to use an installed Chrome or Chromium.`,
      [configured],
    );
  }
  const candidates = candidateExecutables(options.platform, options.env);
  const found = candidates.find(isExecutable);
  if (found !== undefined) return found;
  throw new ExecutableNotFoundError(
    `No Chrome or Chromium found. Looked for: ${describePaths(candidates, options.platform)}. ` +
      `Set "executablePath" in config.json, or ${INSTALL_HINT[options.platform]}.`,
    candidates,
  );
}

const INSTALL_HINT: Record<Platform, string> = {
  linux: 'install Chromium (e.g. `apt-get install chromium`)',
  darwin: 'install Chromium or Google Chrome into /Applications',
  win32: 'install Google Chrome or Chromium',
};

export function defaultExecutableEnv(env: NodeJS.ProcessEnv = process.env): ExecutableEnv {
  return {
    home: homedir(),
    localAppData: env.LOCALAPPDATA,
    programFiles: env.PROGRAMFILES,
    programFilesX86: env['PROGRAMFILES(X86)'],
    path: env.PATH,
  };
}

function isExecutableFile(path: string): boolean {
  try {
    // statSync follows symlinks, so /usr/bin/chromium -> /etc/alternatives/... counts.
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `/usr/bin/{chromium,google-chrome}, /snap/bin/{...}`: the Linux list is dozens of paths long. */
function describePaths(paths: string[], platform: Platform): string {
  const path = platform === 'win32' ? win32 : posix;
  const byDir = new Map<string, string[]>();
  for (const file of paths) {
    const dir = path.dirname(file);
    byDir.set(dir, [...(byDir.get(dir) ?? []), path.basename(file)]);
  }
  return [...byDir].map(([dir, names]) => (names.length === 1 ? path.join(dir, names[0]) : `${dir}${path.sep}{${names.join(',')}}`)).join(', ');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
