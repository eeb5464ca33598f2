import { readFileSync } from 'node:fs';

/**
 * The server's file descriptors, as the egress proxies may spend them. Every
 * connection a browser opens through its proxy costs the server two (the
 * browser's side and the site's), and a browser whose code opens raw
 * connections by the thousand (a compromised renderer in a jail) could take
 * them all: then the control API stops answering everyone. So the proxies,
 * all together, may hold only what the process's limit leaves once a
 * reserve is set aside for the server's own work (its API, the relay, the
 * drivers' pipes, files).
 */
export class DescriptorBudget {
  private used = 0;

  constructor(
    /** The process's limit on open files (its soft RLIMIT_NOFILE). */
    readonly limit: number = openFileLimit(),
    /** Kept for the server itself whatever the proxies hold. */
    readonly reserve: number = Math.max(256, Math.floor(limit / 5)),
  ) {}

  /** What the proxies may hold in all. */
  get room(): number {
    return Math.max(0, this.limit - this.reserve);
  }

  /** Takes `count` descriptors if they fit; false (and nothing taken) when they do not. */
  take(count: number): boolean {
    if (this.used + count > this.room) return false;
    this.used += count;
    return true;
  }

  give(count: number): void {
    this.used = Math.max(0, this.used - count);
  }
}

/** The soft limit on open files (Linux: /proc/self/limits); 1024, the common default, where it cannot be read. */
export function openFileLimit(): number {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (soft === 'unlimited') return 1_048_576;
    return soft ? Number(soft) : 1024;
  } catch {
    return 1024;
  }
}

/** The one budget every egress proxy of this process spends. */
export const serverDescriptors = new DescriptorBudget();
