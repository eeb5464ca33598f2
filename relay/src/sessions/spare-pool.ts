import type { SpareCounts } from '../api/session-responses.js';

/**
 * Browsers started ahead of need for task sessions (config sessionSpares):
 * topped up one at a time, so that a refill never crowds a session's first
 * page, and handed out at most once each. What a spare is, how it is made
 * and thrown away, is the caller's (task-sessions.ts).
 */
export class SparePool<T> {
  private readonly spares: Array<{ prepared: Promise<T>; ready: boolean }> = [];
  private refilling = false;
  private closed = false;
  /** After a failed launch, the pause before the next try: doubled each time it fails again, up to a minute. */
  private pauseMs = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      /** How many to keep, read at each top-up (config edits apply). */
      wanted: () => number;
      make: () => Promise<T>;
      /** Whether a ready spare can still be used (its browser may have gone meanwhile). */
      usable: (spare: T) => boolean;
      discard: (spare: T) => Promise<void>;
      onFailure: (error: Error) => void;
    },
  ) {}

  counts(): SpareCounts {
    const ready = this.spares.filter((spare) => spare.ready).length;
    return { ready, starting: this.spares.length - ready, wanted: this.options.wanted() };
  }

  /** Starts one more spare if the pool is short and none is starting; each that gets ready starts the next. */
  refill(): void {
    if (this.refilling || this.closed || this.spares.length >= this.options.wanted()) return;
    this.refilling = true;
    const spare = { prepared: this.options.make(), ready: false };
    this.spares.push(spare);
    spare.prepared
      .then(
        () => (spare.ready = true),
        (error: Error) => {
          this.options.onFailure(error);
          const index = this.spares.indexOf(spare);
          if (index >= 0) this.spares.splice(index, 1);
        },
      )
      .finally(() => {
        this.refilling = false;
        if (spare.ready) {
          this.pauseMs = 0;
          this.refill();
          return;
        }
        // A failed launch (a browser closed as it started, under load) is tried again after a pause, not at
        // once and not only when the next session comes: that session would otherwise start cold.
        this.pauseMs = Math.min(Math.max(this.pauseMs * 2, 2_000), 60_000);
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.refill(), this.pauseMs);
        this.retry.unref?.();
      });
  }

  /** A ready spare, else the one on its way (further along than a cold start), else none. */
  async take(): Promise<T | undefined> {
    const ready = this.spares.findIndex((spare) => spare.ready);
    const [spare] = this.spares.splice(ready >= 0 ? ready : 0, 1);
    if (!spare) return undefined;
    const prepared = await spare.prepared.catch(() => undefined);
    if (prepared !== undefined && !this.options.usable(prepared)) {
      await this.options.discard(prepared);
      return undefined;
    }
    return prepared;
  }

  /** No more spares; those there are (and on their way) are discarded. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const spares = this.spares.splice(0);
    await Promise.all(spares.map((spare) => spare.prepared.then((prepared) => this.options.discard(prepared)).catch(() => {})));
  }
}
