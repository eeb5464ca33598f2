import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * The control API of this home as far as it is known without config.json:
 * `CLAWD_URL`, else the running server's address. Reading config.json takes
 * its schema (zod); a client command finds a running server without it.
 */
export function knownControlUrl(home: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.CLAWD_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  return liveServerRecord(home)?.controlUrl;
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
