import type { CgroupLimits } from '../jail/cgroup.js';
import type { EgressCounters, EgressOptions } from '../egress/egress-proxy.js';
import type { EgressEnvelope } from '../egress/egress-envelope.js';
import { JailEnvelope } from '../jail/jail-envelope.js';
import type { JailRecord } from '../jail/jail-reaper.js';
import { jailHost } from '../jail/jail-host.js';
import type { LaunchEnvelope } from '../profiles/launch-envelope.js';

/**
 * How a local task session's browser is kept apart (spec §14): a `jail`
 * where the host can make one and config.json does not say `process`, else
 * a `process` of this machine behind its own egress proxy. A session that
 * could not have the jail it would have had says why (`isolationNote`),
 * never silently.
 */
export interface Isolation {
  isolation: 'jail' | 'process';
  isolationNote?: string;
  envelope: LaunchEnvelope & { counters(): EgressCounters };
  /** Where the browser's data and downloads live: the session's dir, or its jail's own. */
  dataDir: string;
  /** For the reaper (session.json): what a jail leaves if this server dies. */
  jail?: JailRecord;
  /** Its browser has started: a jail's CPU cap applies from now on (the launch itself ran uncapped). */
  started(): void;
  /** A spare was handed over to a session: its jail weighs as a session's from now on. */
  inUse(): void;
}

export interface IsolationSettings {
  /** config sessionIsolation; undefined: jail where the host can. */
  mode?: 'jail' | 'process';
  limits: CgroupLimits;
}

export function isolate(
  /** `spare`: made ahead, its jail weighs little until handed over (inUse). */
  session: { id: string; dir: string; spare?: boolean },
  settings: IsolationSettings,
  egress: { options: EgressOptions; plain: () => EgressEnvelope },
  onLimit: (why: string) => void,
): Isolation {
  const none = () => {};
  if (settings.mode === 'process') return { isolation: 'process', envelope: egress.plain(), dataDir: session.dir, started: none, inUse: none };
  const host = jailHost();
  if ('unusable' in host)
    return { isolation: 'process', isolationNote: `no jail: ${host.unusable}`, envelope: egress.plain(), dataDir: session.dir, started: none, inUse: none };
  const envelope = new JailEnvelope({ id: session.id, host, limits: settings.limits, egress: egress.options, onLimit, spare: session.spare });
  const note = host.sandboxNote ? { isolationNote: host.sandboxNote } : {};
  return {
    isolation: 'jail',
    ...note,
    envelope,
    jail: envelope.record,
    dataDir: envelope.record.dir,
    started: () => envelope.capCpu(),
    inUse: () => envelope.inUse(),
  };
}
