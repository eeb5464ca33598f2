import { readFileSync } from 'node:fs';

/** The operating systems whose Chrome paths and native-host locations we know. */
export type Platform = 'linux' | 'darwin' | 'win32';

/** This machine's platform; anything else Unix-like is treated as Linux (same paths, same manifests). */
export function currentPlatform(): Platform {
  return process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
}

/**
 * Whether a process lives: signal 0 tests for it without touching it, and
 * EPERM means it exists but is another user's. A zombie still answers signal
 * 0 but holds nothing (no profile, no port): its parent has not reaped it yet.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** A process's command line where the system shows it (/proc on Linux); undefined elsewhere, or when it is gone. */
export function processArgs(pid: number): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/<pid>/stat is "pid (comm) state ...", and comm may contain spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
