import { readdirSync, readFileSync } from 'node:fs';

/** A process as /proc tells it: enough to pick the ones a figure is about. */
export interface ProcessInfo {
  pid: number;
  /** Its process group. */
  pgid: number;
  /** argv, joined by spaces. */
  cmdline: string;
}

/**
 * Proportional set size (kB) of the processes `select` picks: what they
 * cost together, shared pages split between their users (so a browser's
 * helpers are not counted once each for the same libraries).
 */
export function pssKb(select: (process: ProcessInfo) => boolean): number {
  let total = 0;
  eachProcess((process) => {
    if (!select(process)) return;
    const rollup = readFileSync(`/proc/${process.pid}/smaps_rollup`, 'utf8');
    total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  });
  return total;
}

/** CPU time (clock ticks, user + system) of every process now, by pid, with its argv. */
export function cpuTicks(): Map<number, { ticks: number; cmdline: string }> {
  const ticks = new Map<number, { ticks: number; cmdline: string }>();
  eachProcess(({ pid, cmdline, stat }) => ticks.set(pid, { ticks: stat.utime + stat.stime, cmdline }));
  return ticks;
}

/**
 * Calls `visit` for every process in /proc, with what its stat and cmdline
 * say; one that ends while being read (here or in `visit`) is passed over.
 */
function eachProcess(visit: (process: ProcessInfo & { stat: { utime: number; stime: number } }) => void): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const line = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name: state ppid pgrp …; utime and stime are the 14th and
      // 15th fields of the whole line (11th and 12th after the command).
      const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      visit({ pid: Number(entry), pgid: Number(fields[2]), cmdline, stat: { utime: Number(fields[11]), stime: Number(fields[12]) } });
    } catch {
      // The process ended while being read.
    }
  }
}

/**
 * Where CPU went between two cpuTicks() readings, as shares of one core,
 * grouped by `name` (processes it names undefined are left out).
 */
export function cpuShares(
  before: ReturnType<typeof cpuTicks>,
  after: ReturnType<typeof cpuTicks>,
  seconds: number,
  name: (cmdline: string, pid: number) => string | undefined,
): Record<string, number> {
  const hz = 100; // USER_HZ on Linux
  const shares: Record<string, number> = {};
  for (const [pid, { ticks, cmdline }] of after) {
    const group = name(cmdline, pid);
    if (!group) continue;
    const spent = ticks - (before.get(pid)?.ticks ?? 0);
    shares[group] = (shares[group] ?? 0) + spent / hz / seconds;
  }
  return shares;
}
