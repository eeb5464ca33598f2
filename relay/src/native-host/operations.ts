import { spawn } from 'node:child_process';
import { chmodSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BootstrapReply, EnsureRelayReply, StatusReply } from '../../../protocol/native-host.js';
import { relayAddressFor } from '../config/server-record.js';
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
  const child = spawn(process.execPath, [context.cliPath, 'serve', '--exit-when-idle'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, CLAWD_HOME: context.home },
  });
  child.unref();
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + (context.startTimeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    if (await relayAnswers(context, 500)) return { state: 'spawned' as const, relayUrl, pid: child.pid };
    if (exited !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-3).join(' | ');
  throw new RelayStartError(
    exited !== null
      ? `clawd-browser serve exited with code ${exited}: ${tail} (log: ${logPath})`
      : `clawd-browser serve did not answer within ${context.startTimeoutMs ?? 10_000} ms (log: ${logPath})`,
  );
}
