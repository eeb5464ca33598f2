import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmdirSync,
  statfsSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Linux cgroups for task sessions' browsers: one group per session under
 * `clawd/`, with memory, CPU and process-count limits, so a runaway page
 * hurts only its own session and everything it started ends with it. Works
 * on the unified v2 tree and on v1's one hierarchy per controller.
 */

export interface CgroupLimits {
  memoryMiB: number;
  cpus: number;
  pids: number;
}
export type CgroupVersion = 1 | 2;
type Host = { version: CgroupVersion; root: string };

const BASE = 'clawd';
const CONTROLLERS = ['memory', 'cpu', 'pids'] as const;
const MIB = 1024 * 1024;
const PERIOD_US = 100_000;
/** The kernel refuses a CFS quota under 1 ms. */
const MIN_QUOTA_US = 1000;
const KILL_WAIT_MS = 2000;
/** statfs f_type of cgroup2 and cgroup (v1) mounts: there, rmdir works with the control files present. */
const CGROUPFS_MAGICS = new Set([0x63677270, 0x27e0eb]);

/** Where each controller's files of one group live; on v2 all four are the one dir. */
interface Layout {
  memory: string;
  cpu: string;
  cpuacct: string;
  pids: string;
}

/** Which cgroup layout the host has under `root` (default /sys/fs/cgroup), and whether this process can make groups there; `unusable` says why not. */
export function detectCgroups(root = '/sys/fs/cgroup'): Host | { unusable: string } {
  root = resolve(root);
  try {
    if (existsSync(join(root, 'cgroup.controllers'))) {
      const available = words(readFileSync(join(root, 'cgroup.controllers'), 'utf8'));
      const missing = CONTROLLERS.filter((c) => !available.includes(c));
      if (missing.length > 0) return { unusable: `cgroup v2 at ${root} lacks the ${missing.join(', ')} controller(s)` };
      probeWritable(root);
      return { version: 2, root };
    }
    const missing = CONTROLLERS.filter((c) => !existsSync(join(root, c)));
    if (missing.length === CONTROLLERS.length) return { unusable: `no cgroup v1 or v2 hierarchy under ${root}` };
    if (missing.length > 0) return { unusable: `cgroup v1 at ${root} lacks the ${missing.join(', ')} hierarchy` };
    for (const dir of unique(v1Hierarchies(root))) probeWritable(dir);
    return { version: 1, root };
  } catch (error) {
    return { unusable: `cannot make cgroups under ${root}: ${(error as Error).message}` };
  }
}

/**
 * Makes the base group (create() needs it anyway) or checks it is writable.
 * Kept rather than removed again: removing could race another server's create().
 */
function probeWritable(hierarchy: string): void {
  const base = join(hierarchy, BASE);
  if (existsSync(base)) accessSync(base, constants.W_OK);
  else mkdirSync(base);
}

export class Cgroup {
  /** Files a process must write its pid into ("cgroup.procs" of each controller dir, v1; the one dir, v2): a launcher does `echo $$ > file` for each before exec, so every child is inside from its first instruction. */
  readonly procsFiles: string[];

  private constructor(
    private readonly version: CgroupVersion,
    private readonly layout: Layout,
    private readonly limits: CgroupLimits,
  ) {
    this.procsFiles = unique(layout).map((dir) => join(dir, 'cgroup.procs'));
  }

