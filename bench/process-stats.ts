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
