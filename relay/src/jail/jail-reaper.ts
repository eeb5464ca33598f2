import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupNames, groupPids, removeGroup } from './cgroup.js';
import { jailHost } from './jail-host.js';
import { listNamespaces, namespacePids, removeNamespace } from './netns.js';

/** What a jail leaves on this machine while it lives, written down so that a server killed mid-way leaves the reaper what it needs. */
export interface JailRecord {
  netns: string;
  cgroup: string;
  uid: number;
  /** The jail's own dir (its browser's data and downloads), owned by its user; $CLAWD_HOME stays closed to it. */
  dir: string;
}

/**
 * Every jail is marked, before anything of it is made, with the server that
 * made it (its pid and when that process started, so a reused pid is not
 * taken for it), in a folder of root's that jailed users cannot write. A
 * server's reaper reads its own home's records (session-reaper.ts), and any
 * server's reaper also removes jails whose maker is gone, whatever home it
 * had: a server whose home was deleted leaves nothing for ever.
 */
export const JAIL_MARKS = '/run/clawd-browser/jails';
/** An unmarked jail's dir or socket is left alone this long after it last changed. */
const UNMARKED_AGE_MS = 10 * 60_000;

interface JailMark {
  id: string;
  record: JailRecord;
  /** A managed profile's jail: its dir is its data, kept when the jail goes. */
  keepDir: boolean;
  serverPid: number;
  serverStarted: string;
}

export function markJail(id: string, record: JailRecord, keepDir: boolean, marks = JAIL_MARKS): void {
  mkdirSync(marks, { recursive: true, mode: 0o700 });
  const mark: JailMark = { id, record, keepDir, serverPid: process.pid, serverStarted: processStarted(process.pid) ?? '' };
  writeFileSync(join(marks, `${id}.json`), JSON.stringify(mark), { mode: 0o600 });
}

/** Its mark goes with a jail; a server that cannot read the marks' folder (not root) has none to remove. */
export function unmarkJail(id: string, marks = JAIL_MARKS): void {
  try {
    rmSync(join(marks, `${id}.json`), { force: true });
  } catch {
    // Not ours to remove.
  }
}

/** Removes what a jail holds: its processes, cgroup, namespace and proxy socket, its dir unless kept, and its mark. Safe twice. */
export async function removeJail(record: JailRecord, id: string, options: { keepDir?: boolean; marks?: string } = {}): Promise<void> {
  const host = jailHost();
  if (!('unusable' in host)) await removeGroup(host.cgroups, record.cgroup).catch(() => {});
  await removeNamespace(record.netns);
  rmSync(join(tmpdir(), `clawd-egress-${id}.sock`), { force: true });
  if (!options.keepDir) rmSync(record.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  unmarkJail(id, options.marks);
}

/**
 * Jails no live server holds, found by their own marks: each whose maker is
 * gone is removed (and its mark). What carries no mark at all (made before
 * jails were marked) is removed once nothing runs in it: a namespace with
 * no process (a live jail always holds its bridge), a cgroup with none, a
 * jail's dir or socket with no namespace. Returns the ids removed.
 */
export async function reapOrphanJails(marks = JAIL_MARKS): Promise<string[]> {
  const host = jailHost();
  if ('unusable' in host) return [];
  const reaped: string[] = [];
  const marked = new Set<string>();
  for (const file of existsSync(marks) ? readdirSync(marks).filter((name) => name.endsWith('.json')) : []) {
    const mark = readMark(join(marks, file));
    if (!mark) continue;
    marked.add(mark.id);
    if (processStarted(mark.serverPid) === mark.serverStarted && mark.serverStarted !== '') continue;
    await removeJail(mark.record, mark.id, { keepDir: mark.keepDir, marks });
    reaped.push(mark.id);
  }
  const unmarked = (id: string) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) && !marked.has(id) && !reaped.includes(id);
  for (const name of await listNamespaces()) {
    const id = name.replace(/^clawd-/, '');
    // (jail-host.ts's probe is made and deleted at once: never a jail.)
    if (name === id || id.startsWith('probe-') || !unmarked(id) || (await namespacePids(name)).length) continue;
    await removeNamespace(name);
    reaped.push(id);
  }
  for (const id of groupNames(host.cgroups)) {
    if (!unmarked(id) || groupPids(host.cgroups, id).length) continue;
    await removeGroup(host.cgroups, id).catch(() => {});
    if (!reaped.includes(id)) reaped.push(id);
  }
  // A jail's dir or socket with neither a mark nor a namespace, and old enough that no jail is being made with it.
  const namespaces = new Set(await listNamespaces());
  for (const entry of readdirSync(tmpdir())) {
    const id = /^clawd-jail-(.+)$/.exec(entry)?.[1] ?? /^clawd-egress-(.+)\.sock$/.exec(entry)?.[1];
    if (!id || !unmarked(id) || namespaces.has(`clawd-${id}`) || Date.now() - lstatSync(join(tmpdir(), entry)).mtimeMs < UNMARKED_AGE_MS) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    if (!reaped.includes(id)) reaped.push(id);
  }
  return reaped;
}

function readMark(path: string): JailMark | undefined {
  try {
    const mark = JSON.parse(readFileSync(path, 'utf8')) as JailMark;
    return typeof mark.id === 'string' && typeof mark.serverPid === 'number' && mark.record ? mark : undefined;
  } catch {
    return undefined;
  }
}

/** When process `pid` started (Linux: /proc/<pid>/stat's start time, in clock ticks since boot); undefined when it is not running. */
function processStarted(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, in parentheses): the 20th of them is the start time.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
