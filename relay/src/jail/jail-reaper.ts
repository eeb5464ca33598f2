import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeGroup } from './cgroup.js';
import { jailHost } from './jail-host.js';
import { removeNamespace } from './netns.js';

/** What a jail leaves on this machine while it lives, written down so that a server killed mid-way leaves the reaper what it needs. */
export interface JailRecord {
  netns: string;
  cgroup: string;
  uid: number;
  /** The jail's own dir (its browser's data and downloads), owned by its user; $CLAWD_HOME stays closed to it. */
  dir: string;
}

/** Removes what a jail an earlier server left holds (session-reaper.ts): its processes, cgroup, namespace and proxy socket. Safe twice. */
export async function removeJail(record: JailRecord, id: string, options: { keepDir?: boolean } = {}): Promise<void> {
  const host = jailHost();
  if (!('unusable' in host)) await removeGroup(host.cgroups, record.cgroup).catch(() => {});
  await removeNamespace(record.netns);
  rmSync(join(tmpdir(), `clawd-egress-${id}.sock`), { force: true });
  if (!options.keepDir) rmSync(record.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
