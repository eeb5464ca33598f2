import { spawn } from 'node:child_process';
import { chmodSync, closeSync, openSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import type { BootstrapReply, EnsureRelayReply, StatusReply } from '../../../protocol/native-host.js';
import { controlUrlFor, relayAddressFor } from '../config/server-address.js';
import { processRunning } from '../config/platform.js';
import { ensureHome, loadOrCreateExtensionKey, readToken } from '../config/state-dir.js';

/**
 * What the native host can do for the extension (spec §8): hand it the relay
 * URL and the extension key, and start the relay when it does not answer.
 * The client token is never handed out here: the extension proves the
 * extension key to the relay (protocol/link-auth.ts) and needs nothing else.
 */

export interface HostContext {
  /** $CLAWD_HOME of the relay this host serves. */
  home: string;
  version: string;
  /** bin/clawd-browser.js, to start `serve`. */
  cliPath: string;
  /** How long ensure_relay waits for a spawned relay to answer. */
  startTimeoutMs?: number;
}

/** The relay of this home's server: where it listens now (server.json), else where `serve` will (config.json). */
function relayOf(context: HostContext) {
  return relayAddressFor(context.home);
}

/** True when a relay with our token answers on the configured port. */
export async function relayAnswers(context: HostContext, timeoutMs = 1000): Promise<boolean> {
  const token = readToken(context.home);
  if (!token) return false; // no relay has ever run here
  try {
    const response = await fetch(`${relayOf(context).httpUrl}/status`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/** True when this home's control API answers at all (`GET /pressure` wants no token). */
async function controlListens(context: HostContext): Promise<boolean> {
  try {
    await fetch(`${controlUrlFor(context.home)}/pressure`, { signal: AbortSignal.timeout(500) });
    return true;
  } catch {
    return false;
  }
}

export async function bootstrap(context: HostContext): Promise<BootstrapReply> {
  return { relayUrl: relayOf(context).relayUrl, extensionKey: loadOrCreateExtensionKey(context.home), version: context.version };
}

export async function status(context: HostContext): Promise<StatusReply> {
  return {
    relay: (await relayAnswers(context)) ? 'running' : 'stopped',
    relayUrl: relayOf(context).relayUrl,
    version: context.version,
    clawdHome: context.home,
  };
}

export class RelayStartError extends Error {}

/**
 * Starts `clawd-browser serve` detached (its own session, stdio to
 * $CLAWD_HOME/relay.log) so that it outlives this host and the browser.
 * The home (0700) and the log (0600) are made here when this is the first run.
 */
export async function ensureRelay(context: HostContext): Promise<EnsureRelayReply> {
  const { relayUrl } = relayOf(context);
  if (await relayAnswers(context)) return { state: 'running' as const, relayUrl };
  // On first run (an MCP client or the extension before any `serve`) there is no home yet.
  const logPath = join(ensureHome(context.home), 'relay.log');
  // Only the user reads what the relay logs (an older file may have been made 0644).
  const log = openSync(logPath, 'a', 0o600);
  chmodSync(logPath, 0o600);
  // Started here, it is nobody's to stop: it exits by itself once unused (cli/idle-watch.ts).
  let pid: number;
  try {
    pid = await startOrphaned(process.execPath, [context.cliPath, 'serve', '--exit-when-idle'], log, { ...process.env, CLAWD_HOME: context.home });
  } finally {
    closeSync(log);
  }
  const deadline = Date.now() + (context.startTimeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    // serve listens on its relay first and on its control API a moment later: started means both (mcp calls the latter at once).
    if ((await relayAnswers(context, 500)) && (await controlListens(context))) return { state: 'spawned' as const, relayUrl, pid };
    if (!processRunning(pid)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-3).join(' | ');
  throw new RelayStartError(
    !processRunning(pid)
      ? `clawd-browser serve exited at start: ${tail} (log: ${logPath})`
      : `clawd-browser serve did not answer within ${context.startTimeoutMs ?? 10_000} ms (log: ${logPath})`,
  );
}

/** Runs in a node of its own: starts the command it is given, detached, says its pid on fd 3, and ends. */
const LAUNCHER = `const child = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { detached: true, stdio: ['ignore', 1, 2] });
require('node:fs').writeSync(3, String(child.pid));
child.unref();`;

/**
 * Starts a process that is no one's child: a launcher starts it and ends at
 * once, so its parent becomes the system's (init). An MCP client that stops
 * the process tree it started when it disconnects (many walk the children
 * of their server by parent pid and signal each) then stops `mcp`, not the
 * server this home's other clients use. Resolves to its pid.
 */
function startOrphaned(command: string, args: string[], log: number, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const launcher = spawn(process.execPath, ['-e', LAUNCHER, command, ...args], { detached: true, stdio: ['ignore', log, log, 'pipe'], env });
    let said = '';
    (launcher.stdio[3] as Readable).on('data', (chunk: Buffer) => (said += chunk.toString()));
    launcher.once('error', reject);
    launcher.once('close', (code) => {
      const pid = Number(said);
      if (Number.isInteger(pid) && pid > 0) resolve(pid);
      else reject(new RelayStartError(`could not start clawd-browser serve (its launcher ended with code ${code})`));
    });
  });
}
