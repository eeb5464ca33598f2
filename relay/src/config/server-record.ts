import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { relayPortFor } from '../../../protocol/constants.js';
import { controlAddress, loadConfig, urlHost } from './config.js';
import { processArgs, processRunning } from './platform.js';

/**
 * Where this home's server listens. `serve` writes `$CLAWD_HOME/server.json`
 * once it listens and removes it when it stops, so every command, the MCP
 * server and the native host find a server started with `--port` (or on
 * another host) without being told; `CLAWD_URL` overrides it for a server
 * elsewhere. A home has one server: `serve` refuses to start a second.
 */

export interface ServerRecord {
  pid: number;
  /** The control API, e.g. http://127.0.0.1:18791. */
  controlUrl: string;
  /** The relay's port (control port + 1). */
  relayPort: number;
  version: string;
  startedAt: string;
}

const FILE = 'server.json';

export function writeServerRecord(home: string, record: ServerRecord): void {
  writeFileSync(join(home, FILE), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the record if it is still this process's (a second server that was refused leaves the first one's). */
export function removeServerRecord(home: string, pid: number): void {
  if (readServerRecord(home)?.pid === pid) rmSync(join(home, FILE), { force: true });
}

/**
 * The record of a server whose process is alive and is a `serve`; a stale
 * one (the server was killed) is ignored, and so is one whose pid another
 * process took since (a container restarted, the pids counted up again).
 */
export function liveServerRecord(home: string): ServerRecord | undefined {
  const record = readServerRecord(home);
  if (!record || !processRunning(record.pid)) return undefined;
  const args = processArgs(record.pid);
  return args === undefined || args.includes('serve') ? record : undefined;
}

/**
 * The control API a client of this home talks to: `CLAWD_URL`, else the
 * running server's address, else config.json's `controlUrl` (where `serve`
 * will listen).
 */
export function controlUrlFor(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const given = env.CLAWD_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  const running = liveServerRecord(home);
  if (running) return running.controlUrl;
  const { host, port } = controlAddress(loadConfig(home));
  return `http://${urlHost(host)}:${port}`;
}

/** The relay (extension and CDP) address that goes with `controlUrlFor`. */
export function relayAddressFor(home: string, env: NodeJS.ProcessEnv = process.env): { httpUrl: string; relayUrl: string } {
  const control = new URL(controlUrlFor(home, env));
  const host = `${control.hostname}:${relayPortFor(Number(control.port || 80))}`;
  return { httpUrl: `http://${host}`, relayUrl: `ws://${host}` };
}

/** The record as written, whether its server still runs or not. */
export function readServerRecord(home: string): ServerRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(join(home, FILE), 'utf8')) as Partial<ServerRecord>;
    if (typeof record.pid !== 'number' || typeof record.controlUrl !== 'string') return undefined;
    return record as ServerRecord;
  } catch {
    return undefined; // none, or half-written by a server being killed: no server to find there
  }
}
