import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processRunning } from '../config/platform.js';
import type { Logger } from '../log.js';
import { findProfileProcesses, killProcesses } from '../profiles/orphans.js';
import { GridSession, gridName } from '../profiles/grid-session.js';
import { loadConfig } from '../config/config.js';
import type { JailRecord } from '../jail/jail-reaper.js';
import { reapOrphanJails, removeJail } from '../jail/jail-reaper.js';

/**
 * The reaper: what an earlier server left of its task sessions (it stopped,
 * or was killed mid-session) is removed before anything else, by `serve` at
 * start and by `clawd-browser reap`.
 */

/** How long a session's browser has between TERM and KILL. */
export const STOP_GRACE_MS = 3_000;

/** What a session leaves in its dir, for the reaper: who owns it and what runs for it. */
export interface SessionRecord {
  id: string;
  serverPid: number;
  /** A local session's browser data; absent for one on a Grid. */
  userDataDir?: string;
  /** A session placed on a Selenium Grid: the Grid (without credentials) and its session id there, once known. */
  grid?: { url: string; session?: string };
  /** A jailed session's network namespace, cgroup and user (jail/jail-envelope.ts). */
  jail?: JailRecord;
  createdAt: string;
}

/**
 * Removes sessions no live server owns: their browsers (anything running on
 * their data dir), then their dirs; then jails no live server holds, by
 * their own marks (jail-reaper.ts). Run by
 * `serve` at start and by `clawd-browser reap`; safe to run twice, and after
 * a server killed with SIGKILL mid-session.
 */
export async function reapSessions(
  home: string,
  log?: Logger,
  heldInFleet?: (id: string) => Promise<boolean>,
): Promise<Array<{ id: string; killed: number[] }>> {
  const root = join(home, 'sessions');
  const reaped: Array<{ id: string; killed: number[] }> = [];
  for (const id of existsSync(root) ? readdirSync(root) : []) {
    if (id === 'template') continue;
    const dir = join(root, id);
    let record: SessionRecord | undefined;
    try {
      record = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')) as SessionRecord;
    } catch {
      // A session that died before writing its record: only its dir is left, with whatever runs on it.
    }
    if (record && record.serverPid !== process.pid && processRunning(record.serverPid)) continue; // a live server's session
    const userDataDir = record?.userDataDir ?? join(dir, 'user-data');
    // On a Grid: ended there, with the Grid's credentials from config.json (if it still names that Grid).
    // Unless the fleet goes on with it: another server took it over, or will (spec §18).
    if (record?.grid?.session && !(await heldInFleet?.(id).catch(() => false))) {
      const configured = safeGrid(home);
      await GridSession.endById(
        configured && gridName(configured) === record.grid.url ? configured : { url: record.grid.url, keepAliveSeconds: 60, requestTimeoutSeconds: 60 },
        record.grid.session,
      );
    }
    // Its browser exited with its server (the pipe closed); anything still on its data dir is ended here.
    const pids = record?.grid ? [] : findProfileProcesses(userDataDir);
    const killed = pids.length ? await killProcesses(pids, STOP_GRACE_MS) : [];
    // Its jail: whatever still runs in its cgroup or namespace, then both.
    if (record?.jail) await removeJail(record.jail, id);
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    log?.info(`reaped task session ${id}${killed.length ? ` (killed ${killed.join(', ')})` : ''}`);
    reaped.push({ id, killed });
  }
  // Jails any server left whose maker is gone, whatever home it had (a home deleted under it left no record here).
  for (const id of await reapOrphanJails()) {
    if (reaped.some((session) => session.id === id)) continue;
    log?.info(`reaped jail ${id}, which no running server holds`);
    reaped.push({ id, killed: [] });
  }
  return reaped;
}

function safeGrid(home: string) {
  try {
    return loadConfig(home).grid;
  } catch {
    return undefined;
  }
}
