import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { processRunning } from '../config/platform.js';

/**
 * Finding and ending browser processes left behind by a crashed server, so
 * `reset-profile` can delete a profile nothing holds any more. Linux answers
 * from /proc; elsewhere only the process list (via ps) is available.
 */

export interface ProcessInfo {
  pid: number;
  /** The command line: NUL-separated when read from /proc, space-separated from ps. */
  args: string;
}

/** Pids of processes launched with `--user-data-dir=<userDataDir>`, this process excluded. */
export function findProfileProcesses(userDataDir: string, listProcesses: () => ProcessInfo[] = defaultListProcesses): number[] {
  const wanted = `--user-data-dir=${userDataDir}`;
  return listProcesses()
    .filter(({ pid, args }) => pid !== process.pid && hasArgument(args, wanted))
    .map(({ pid }) => pid);
}

/**
 * Whole-argument match, so `/a/b` does not match `/a/b2`. Real argv (NUL-
 * separated) is exact; a single string (ps, or a Chrome child that rewrote
 * its title) only has spaces as boundaries.
 */
function hasArgument(args: string, wanted: string): boolean {
  const argv = args.split('\0').filter(Boolean);
  if (argv.length > 1) return argv.includes(wanted);
  return ` ${argv[0] ?? ''} `.includes(` ${wanted} `);
}

function defaultListProcesses(): ProcessInfo[] {
  if (process.platform === 'linux') return listFromProc();
  if (process.platform === 'win32') return []; // No ps; reset-profile can only report the lock there.
  const output = execFileSync('ps', ['-axo', 'pid=,command='], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return output.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), args: match[2] }] : [];
  });
}

function listFromProc(): ProcessInfo[] {
  return procPids().flatMap((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return args ? [{ pid, args }] : []; // Kernel threads have an empty command line.
    } catch {
      return []; // Exited while we were looking.
    }
  });
}

function procPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/**
 * The pid listening on TCP `port` on loopback or any address (what blocks us
 * binding 127.0.0.1:port), or undefined. Linux only; only processes of the
 * same user (or all, as root) can be seen.
 */
export function findPortHolder(port: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = new Set([...listeningInodes('/proc/net/tcp', port), ...listeningInodes('/proc/net/tcp6', port)]);
  if (inodes.size === 0) return undefined;
  for (const pid of procPids()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // Another user's process, or gone.
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match && inodes.has(match[1])) return pid;
      } catch {
        // The fd closed between readdir and readlink.
      }
    }
  }
  return undefined;
}

const TCP_LISTEN = '0A';

/** Socket inodes from /proc/net/tcp{,6} rows: `sl local_address rem_address st ... uid timeout inode`. */
function listeningInodes(table: string, port: number): string[] {
  let text: string;
  try {
    text = readFileSync(table, 'utf8');
  } catch {
    return []; // No IPv6 in this kernel.
  }
  return text
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 9 && fields[3] === TCP_LISTEN)
    .filter((fields) => {
      const [address, hexPort] = fields[1].split(':');
      return Number.parseInt(hexPort, 16) === port && blocksLoopback(address);
    })
    .map((fields) => fields[9]);
}

/** True for 127.x.x.x, 0.0.0.0, ::, ::1 and ::ffff:127.x.x.x: the addresses a 127.0.0.1 bind collides with. */
function blocksLoopback(hexAddress: string): boolean {
  // The kernel prints each 32-bit word of the address in host (little-endian) order.
  const bytes = [...Buffer.concat((hexAddress.match(/.{8}/g) ?? []).map((word) => Buffer.from(word, 'hex').reverse()))];
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const ipv4 = (from: number) => bytes[from] === 127 || zero(from, from + 4);
  if (bytes.length === 4) return ipv4(0);
  if (!zero(0, 10)) return false;
  if (bytes[10] === 0xff && bytes[11] === 0xff) return ipv4(12);
  return zero(10, 15) && bytes[15] <= 1;
}

/**
 * SIGTERM (Chrome shuts down cleanly on it), then SIGKILL whatever is still
 * there after `graceMs`. Returns the pids that were running and are now gone.
 */
export async function killProcesses(pids: number[], graceMs = 3000): Promise<number[]> {
  const signalled = pids.filter((pid) => signal(pid, 'SIGTERM'));
  let alive = await waitForExit(signalled, graceMs);
  if (alive.length > 0) {
    for (const pid of alive) signal(pid, 'SIGKILL');
    alive = await waitForExit(alive, 1000);
  }
  return signalled.filter((pid) => !alive.includes(pid));
}

/** False when the process was already gone; other errors (EPERM: not ours) are real. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

async function waitForExit(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(processRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter(processRunning);
  }
  return alive;
}
