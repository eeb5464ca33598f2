import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { EXTENSION_ID, NATIVE_HOST_NAME, relayPortFor } from '../../../protocol/constants.js';
import { type Config, controlAddress, loadConfig } from '../config/config.js';
import { currentPlatform } from '../config/platform.js';
import { liveServerRecord } from '../config/server-record.js';
import { readToken } from '../config/state-dir.js';
import { EXTENSION_DIR } from '../config/package-root.js';
import { jailHost } from '../jail/jail-host.js';
import { findFfmpeg } from '../driver/film/film-encoder.js';
import { BROWSERS, manifestDir } from '../native-host/install.js';
import { gridName, gridReadiness } from '../profiles/grid-session.js';
import type { ChromeStatus } from '../api/chrome-schemas.js';
import { checkChrome } from './chrome-check.js';
import { defaultExecutableEnv, findExecutable } from '../profiles/executable.js';

/**
 * `clawd-browser doctor`: what a first run needs, checked in one place, each
 * problem with the one thing to do about it. A check that fails makes the
 * exit non-zero; one that only warns (no server running yet, the native host
 * not installed) says what will not work until it is done.
 */

export type Verdict = 'ok' | 'warn' | 'fail';
export interface Check {
  name: string;
  verdict: Verdict;
  /** What was found. */
  detail: string;
  /** For warn and fail: what to do, in one line. */
  fix?: string;
}

const ok = (name: string, detail: string): Check => ({ name, verdict: 'ok', detail });
const warn = (name: string, detail: string, fix: string): Check => ({ name, verdict: 'warn', detail, fix });
const fail = (name: string, detail: string, fix: string): Check => ({ name, verdict: 'fail', detail, fix });

function checkNode(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 20 ? ok('node', `Node ${process.versions.node}`) : fail('node', `Node ${process.versions.node}`, 'install Node 20 or later');
}

function checkBrowser(config: Config): Check {
  let path: string;
  try {
    path = findExecutable({ executablePath: config.executablePath, platform: currentPlatform(), env: defaultExecutableEnv() });
  } catch (error) {
    const message = (error as Error).message;
    return fail(
      'browser',
      message.split('. ')[0],
      config.executablePath ? 'fix or remove "executablePath" in config.json' : message.split('. ').slice(1).join('. '),
    );
  }
  try {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return ok('browser', `${path} (${version})`);
  } catch (error) {
    return fail(
      'browser',
      `${path} does not start: ${String((error as Error).message).split('\n')[0]}`,
      'reinstall it, or set "executablePath" in config.json to a Chrome or Chromium that runs',
    );
  }
}

/** Films are made by ffmpeg: without it everything else works, so it is a warning. */
function checkFilms(config: Config): Check {
  try {
    const path = findFfmpeg(config.recordings.ffmpeg);
    const version = execFileSync(path, ['-version'], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0];
    return ok('films', `${path} (${version.replace(/ Copyright.*$/, '')})`);
  } catch (error) {
    return warn(
      'films',
      (error as Error).message.split(': ')[0],
      'install ffmpeg (Debian and Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg), or set recordings.ffmpeg in config.json: only films need it',
    );
  }
}

