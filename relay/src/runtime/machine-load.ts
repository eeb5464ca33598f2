import { readFileSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';

/**
 * How loaded this machine is, for `GET /pressure` (spec §18): the share of
 * all cores busy over the last moments, and the share of memory in use
 * (Linux: MemAvailable, which counts reclaimable cache as free). A load
 * balancer's health check asks often: a reading younger than MIN_WINDOW_MS
 * is answered again rather than measured over too short a time.
 */

const MIN_WINDOW_MS = 1000;
/** A first reading (or one after a long silence) is measured over this long. */
const FIRST_WINDOW_MS = 250;
const STALE_MS = 30_000;

export interface MachineLoad {
  /** Busy share of all cores, 0..1. */
  cpu: number;
  /** Share of memory in use, 0..1. */
  memory: number;
}

export type PressureState = 'ok' | 'full' | 'cpu' | 'memory';

export interface PressureThresholds {
  cpu: number;
  memory: number;
}

/** The answer to a health check: full first (no session could start), then CPU, then memory; a threshold of 1 is never reached. */
export function pressureState(load: MachineLoad, thresholds: PressureThresholds, slots: { inUse: number; capacity: number }): PressureState {
  if (slots.inUse >= slots.capacity) return 'full';
  if (thresholds.cpu < 1 && load.cpu >= thresholds.cpu) return 'cpu';
  if (thresholds.memory < 1 && load.memory >= thresholds.memory) return 'memory';
  return 'ok';
}

interface CpuSample {
  at: number;
  busy: number;
  total: number;
}

function sampleCpu(): CpuSample {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { at: Date.now(), busy, total };
}

function memoryInUse(): number {
  try {
    const info = readFileSync('/proc/meminfo', 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info)?.[1]);
    const total = field('MemTotal');
    const available = field('MemAvailable');
    if (total > 0 && Number.isFinite(available)) return 1 - available / total;
  } catch {
    // not Linux
  }
  return 1 - freemem() / totalmem();
}

export class MachineLoadGauge {
  private last: CpuSample | undefined;
  private reading: MachineLoad | undefined;

  async read(): Promise<MachineLoad> {
    const now = Date.now();
    if (this.reading && this.last && now - this.last.at < MIN_WINDOW_MS) return this.reading;
    let from = this.last;
    if (!from || now - from.at > STALE_MS) {
      from = sampleCpu();
      await new Promise((resolve) => setTimeout(resolve, FIRST_WINDOW_MS));
    }
    const to = sampleCpu();
    const spent = to.total - from.total;
    this.last = to;
    this.reading = { cpu: spent > 0 ? Math.min(1, Math.max(0, (to.busy - from.busy) / spent)) : 0, memory: memoryInUse() };
    return this.reading;
  }
}