  /** Makes (mkdir) the group `clawd/<name>` in each controller (v1) or in the unified tree (v2, enabling the controllers on the way down), and writes the limits. */
  static create(host: Host, name: string, limits: CgroupLimits, options: { capCpuLater?: boolean; spare?: boolean } = {}): Cgroup {
    checkName(name);
    checkLimits(limits);
    const layout = layoutOf(host, name);
    const made: string[] = [];
    try {
      if (host.version === 2) {
        // A v2 group gets a controller only if every ancestor enabled it for its children.
        enableControllers(host.root);
        mkdirSync(join(host.root, BASE), { recursive: true });
        enableControllers(join(host.root, BASE));
      }
      for (const dir of unique(layout)) {
        mkdirSync(dirname(dir), { recursive: true });
        mkdirSync(dir); // EEXIST is an error: a stale group may still hold another session's processes.
        made.push(dir);
      }
      writeLimits(host.version, layout, limits, !options.capCpuLater, options.spare ?? false);
      // The base group is one entity beside the host's own tasks too: it weighs as the sessions in it.
      writeIfPresent(
        join(dirname(layout.cpu), host.version === 2 ? 'cpu.weight' : 'cpu.shares'),
        String((host.version === 2 ? 100 : 1024) * WEIGHT_THREADS * BASE_WEIGHT_SESSIONS),
      );
    } catch (error) {
      // Nothing runs in them yet; one that will not go is the reaper's, the first error the one to report.
      for (const dir of made.reverse()) removeDir(dir, false);
      throw new Error(`Cannot create cgroup ${name} (v${host.version}, ${host.root}): ${(error as Error).message}`, { cause: error });
    }
    return new Cgroup(host.version, layout, limits);
  }

  /**
   * Applies the CPU cap of a group made with `capCpuLater`: a browser's
   * launch is the server's work, done ahead for a spare, and need not crawl
   * at the session's share; the page it then runs is held to it.
   */
  capCpu(): void {
    writeCpuQuota(this.version, this.layout, cpuQuota(this.limits));
  }

  /** A spare handed over to a session: it weighs as a session from now on (its quota unchanged). */
  inUse(): void {
    writeWeight(this.version, this.layout, WEIGHT_THREADS);
  }

  /** Pids now in the group (read cgroup.procs). */
  pids(): number[] {
    return readPids(unique(this.layout));
  }

  /** How many times the kernel's OOM killer killed a process of this group. 0 when unknown. */
  oomKills(): number {
    const file = this.version === 2 ? 'memory.events' : 'memory.oom_control';
    return keyedValue(join(this.layout.memory, file), 'oom_kill') ?? 0;
  }

  /** CPU time used by the group in microseconds. 0 when unknown. */
  cpuUsageMicros(): number {
    if (this.version === 2) return keyedValue(join(this.layout.cpu, 'cpu.stat'), 'usage_usec') ?? 0;
    return Math.floor(Number(readText(join(this.layout.cpuacct, 'cpuacct.usage'))) / 1000) || 0;
  }

  /** Kills every process left (SIGKILL, repeated until cgroup.procs is empty or 2 s pass) and removes the group's dirs (rmdir only). Safe to call twice. */
  remove(): Promise<void> {
    return removeDirs(unique(this.layout));
  }
}

/** Names of groups under clawd/ (for the reaper). On v1 the union over hierarchies: a crash mid-create leaves a group in only some. */
export function listGroups(host: Host): string[] {
  const hierarchies = host.version === 2 ? [host.root] : unique(v1Hierarchies(host.root));
  const names = hierarchies.flatMap((dir) => {
    const base = join(dir, BASE);
    return existsSync(base) ? readdirSync(base, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [entry.name] : [])) : [];
  });
  return [...new Set(names)].sort();
}

/** Removes one group by name, as Cgroup.remove() does. */
export function removeGroup(host: Host, name: string): Promise<void> {
  checkName(name);
  return removeDirs(unique(layoutOf(host, name)));
}

