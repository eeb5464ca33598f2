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
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (!select({ pid: Number(entry), pgid: Number(fields[2]), cmdline })) continue;
      const rollup = readFileSync(`/proc/${entry}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // The process ended while being read.
    }
  }
  return total;
}

/** CPU time (clock ticks, user + system) of every process now, by pid, with its argv. */
export function cpuTicks(): Map<number, { ticks: number; cmdline: string }> {
  const ticks = new Map<number, { ticks: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are the 14th and 15th fields of the whole line (11th and 12th after the command).
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      ticks.set(Number(entry), { ticks: Number(fields[11]) + Number(fields[12]), cmdline });
    } catch {
      // The process ended while being read.
    }
  }
  return ticks;
}

/**
 * Where CPU went between two cpuTicks() readings, as shares of one core,
 * grouped by `name` (processes it names undefined are left out).
 */
export function cpuShares(before: ReturnType<typeof cpuTicks>, after: ReturnType<typeof cpuTicks>, seconds: number, name: (cmdline: string, pid: number) => string | undefined): Record<string, number> {
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
