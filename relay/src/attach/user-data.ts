import { existsSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BROWSER_TITLES, BROWSERS, type BrowserName, homeEnv, userDataDir } from '../config/browser-homes.js';
import type { Platform } from '../config/platform.js';
import { processRunning } from '../config/platform.js';

/**
 * What a Chromium browser's user data folder says about it, read without
 * connecting to anything (connecting would ask the person): whether it runs
 * (its `SingletonLock`), its version (`Last Version`), its profiles (`Local
 * State`), and whether remote debugging is allowed: Chrome then writes
 * `DevToolsActivePort` there, the port on its first line and the browser
 * endpoint's path on its second. A browser that stops without cleaning up
 * leaves that file behind, naming a port nobody listens on any more.
 */

/** Where clawd-browser looks for a person's browser: a default folder of a known browser, or the one config.json names. */
export interface BrowserHome {
  browser: BrowserName | 'configured';
  /** What it is called to a person. */
  title: string;
  userDataDir: string;
}

export interface ActivePort {
  port: number;
  /** `/devtools/browser/<id>`: the browser endpoint's path. */
  path: string;
}

/** A Chrome profile the folder holds (`Default`, `Profile 1`, …) and the name its person gave it. */
export interface BrowserProfile {
  dir: string;
  name: string;
  /** Open in the running browser (Local State's last_active_profiles). */
  open: boolean;
}

export interface HomeReport extends BrowserHome {
  exists: boolean;
  /** Whether the browser runs on this folder: its SingletonLock names a live process. Undefined where that cannot be told (Windows). */
  running?: boolean;
  /** `Last Version`: the version that last ran on the folder. */
  version?: string;
  /** DevToolsActivePort, when present and well-formed. */
  activePort?: ActivePort;
  /** DevToolsActivePort is present but unreadable or malformed: why. */
  activePortProblem?: string;
  profiles: BrowserProfile[];
}

/** The folders to look in: the configured one alone, or each known browser's default one. */
export function browserHomes(configured: string | undefined, platform: Platform, home: string): BrowserHome[] {
  if (configured) return [{ browser: 'configured', title: "the browser of config.json's chrome.userDataDir", userDataDir: configured }];
  return BROWSERS.map((browser) => ({ browser, title: BROWSER_TITLES[browser], userDataDir: userDataDir(browser, platform, homeEnv(home)) }));
}

const ACTIVE_PORT_PATH = /^\/devtools\/browser\/[A-Za-z0-9-]{1,64}$/;

/** Parses DevToolsActivePort's text: the port, then the browser endpoint's path. */
export function parseActivePort(text: string): ActivePort | string {
  const [rawPort, rawPath] = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return `its first line is not a port (${JSON.stringify(rawPort ?? '')})`;
  if (!rawPath || !ACTIVE_PORT_PATH.test(rawPath)) return `its second line is not a browser endpoint's path (${JSON.stringify(rawPath ?? '')})`;
  return { port, path: rawPath };
}

export function describeHome(home: BrowserHome, platform: Platform): HomeReport {
  const dir = home.userDataDir;
  const report: HomeReport = { ...home, exists: isFolder(dir), profiles: [] };
  if (!report.exists) return report;
  report.running = lockHolderRuns(dir, platform);
  report.version = readText(join(dir, 'Last Version'))?.trim() || undefined;
  report.profiles = profilesOf(dir);
  const portFile = join(dir, 'DevToolsActivePort');
  if (existsSync(portFile)) {
    const text = readText(portFile);
    const parsed = text === undefined ? 'it cannot be read' : parseActivePort(text);
    if (typeof parsed === 'string') report.activePortProblem = `${portFile} is not what Chrome writes: ${parsed}`;
    else report.activePort = parsed;
  }
  return report;
}

/** The major version of a `Last Version` or `Chrome/144.0.1.2` string. */
export function majorVersion(version: string | undefined): number | undefined {
  const major = Number(/(\d+)\.\d+/.exec(version ?? '')?.[1]);
  return Number.isInteger(major) ? major : undefined;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Chrome's SingletonLock (Linux, macOS) is a symlink to "<host>-<pid>" while
 * it runs; a browser that crashed leaves it behind, naming a pid that is
 * gone (or another host's, whose process we cannot judge: then it is taken
 * as running).
 */
function lockHolderRuns(dir: string, platform: Platform): boolean | undefined {
  if (platform === 'win32') return undefined;
  let target: string;
  try {
    target = readlinkSync(join(dir, 'SingletonLock'));
  } catch {
    return false;
  }
  const match = /^(.*)-(\d+)$/.exec(target);
  if (!match) return undefined;
  const [, host, pid] = match;
  if (host !== hostname()) return undefined;
  return processRunning(Number(pid));
}

/** The profiles Local State lists, and which are open now. */
function profilesOf(dir: string): BrowserProfile[] {
  const text = readText(join(dir, 'Local State'));
  if (!text) return [];
  try {
    const profile = (JSON.parse(text) as { profile?: { info_cache?: Record<string, { name?: string }>; last_active_profiles?: string[] } }).profile;
    const open = new Set(profile?.last_active_profiles ?? []);
    return Object.entries(profile?.info_cache ?? {}).map(([name, info]) => ({ dir: name, name: info.name || name, open: open.has(name) }));
  } catch {
    return [];
  }
}