function checkHome(home: string): Check {
  if (!existsSync(home)) return ok('home', `${home} (made on first run, mode 0700)`);
  const stat = statSync(home);
  if (!stat.isDirectory()) return fail('home', `${home} is not a folder`, `move it away, or set CLAWD_HOME to a folder of your own`);
  try {
    accessSync(home, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    return fail('home', `${home} is not writable by this user`, `chown -R $(id -un) ${home}`);
  }
  if (currentPlatform() !== 'win32') {
    if (process.getuid && stat.uid !== process.getuid())
      return fail('home', `${home} belongs to another user (uid ${stat.uid})`, `chown -R $(id -un) ${home}, or set CLAWD_HOME`);
    const token = join(home, 'token');
    if ((stat.mode & 0o077) !== 0) return fail('home', `${home} is readable by others (mode ${(stat.mode & 0o777).toString(8)})`, `chmod 700 ${home}`);
    if (existsSync(token) && (statSync(token).mode & 0o077) !== 0) return fail('home', `${token} is readable by others`, `chmod 600 ${token}`);
  }
  return ok('home', `${home} (private to this user)`);
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

async function checkPorts(home: string, config: Config, serverAnswers: boolean): Promise<Check> {
  const running = liveServerRecord(home);
  if (running) return ok('ports', `${running.controlUrl} and relay :${running.relayPort} held by this home's server (pid ${running.pid})`);
  const { host, port } = controlAddress(config);
  const taken = [];
  for (const each of [port, relayPortFor(port)]) if (!(await portFree(host, each))) taken.push(each);
  if (taken.length && serverAnswers) return ok('ports', `${port} and ${relayPortFor(port)} on ${host} held by this home's server`);
  if (taken.length)
    return fail(
      'ports',
      `${taken.join(' and ')} on ${host} taken by another program`,
      'stop that program, or give serve other ports: controlUrl in config.json or `serve --port N` (the relay takes N+1)',
    );
  return ok('ports', `${port} and ${relayPortFor(port)} on ${host} free`);
}

interface ServerState {
  check: Check;
  /** The extension profile's state, when the server answered. */
  extension?: string;
  /** The chrome profile's attachment, when the server answered. */
  chrome?: ChromeStatus;
}

async function checkServer(home: string, controlUrl: string): Promise<ServerState> {
  const token = readToken(home);
  let response: Response;
  try {
    response = await fetch(`${controlUrl}/?profile=extension`, {
      headers: { authorization: `Bearer ${token ?? ''}`, accept: 'application/json' },
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return {
      check: warn(
        'server',
        `nothing answers at ${controlUrl}`,
        "start it: `clawd-browser serve` (`clawd-browser mcp` and the extension's native host start it by themselves)",
      ),
    };
  }
  const status = (await response.json().catch(() => undefined)) as
    { profile?: string; extension?: string; enabled?: boolean; error?: { code?: string } } | undefined;
  if (response.status === 401 && status?.error?.code === 'unauthorized')
    return {
      check: fail(
        'server',
        `${controlUrl} refuses this home's token`,
        'that server belongs to another CLAWD_HOME: run doctor with that CLAWD_HOME, or stop that server',
      ),
    };
  if (!response.ok || status?.profile !== 'extension')
    return {
      check: fail(
        'server',
        `another program answers at ${controlUrl} (HTTP ${response.status})`,
        'stop it, or give serve another port: controlUrl in config.json or `serve --port N`',
      ),
    };
  const record = liveServerRecord(home);
  const chrome = (await fetch(`${controlUrl}/chrome`, { headers: { authorization: `Bearer ${token ?? ''}` }, signal: AbortSignal.timeout(5_000) })
    .then((answer) => (answer.ok ? answer.json() : undefined))
    .catch(() => undefined)) as ChromeStatus | undefined;
  return {
    check: ok('server', `${controlUrl} answers${record ? ` (version ${record.version})` : ''}`),
    extension: status.extension ?? (status.enabled === false ? 'disabled' : 'absent'),
    chrome,
  };
}

function checkNativeHost(): Check {
  const platform = currentPlatform();
  if (platform === 'win32') return ok('native host', 'registered per browser in HKCU (not checked on Windows)');
  const found: string[] = [];
  const broken: string[] = [];
  for (const browser of BROWSERS) {
    const path = join(manifestDir(browser, platform, homedir(), process.env.XDG_CONFIG_HOME), `${NATIVE_HOST_NAME}.json`);
    if (!existsSync(path)) continue;
    try {
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as { path?: string; allowed_origins?: string[] };
      if (!manifest.path || !existsSync(manifest.path)) broken.push(`${browser} (its launcher ${manifest.path ?? '?'} is gone)`);
      else if (!manifest.allowed_origins?.includes(`chrome-extension://${EXTENSION_ID}/`)) broken.push(`${browser} (another extension ID)`);
      else found.push(browser);
    } catch {
      broken.push(`${browser} (unreadable manifest ${path})`);
    }
  }
  if (broken.length)
    return fail(
      'native host',
      `installed for ${broken.join(', ')}`,
      'run `clawd-browser install-native-host` again (with --extension-id if you load the extension under another ID)',
    );
  if (!found.length)
    return warn(
      'native host',
      'not installed for any browser',
      'to share tabs from your Chrome: `clawd-browser install-native-host` (or pair the extension by hand on its options page)',
    );
  return ok('native host', `installed for ${found.join(', ')}`);
}

/** Where the extension to load is, as an absolute path: in a checkout or an installed package alike. */
function checkExtensionFiles(): Check {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) return fail('extension files', `${EXTENSION_DIR} is not built`, 'run `npm run build` in the checkout');
  return ok('extension files', `${EXTENSION_DIR} (load it in Chrome: chrome://extensions, Developer mode, Load unpacked)`);
}

function checkExtension(server: ServerState): Check {
  if (server.extension === undefined)
    return warn('extension', 'not known: the server is not running', "start the server, then click the extension's toolbar button on a tab");
  if (server.extension === 'connected') return ok('extension', 'paired and connected');
  if (server.extension === 'disabled') return warn('extension', 'the extension profile is disabled', 'set "enabled": true in config.json');
  return warn(
    'extension',
    `not connected (${server.extension})`,
    `load ${EXTENSION_DIR} in Chrome (chrome://extensions, Developer mode, Load unpacked), then click its toolbar button on a tab`,
  );
}

function checkJails(config: Config): Check {
  const host = jailHost();
  if ('unusable' in host) {
    const detail = `task sessions run as plain processes: ${host.unusable}`;
    return config.sessionIsolation === 'process'
      ? ok('jails', detail)
      : warn('jails', detail, 'run serve as root on Linux with iproute2 for jailed sessions, or set "sessionIsolation": "process" to accept this');
  }
  const detail = `cgroups ${host.cgroups.version}, network namespaces${host.sandbox ? '' : ` (${host.sandboxNote})`}`;
  return config.sessionIsolation === 'process' ? ok('jails', `${detail}: available, but config sessionIsolation is "process"`) : ok('jails', detail);
}

async function checkGrid(config: Config): Promise<Check | undefined> {
  const grid = config.grid;
  if (!grid) return undefined;
  // Through the Grid layer: its credentials (grid.username, or user:password@ in the URL) are sent, never shown.
  const name = gridName(grid);
  try {
    const { ready, message, status } = await gridReadiness(grid);
    if (ready) return ok('grid', `${name} ready`);
    return fail(
      'grid',
      `${name} answers but is not ready: ${message ?? `HTTP ${status}`}`,
      'start a node on the Grid, or check its credentials in config.json grid',
    );
  } catch (error) {
    return fail('grid', (error as Error).message, 'start the Grid, or fix grid.url in config.json (or remove grid)');
  }
}

export async function runDoctor(home: string, controlUrl: string): Promise<Check[]> {
  const checks: Check[] = [checkNode()];
  let config: Config;
  try {
    config = loadConfig(home);
  } catch (error) {
    return [...checks, fail('config', (error as Error).message.split('\n')[0], `fix ${join(home, 'config.json')}, or move it away to start from the defaults`)];
  }
  checks.push(ok('config', existsSync(join(home, 'config.json')) ? `${join(home, 'config.json')} is valid` : 'defaults (no config.json yet)'));
  const server = await checkServer(home, controlUrl);
  checks.push(checkBrowser(config), checkHome(home), await checkPorts(home, config, server.check.verdict === 'ok'));
  checks.push(
    server.check,
    checkNativeHost(),
    checkExtensionFiles(),
    checkExtension(server),
    ...(await checkChrome(config, server.chrome, currentPlatform(), homedir())),
    checkJails(config),
    checkFilms(config),
  );
  const grid = await checkGrid(config);
  if (grid) checks.push(grid);
  return checks;
}

const MARK: Record<Verdict, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function describeChecks(checks: Check[]): string {
  const width = Math.max(...checks.map((check) => check.name.length));
  return checks
    .map((check) => `${MARK[check.verdict]}  ${check.name.padEnd(width)}  ${check.detail}${check.fix ? `\n      ${' '.repeat(width)}  fix: ${check.fix}` : ''}`)
    .join('\n');
}
