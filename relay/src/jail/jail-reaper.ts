import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeGroup } from './cgroup.js';
import type { JailRecord } from './jail-envelope.js';
import { jailHost } from './jail-host.js';
import { removeNamespace } from './netns.js';

/** Removes what a jail an earlier server left holds (session-reaper.ts): its processes, cgroup, namespace and proxy socket. Safe twice. */
export async function removeJail(record: JailRecord, id: string): Promise<void> {
  const host = jailHost();
  if (!('unusable' in host)) await removeGroup(host.cgroups, record.cgroup).catch(() => {});
  await removeNamespace(record.netns);
  rmSync(join(tmpdir(), `clawd-egress-${id}.sock`), { force: true });
  rmSync(record.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
