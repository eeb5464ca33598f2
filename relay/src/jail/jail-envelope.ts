import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_MAX_CONNECTIONS, type EgressCounters, EgressProxy, type EgressOptions, sumCounters } from '../egress/egress-proxy.js';
import type { EgressFailureReason, LaunchEnvelope, PreparedLaunch } from '../profiles/launch-envelope.js';
import { Cgroup, type CgroupLimits } from './cgroup.js';
import type { JailHost } from './jail-host.js';
import { NetworkNamespace } from './netns.js';
import { withPrivateFolders } from './private-mounts.js';
import { type JailRecord, markJail, removeJail } from './jail-reaper.js';

/**
 * A task session's jail (spec §14), or a jailed profile's, made before its
 * browser starts (a spare's too) and removed after it stops:
 * - a network namespace with loopback only, whose one way out is a bridge to
 *   the session's own egress proxy (netns.ts);
 * - a cgroup with the session's limits (cgroup.ts), which the browser's
 *   first process joins before it execs, so every process it starts is in;
 * - a user id of its own, unprivileged, that owns the jail's dir and
 *   nothing else: Chromium keeps its own sandbox, and one jail's browser
 *   cannot read another's files;
 * - its own /tmp, /var/tmp and /dev/shm (private-mounts.ts), gone with it.
 * The memory limit is watched: when the kernel's OOM killer ends a process
 * of the jail, `onLimit` says so, and the session is ended (task-sessions.ts).
 */

const run = promisify(execFile);
/** Jailed browsers run as uids from here up, a session's drawn at random, a profile's derived from its id: no /etc/passwd entry needed. */
const UID_BASE = 1_000_000;
const UID_SPAN = 1_000_000_000;
const WATCH_MS = 1_000;

export interface JailOptions {
  id: string;
  host: Extract<JailHost, { cgroups: unknown }>;
  limits: CgroupLimits;
  egress: EgressOptions;
  /** A limit was passed (the kernel killed a process for memory). Said once. */
  onLimit: (why: string) => void;
  /** Made ahead for a spare: its CPU weight stays low until inUse(). */
  spare?: boolean;
  /**
   * A managed profile's jail: its dir is kept (the profile's data) and its
   * uid is the same on every launch (derived from the id), so the data stays
   * its own; what a killed server left of it is removed before each launch.
   */
  keep?: { dir: string };
}

export class JailEnvelope implements LaunchEnvelope {
  readonly record: JailRecord;
  private cgroup: Cgroup | undefined;
  private namespace: NetworkNamespace | undefined;
  private proxy: EgressProxy | undefined;
  private watch: NodeJS.Timeout | undefined;
  private readonly socketPath: string;
  private launches = 0;

  constructor(private readonly options: JailOptions) {
    const uid =
      UID_BASE +
      (options.keep ? Number.parseInt(createHash('sha256').update(options.id).digest('hex').slice(0, 8), 16) % UID_SPAN : Math.floor(Math.random() * UID_SPAN));
    this.record = { netns: `clawd-${options.id}`, cgroup: options.id, uid, dir: options.keep?.dir ?? join(tmpdir(), `clawd-jail-${options.id}`) };
    // Marked before anything of it exists: any server's reaper finds it once this one is gone (jail-reaper.ts).
    markJail(options.id, this.record, options.keep !== undefined);
    // A session's dir is new (an old one would be another session's); a profile's is kept, under a
    // root its user may pass through (0711) but not list.
    if (options.keep) mkdirSync(dirname(this.record.dir), { recursive: true, mode: 0o711 });
    mkdirSync(this.record.dir, { mode: 0o700, recursive: options.keep !== undefined });
    this.socketPath = join(tmpdir(), `clawd-egress-${options.id}.sock`);
  }

  async prepare(): Promise<PreparedLaunch> {
    await this.release();
    const { host, limits } = this.options;
    // A profile's jail has the same names on every launch: what a killed server left of it goes first.
    if (this.options.keep) {
      await removeJail(this.record, this.options.id, { keepDir: true });
      markJail(this.options.id, this.record, true);
    }
    const { uid, dir } = this.record;
    try {
      // The first launch runs uncapped (capCpu, once started); a browser started again is capped from the start.
      const first = this.launches++ === 0;
      this.cgroup = Cgroup.create(host.cgroups, this.record.cgroup, limits, { capCpuLater: first, spare: first && this.options.spare });
      this.namespace = await NetworkNamespace.create(this.record.netns);
      this.proxy = new EgressProxy(this.options.egress);
      rmSync(this.socketPath, { force: true });
      await this.proxy.listen({ path: this.socketPath });
      // Only root (the bridge) connects to it; the jailed browser reaches it through the bridge alone.
      chmodSync(this.socketPath, 0o600);
      const port = await this.namespace.bridgeTo(this.socketPath, this.options.egress.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
      await run('chown', ['-R', `${uid}:${uid}`, dir]);
      this.watchMemory();
      const procs = this.cgroup.procsFiles.map((file) => `echo $$ > '${file}'`).join(' && ');
      // Its own /tmp, /var/tmp and /dev/shm (private-mounts.ts), then its own user.
      const enter = [
        'ip',
        'netns',
        'exec',
        this.record.netns,
        ...withPrivateFolders(dir, limits.memoryMiB),
        'setpriv',
        `--reuid=${uid}`,
        `--regid=${uid}`,
        '--clear-groups',
        '--inh-caps=-all',
        '--',
      ];
      return {
        proxyServer: `http://127.0.0.1:${port}`,
        // The shell puts itself in the cgroup, then becomes the browser: no process of it starts outside.
        wrap: (command, args) => ({ command: '/bin/sh', args: ['-c', `${procs} && exec "$@"`, 'jail', ...enter, command, ...args] }),
        env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), XDG_CACHE_HOME: join(dir, '.cache') },
        unprivileged: host.sandbox,
      };
    } catch (error) {
      await this.release();
      throw new Error(`could not make the jail: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Everything the jail held: its processes, namespace, proxy and cgroup. Safe twice. */
  async release(): Promise<void> {
    clearInterval(this.watch);
    this.watch = undefined;
    const [namespace, proxy, cgroup] = [this.namespace, this.proxy, this.cgroup];
    this.namespace = this.proxy = this.cgroup = undefined;
    await cgroup?.remove().catch(() => {});
    await namespace?.remove();
    await proxy?.close();
    rmSync(this.socketPath, { force: true });
  }

  egressFailure(host: string, since: number): EgressFailureReason | undefined {
    return this.proxy?.failures.latest(host, since);
  }

  /** The browser has started (a spare: with its blank page): from now on it is held to its `cpus`. */
  capCpu(): void {
    this.cgroup?.capCpu();
  }

  /** A spare handed over to its session: it weighs as a session's browser from now on. */
  inUse(): void {
    this.cgroup?.inUse();
  }

  counters(): EgressCounters {
    return sumCounters(this.proxy?.counters);
  }

  private watchMemory(): void {
    const cgroup = this.cgroup!;
    const before = cgroup.oomKills();
    this.watch = setInterval(() => {
      if (cgroup.oomKills() <= before) return;
      clearInterval(this.watch);
      this.options.onLimit(`used more than its memoryMiB (${this.options.limits.memoryMiB} MiB): the kernel ended a process of its browser`);
    }, WATCH_MS);
    this.watch.unref();
  }
}
