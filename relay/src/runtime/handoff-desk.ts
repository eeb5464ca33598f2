import { randomBytes } from 'node:crypto';

/**
 * Hand-offs waiting for a person (spec §15): an agent asks a person to act
 * in a tab (a login, 2FA, a CAPTCHA, a confirmation) and waits for the
 * answer. The desk holds each hand-off's state and wakes whoever waits on
 * it: the person answers (done, or can't, with a note), the agent cancels,
 * or its time runs out. It knows nothing of browsers: the service around it
 * says where the tab is before and after.
 */

export type HandoffState = 'waiting' | 'done' | 'refused' | 'timeout' | 'cancelled';

/** A hand-off that asks a person's yes to one act a rule names (service/confirm-service.ts): done is yes, refused is no. */
export interface ConfirmAsk {
  rule: string;
  /** The act, as the person reads it: `click button "Pay"`. */
  act: string;
  /** Where its target is, as fractions of the viewport (drawn over the live view). */
  box?: { x: number; y: number; width: number; height: number };
}

export interface Handoff {
  id: string;
  profile: string;
  targetId: string;
  reason: string;
  state: HandoffState;
  createdAt: string;
  expiresAt: string;
  /** When it stopped waiting. */
  endedAt?: string;
  /** The person's note (with "can't", mostly). */
  note?: string;
  /** Where the tab was when the agent asked. */
  before: { url: string; title: string };
  /** Set when it asks a yes to one act. */
  confirm?: ConfirmAsk;
}

/** Answered hand-offs are kept this long, for an agent that asks again after its wait ended. */
const KEEP_ENDED_MS = 10 * 60_000;
/** At most this many open at once: an agent in a loop cannot fill the console. */
export const MAX_OPEN_HANDOFFS = 32;

export class HandoffDesk {
  private readonly handoffs = new Map<string, { handoff: Handoff; timer: NodeJS.Timeout; waiters: Set<() => void> }>();

  constructor(private readonly onChange: (handoff: Handoff) => void = () => {}) {}

  /** Opens one; it times out by itself after `timeoutMs`. */
  open(request: {
    profile: string;
    targetId: string;
    reason: string;
    timeoutMs: number;
    before: { url: string; title: string };
    confirm?: ConfirmAsk;
  }): Handoff {
    this.sweep();
    const id = randomBytes(8).toString('hex');
    const now = Date.now();
    const handoff: Handoff = {
      id,
      profile: request.profile,
      targetId: request.targetId,
      reason: request.reason,
      state: 'waiting',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + request.timeoutMs).toISOString(),
      before: request.before,
      ...(request.confirm ? { confirm: request.confirm } : {}),
    };
    const timer = setTimeout(() => this.end(id, 'timeout'), request.timeoutMs);
    timer.unref();
    this.handoffs.set(id, { handoff, timer, waiters: new Set() });
    this.onChange(handoff);
    return { ...handoff };
  }

  /** How many wait for a person now. */
  get openCount(): number {
    return this.list().length;
  }

  get(id: string): Handoff | undefined {
    const held = this.handoffs.get(id);
    return held && { ...held.handoff };
  }

  /** Those still waiting, oldest first. */
  list(): Handoff[] {
    return [...this.handoffs.values()].map(({ handoff }) => ({ ...handoff })).filter((handoff) => handoff.state === 'waiting');
  }

  /**
   * Ends a waiting hand-off (the person's answer, the agent's cancel, the
   * deadline); a hand-off already ended keeps its first end. Answers it as it is now.
   */
  end(id: string, state: Exclude<HandoffState, 'waiting'>, note?: string): Handoff | undefined {
    const held = this.handoffs.get(id);
    if (!held) return undefined;
    if (held.handoff.state === 'waiting') {
      clearTimeout(held.timer);
      held.handoff.state = state;
      held.handoff.endedAt = new Date().toISOString();
      if (note) held.handoff.note = note;
      for (const wake of held.waiters) wake();
      held.waiters.clear();
      this.onChange({ ...held.handoff });
    }
    return { ...held.handoff };
  }

  /** Resolves when the hand-off ends, or after `maxMs`, or when `signal` aborts; answers it as it is then. */
  async wait(id: string, maxMs: number, signal?: AbortSignal): Promise<Handoff | undefined> {
    const held = this.handoffs.get(id);
    if (!held || held.handoff.state !== 'waiting' || maxMs <= 0) return this.get(id);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        held.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      signal?.addEventListener('abort', done, { once: true });
      held.waiters.add(done);
    });
    return this.get(id);
  }

  /** Cancels every waiting hand-off of a profile (its task session ended). */
  endAllOf(profile: string): void {
    for (const { handoff } of this.handoffs.values())
      if (handoff.profile === profile && handoff.state === 'waiting') this.end(handoff.id, 'cancelled', 'the session ended');
  }

  private sweep(): void {
    const cutoff = Date.now() - KEEP_ENDED_MS;
    for (const [id, { handoff }] of this.handoffs) if (handoff.endedAt && Date.parse(handoff.endedAt) < cutoff) this.handoffs.delete(id);
  }
}
