import type { Logger } from '../log.js';

/**
 * When each profile's browser was last used, and how many CDP clients hold
 * it now, so that a managed browser nobody uses is stopped (config
 * idleStopMinutes) instead of running for ever after its agent left. Used
 * means: a control request or MCP call on the profile (ProfileManager.driver),
 * or a CDP client connected to it (its driver's own connection aside). What
 * a person does by hand in a headed window is not seen here.
 */

/** A running browser that may be stopped. */
export interface IdleCandidate {
  name: string;
  stop(): Promise<void>;
}

export class IdleBrowsers {
  private readonly lastUsed = new Map<string, number>();
  private readonly clients = new Map<string, number>();
  /** The last time anything at all used this server's browsers. */
  private lastAny = Date.now();

  constructor(private readonly log: Logger) {}

  touch(name: string): void {
    this.lastAny = Date.now();
    this.lastUsed.set(name, this.lastAny);
  }

  /** A CDP client joined a profile's browser; returns what to call when it leaves. */
  clientJoined(name: string): () => void {
    this.clients.set(name, (this.clients.get(name) ?? 0) + 1);
    this.touch(name);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.clients.set(name, (this.clients.get(name) ?? 1) - 1);
      this.touch(name);
    };
  }

  /** CDP clients (not drivers) connected to any browser now. */
  get clientCount(): number {
    let count = 0;
    for (const each of this.clients.values()) count += each;
    return count;
  }

  /** Milliseconds since anything used a browser or held one. */
  idleForMs(now = Date.now()): number {
    return this.clientCount > 0 ? 0 : now - this.lastAny;
  }

  /** Stops each of the running browsers unused for `idleMs` with no client: the ones stopped. */
  async sweep(candidates: IdleCandidate[], idleMs: number, now = Date.now()): Promise<string[]> {
    const stopped: string[] = [];
    for (const candidate of candidates) {
      if ((this.clients.get(candidate.name) ?? 0) > 0) continue;
      const since = this.lastUsed.get(candidate.name);
      // A browser started before anything touched it here (at this server's start) counts from now.
      if (since === undefined) {
        this.lastUsed.set(candidate.name, now);
        continue;
      }
      if (now - since < idleMs) continue;
      this.log.info(`stopping the ${candidate.name} browser: unused for ${describeSpan(now - since)} (config idleStopMinutes)`);
      await candidate.stop().catch((error: Error) => this.log.warn(`could not stop the idle ${candidate.name} browser: ${error.message}`));
      this.lastUsed.delete(candidate.name);
      stopped.push(candidate.name);
    }
    return stopped;
  }
}

/** "40 s", "15 min". */
export function describeSpan(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
