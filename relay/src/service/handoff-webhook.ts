import { createHmac } from 'node:crypto';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { Handoff } from '../runtime/handoff-desk.js';
import type { AuditTrail } from '../vault/audit-log.js';

/**
 * A waiting hand-off announced where the person is (spec §22): a webhook of
 * their channel (a chat bot, a phone notification service) is posted the
 * reason, the session and the one-time link, signed as Standard Webhooks
 * sign (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64
 * HMAC-SHA256>` over `id.timestamp.body`), so the receiver can check it came
 * from this server with any of that spec's libraries. Delivery runs behind
 * the agent's call, never in it: a receiver that fails is tried again a few
 * times while the hand-off waits. Each delivery is audited, never with the
 * link (it is a credential).
 */

export interface WebhookTarget {
  url: string;
  /** The signing key; its receiver holds it as `whsec_<base64>`. */
  key: Buffer;
}

/** Waits before the second, third and fourth tries. */
const RETRY_AFTER_MS = [1_000, 5_000, 25_000];
/** One try's bound. */
const TRY_TIMEOUT_MS = 10_000;

/** The Standard Webhooks signature of one delivery. */
export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export class HandoffWebhook {
  constructor(
    /** The configured webhook now (config is read at each use), or none. */
    private readonly target: () => WebhookTarget | undefined,
    private readonly audit: AuditTrail,
  ) {}

  /** Whether hand-offs go to a webhook (then agents are never given the link). */
  get configured(): boolean {
    return this.target() !== undefined;
  }

  /** Posts the hand-off behind the caller's back; tries again while `waiting()` says it still waits. */
  announce(handoff: Handoff, link: string, waiting: () => boolean): void {
    const target = this.target();
    if (!target) return;
    const session = handoff.profile.startsWith(SESSION_PROFILE_PREFIX) ? handoff.profile.slice(SESSION_PROFILE_PREFIX.length) : undefined;
    const body = JSON.stringify({
      type: 'handoff.waiting',
      timestamp: new Date().toISOString(),
      data: {
        id: handoff.id,
        reason: handoff.reason,
        profile: handoff.profile,
        ...(session ? { session } : {}),
        targetId: handoff.targetId,
        expiresAt: handoff.expiresAt,
        link,
      },
    });
    const id = `handoff-${handoff.id}`;
    const recorded = (outcome: 'ok' | 'error', detail: string) =>
      this.audit.record({
        event: 'handoff-announce',
        ...(session ? { session } : {}),
        outcome,
        detail: `${handoff.id} to ${new URL(target.url).origin}: ${detail}`,
      });
    const attempt = async (tries: number): Promise<void> => {
      const timestamp = Math.floor(Date.now() / 1000);
      const failed = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(target.key, id, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TRY_TIMEOUT_MS),
      }).then(
        (response) => (response.ok ? undefined : `HTTP ${response.status}`),
        (error: Error) => error.message,
      );
      if (failed === undefined) return recorded('ok', `delivered (try ${tries})`);
      const wait = RETRY_AFTER_MS[tries - 1];
      if (wait === undefined || !waiting()) return recorded('error', `not delivered after ${tries} tries (${failed})`);
      setTimeout(() => void attempt(tries + 1), wait).unref();
    };
    void attempt(1);
  }
}
