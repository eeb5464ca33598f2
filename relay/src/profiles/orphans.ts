import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
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