/** The groups there are under clawd's base, in any controller's tree (the reaper looks for ones nobody owns). */
export function groupNames(host: Host): string[] {
  const bases = host.version === 2 ? [join(host.root, BASE)] : Object.values(v1Hierarchies(host.root)).map((hierarchy) => join(hierarchy, BASE));
  const names = bases.flatMap((base) => {
    try {
      return readdirSync(base, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  });
  return [...new Set(names)].filter((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name));
}

/** The processes in group `name` now, in any controller's tree. */
export function groupPids(host: Host, name: string): number[] {
  checkName(name);
  return readPids(unique(layoutOf(host, name)));
}

function layoutOf(host: Host, name: string): Layout {
  if (host.version === 2) {
    const dir = join(host.root, BASE, name);
    return { memory: dir, cpu: dir, cpuacct: dir, pids: dir };
  }
  const h = v1Hierarchies(host.root);
  return { memory: join(h.memory, BASE, name), cpu: join(h.cpu, BASE, name), cpuacct: join(h.cpuacct, BASE, name), pids: join(h.pids, BASE, name) };
}

/**
 * v1 hierarchy roots with symlinks resolved, so the `cpu` and `cpuacct`
 * links of one `cpu,cpuacct` mount count once. Without a cpuacct entry the
 * usage file, if any, is in the cpu hierarchy.
 */
function v1Hierarchies(root: string): Layout {
  const real = (controller: string) => realpathSync(join(root, controller));
  const cpu = real('cpu');
  return { memory: real('memory'), cpu, cpuacct: existsSync(join(root, 'cpuacct')) ? real('cpuacct') : cpu, pids: real('pids') };
}

function enableControllers(dir: string): void {
  const file = join(dir, 'cgroup.subtree_control');
  // The kernel lists enabled ones bare; a fake tree keeps what we wrote, with "+".
  const enabled = words(readText(file)).map((word) => word.replace(/^\+/, ''));
  const missing = CONTROLLERS.filter((c) => !enabled.includes(c));
  if (missing.length > 0) writeFileSync(file, missing.map((c) => `+${c}`).join(' '));
}

/**
 * Bursts: a session idle before (a spare) may spend up to one more
 * period's quota at once, so a page load's short burst over several
 * processes is not throttled mid-way (kernels with CFS burst); a page busy
 * for longer still averages `cpus`.
 *
 * A group's CPU weight, as this many busy threads of the host weigh. The
 * scheduler weighs a group as one entity against every other task: a
 * browser's four or so busy threads (browser, renderer, network, GPU) at
 * the default weight got the share of one, and a jailed session's first
 * page took twice as long while the server worked beside it. Its quota
 * (`cpus`) still caps it.
 */
const WEIGHT_THREADS = 4;
/**
 * A spare weighs as a quarter of one thread until it is handed over: its
 * launch, and any refill, takes the CPU only when the sessions at work
 * leave it idle, instead of slowing the first page of the session that
 * just took the spare before it. Idle, the machine gives it all it asks.
 */
const SPARE_WEIGHT_THREADS = 0.25;
/** The base group `clawd` weighs as this many sessions' worth of threads (each session's quota still caps it). */
const BASE_WEIGHT_SESSIONS = 4;

function cpuQuota(limits: CgroupLimits): number {
  return Math.max(MIN_QUOTA_US, Math.round(limits.cpus * PERIOD_US));
}

/** The CPU cap (quota per period, and the burst above). */
function writeCpuQuota(version: CgroupVersion, layout: Layout, quota: number): void {
  if (version === 2) {
    writeFileSync(join(layout.cpu, 'cpu.max'), `${quota} ${PERIOD_US}`);
    writeIfPresent(join(layout.cpu, 'cpu.max.burst'), String(quota));
  } else {
    writeFileSync(join(layout.cpu, 'cpu.cfs_quota_us'), String(quota));
    writeIfPresent(join(layout.cpu, 'cpu.cfs_burst_us'), String(quota));
  }
}

/** The group's weight, as this many busy threads of the host weigh (cpu.weight 100, cpu.shares 1024 each). */
function writeWeight(version: CgroupVersion, layout: Layout, threads: number): void {
  if (version === 2) writeIfPresent(join(layout.cpu, 'cpu.weight'), String(Math.max(1, Math.round(100 * threads))));
  else writeIfPresent(join(layout.cpu, 'cpu.shares'), String(Math.max(2, Math.round(1024 * threads))));
}

function writeLimits(version: CgroupVersion, layout: Layout, limits: CgroupLimits, capCpu: boolean, spare: boolean): void {
  const bytes = String(Math.ceil(limits.memoryMiB * MIB));
  const quota = cpuQuota(limits);
  if (version === 2) {
    writeFileSync(join(layout.memory, 'memory.max'), bytes);
    writeIfPresent(join(layout.memory, 'memory.swap.max'), '0');
  } else {
    writeFileSync(join(layout.memory, 'memory.limit_in_bytes'), bytes);
    writeIfPresent(join(layout.memory, 'memory.memsw.limit_in_bytes'), bytes); // memory+swap = memory: no swap.
    writeFileSync(join(layout.cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
  }
  writeWeight(version, layout, spare ? SPARE_WEIGHT_THREADS : WEIGHT_THREADS);
  if (capCpu) writeCpuQuota(version, layout, quota);
  writeFileSync(join(layout.pids, 'pids.max'), String(Math.ceil(limits.pids)));
}

/**
 * The swap limits, absent without swap accounting, and best effort: they
 * tighten the jail, it does not stand on them (memsw may refuse with EINVAL).
 */
function writeIfPresent(file: string, value: string): void {
  try {
    if (existsSync(file)) writeFileSync(file, value);
  } catch {
    // Best effort, as above.
  }
}

/**
 * SIGKILL whatever is in the dirs until none is left, then rmdir them;
 * retried (an exiting task lingers a moment) for up to KILL_WAIT_MS.
 */
async function removeDirs(dirs: string[]): Promise<void> {
  const deadline = Date.now() + KILL_WAIT_MS;
  let left = dirs.filter((dir) => existsSync(dir));
  while (left.length > 0) {
    // Never ourselves, should the server have ended up inside.
    const pids = readPids(left).filter((pid) => pid !== process.pid);
    for (const pid of pids) kill(pid);
    if (pids.length === 0) left = left.filter((dir) => !removeDir(dir));
    if (left.length === 0) return;
    if (Date.now() >= deadline)
      throw new Error(`cgroup ${left.join(', ')} still busy after ${KILL_WAIT_MS} ms${pids.length > 0 ? ` (pids ${pids.join(' ')})` : ''}`);
    await sleep(50);
  }
}

/** True when the dir is gone; false when the kernel still holds it (EBUSY, or child groups). */
function removeDir(dir: string, throwing = true): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') return true;
    if (code === 'ENOTEMPTY' && !onCgroupfs(dir)) {
      // A fake tree (tests): its "control files" are plain files that rmdir will not pass.
      for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) unlinkSync(join(dir, entry.name));
      rmdirSync(dir);
      return true;
    }
    if (code === 'EBUSY' || code === 'ENOTEMPTY' || !throwing) return false;
    throw error;
  }
}

function onCgroupfs(dir: string): boolean {
  return CGROUPFS_MAGICS.has(Number(statfsSync(dir).type));
}

/** One already gone is no error: it may exit between the read and the kill. */
function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if (errno(error) !== 'ESRCH') throw error;
  }
}

function readPids(dirs: string[]): number[] {
  const pids = dirs.flatMap((dir) => words(readText(join(dir, 'cgroup.procs'))).map(Number));
  return [...new Set(pids)].filter(Number.isInteger).sort((a, b) => a - b);
}

/** The number after `key` in a "key value" per line file (memory.events, cpu.stat, memory.oom_control). */
function keyedValue(file: string, key: string): number | undefined {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readText(file));
  return match ? Number(match[1]) : undefined;
}

function checkName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new Error(`Invalid cgroup name ${JSON.stringify(name)}: letters, digits, ".", "_", "-" only`);
}

function checkLimits(limits: CgroupLimits): void {
  for (const field of ['memoryMiB', 'cpus', 'pids'] as const) {
    const value = limits[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new Error(`Invalid cgroup limit ${field}: ${String(value)} (a positive number)`);
  }
}

/** A file's text, or '' when it cannot be read (group gone, controller absent). */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function unique(layout: Layout): string[] {
  return [...new Set(Object.values(layout))];
}

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}
