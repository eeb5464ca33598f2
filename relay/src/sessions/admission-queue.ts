import { TooManyError } from '../errors.js';

/**
 * Admission for task sessions (spec §18): at most `capacity` hold a slot;
 * beyond it a request waits in a bounded queue, first come first served,
 * until a slot frees or its wait runs out. A full queue, or a wait run out,
 * is a 429 with the seconds after which to ask again (Retry-After). A caller
 * that goes leaves the queue. Limits are read at each request, so config
 * edits apply at once.
 */

export interface AdmissionLimits {
  /** Slots: sessions open at once (config maxSessions). */
  capacity: number;
  /** Requests that may wait for a slot (config sessionQueue.max); 0: none waits. */
  queue: number;
  /** How long one waits at most (config sessionQueue.waitSeconds). */
  waitMs: number;
}

/** A held slot: released once (by the session's end, or its failed start). */
export interface Slot {
  release(): void;
}

interface Waiter {
  admit(slot: Slot): void;
  refuse(error: Error): void;
}

export class AdmissionQueue {
  private held = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly limits: () => AdmissionLimits,
    /** When a slot is likely to free (seconds): said in Retry-After. */
    private readonly retryAfterSeconds: () => number,
  ) {}

  /** Slots held now. */
  get inUse(): number {
    return this.held;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A slot now, or once one frees within the wait; a 429 when the queue is full or the wait runs out. */
  enter(signal?: AbortSignal): Promise<Slot> {
    signal?.throwIfAborted();
    const { capacity, queue, waitMs } = this.limits();
    if (this.held < capacity && !this.waiters.length) return Promise.resolve(this.take());
    if (this.waiters.length >= queue)
      return Promise.reject(
        this.refusal(
          `${this.held} task sessions are open, the most allowed (config maxSessions: ${capacity}), and ${this.waiters.length} wait already (config sessionQueue.max: ${queue})`,
        ),
      );
    return new Promise<Slot>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        admit: (slot) => {
          leave();
          resolve(slot);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = setTimeout(
        () =>
          waiter.refuse(
            this.refusal(
              `No task session slot freed in ${waitMs / 1000} s (config sessionQueue.waitSeconds); ${this.held} are open, the most allowed (config maxSessions: ${capacity})`,
            ),
          ),
        waitMs,
      );
      const onAbort = () => waiter.refuse(signal!.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** A slot now, even beyond capacity: for a session that exists already (taken over from a lost server). */
  takeNow(): Slot {
    return this.take();
  }

  private take(): Slot {
    this.held++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        this.admitNext();
      },
    };
  }

  /** The first waiter gets a freed slot, while slots are free (capacity may have grown). */
  private admitNext(): void {
    while (this.waiters.length && this.held < this.limits().capacity) this.waiters[0].admit(this.take());
  }

  private refusal(why: string): TooManyError {
    const retryAfterSeconds = Math.max(1, Math.ceil(this.retryAfterSeconds()));
    return new TooManyError(`${why}: ask again in ${retryAfterSeconds} s, or close a session`, { retryAfterSeconds });
  }
}
