import type { z } from 'zod';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { schemas } from '../api/schemas.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import { ConflictError, ForbiddenError, NotFoundError, TooManyError } from '../errors.js';
import { type ConfirmAsk, type Handoff, HandoffDesk, MAX_OPEN_HANDOFFS } from '../runtime/handoff-desk.js';
import type { AuditTrail } from '../vault/audit-log.js';
import type { TabScreencast } from '../driver/film/screencast.js';
import type { HandoffWebhook } from './handoff-webhook.js';
import { withFence } from '../api/page-content.js';
import { ClawdError } from '../errors.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { ActionLog } from '../runtime/action-log.js';
import type { Operations } from './operation-runner.js';

/**
 * Hand-offs for HTTP and MCP alike (spec §15): an agent asks a person to act
 * in a tab and waits for the answer. Opening one answers at once with a
 * one-time link for the person; the answer comes to whoever waits on it
 * (`GET /handoff/{id}?wait=`, or MCP's tool, which waits with progress
 * notifications), with where the tab is now and what changed. The person's
 * input in the live view is in the action log as the person's, and so is
 * their answer; each hand-off's start and end are audited.
 *
 * Hand-offs sit below the confirmations that use them (confirm-service.ts)
 * and know nothing of them: a hand-off may carry what its yes set off
 * (`follow`), which its answer then shows.
 *
 * A hand-off that asks a yes to one act (a confirm rule's: `confirm`) is the
 * one whose answer an agent must not give itself. Its one-time link goes
 * only where the agent is not: the person's own Chrome (a shared tab's, by
 * the extension) and the webhook's channel; the agent's answer carries none,
 * and says where the person is asked (`askedIn`), the operator's console
 * always among them. Its yes is a person's (`by`: the console's login, or a
 * cookie from such a link); an agent's (the token, the in-process API, a
 * cookie from a link an agent was handed) is refused, and so is an agent's
 * input, a click that a rule names, through any hand-off's live view.
 */

/** Whose link it is: the agent's (the answer to whoever opened the hand-off), or a person's channel's. */
export type LinkAudience = 'agent' | 'person';
/** How the person's link is made: by the server, which knows its own address and holds the codes. */
export type LinkMaker = (handoff: Handoff, to: LinkAudience) => string;
/** Who gives an input or an answer: a person (a credential no agent holds), or an agent. */
export type AnsweredBy = 'person' | 'agent';

/** A hand-off on the extension profile, for the person at that Chrome: `link` (a code of its own) while it waits, none once it ended. */
export interface HandoffNoticeEvent {
  id: string;
  targetId: string;
  reason: string;
  link?: string;
}

/** What hand-offs need: to act on a tab (the operation runner), its driver, and the action log (the person's answer and input are theirs). */
export interface HandoffPorts {
  operations: Operations;
  drivers: Pick<ProfileManager, 'driver'>;
  actionLog: Pick<ActionLog, 'record' | 'recent'>;
}

export class HandoffService {
  readonly desk: HandoffDesk;
  private readonly extensionListeners: Array<(notice: HandoffNoticeEvent) => void> = [];
  /** What a hand-off's yes set off (a confirmed act's answer), by hand-off: shown once it ended. */
  private readonly outcomes = new Map<string, Promise<object>>();

  constructor(
    private readonly ports: HandoffPorts,
    audit: AuditTrail,
    /** Where waiting hand-offs are announced, when config names a webhook (handoff-webhook.ts). */
    private readonly webhook?: HandoffWebhook,
  ) {
    this.desk = new HandoffDesk((handoff) => {
      const session = handoff.profile.startsWith(SESSION_PROFILE_PREFIX) ? handoff.profile.slice(SESSION_PROFILE_PREFIX.length) : undefined;
      audit.record({
        event: handoff.state === 'waiting' ? 'handoff-open' : 'handoff-end',
        ...(session ? { session } : {}),
        outcome: handoff.state === 'waiting' || handoff.state === 'done' ? 'ok' : 'refused',
        detail: handoff.state === 'waiting' ? `${handoff.id} on ${handoff.profile}: ${handoff.reason}` : `${handoff.id}: ${handoff.state}`,
      });
      if (handoff.state !== 'waiting' && handoff.profile === 'extension')
        this.tellExtension({ id: handoff.id, targetId: handoff.targetId, reason: handoff.reason });
    });
    // A task session that ends takes its waiting hand-offs with it: nobody can answer for a browser that is gone.
    audit.subscribe((entry) => {
      if (entry.event === 'session-stop' && entry.session) this.desk.endAllOf(`${SESSION_PROFILE_PREFIX}${entry.session}`);
    });
  }

  /** Hears hand-offs of shared tabs: the person is at that Chrome (its badge and a notification tell them). */
  onExtensionHandoff(listener: (notice: HandoffNoticeEvent) => void): void {
    this.extensionListeners.push(listener);
  }

  private tellExtension(notice: HandoffNoticeEvent): void {
    for (const listener of this.extensionListeners) listener(notice);
  }

  /** `confirm`: a hand-off asking a person's yes to one act (confirm-service.ts). */
  async open(
    profile: string | undefined,
    request: z.output<typeof schemas.handoff>,
    link: LinkMaker,
    signal?: AbortSignal,
    confirm?: ConfirmAsk,
  ): Promise<HandoffAnswer> {
    if (this.desk.openCount >= MAX_OPEN_HANDOFFS)
      throw new TooManyError(`${MAX_OPEN_HANDOFFS} hand-offs already wait for a person: answer or cancel some first`);
    return this.ports.operations.operation(profile, { kind: 'handoff', targetId: request.targetId }, signal, async (driver) => {
      const tab = await driver.tabFor(request.targetId);
      const before = { url: tab.page.url(), title: await tab.page.title().catch(() => '') };
      const handoff = this.desk.open({
        profile: driver.profile.name,
        targetId: await tab.targetId(),
        reason: request.reason,
        timeoutMs: request.timeoutSec * 1000,
        before,
        confirm,
      });
      // The person at a shared tab's Chrome gets a link of their own (each link works once).
      if (handoff.profile === 'extension')
        this.tellExtension({ id: handoff.id, targetId: handoff.targetId, reason: handoff.reason, link: link(handoff, 'person') });
      // With a webhook, the link goes to the person's channel only: the agent gets the handle, never a link it could open itself.
      if (this.webhook?.configured) this.webhook.announce(handoff, link(handoff, 'person'), () => this.desk.get(handoff.id)?.state === 'waiting');
      const described = await this.describe(handoff);
      // A yes to an act: no link for the agent, whoever it says it shows it to; the person is asked where they are.
      if (confirm)
        return {
          ...described,
          askedIn: [
            'console' as const,
            ...(handoff.profile === 'extension' ? ['extension' as const] : []),
            ...(this.webhook?.configured ? ['webhook' as const] : []),
          ],
        };
      if (this.webhook?.configured) return { ...described, announced: 'webhook' as const };
      return { ...described, link: link(handoff, 'agent') };
    });
  }

  /** The hand-off as it is, or (with `waitSec`) once it ends or that long passes. */
  async state(profile: string | undefined, id: string, waitSec: number, signal?: AbortSignal): Promise<HandoffAnswer> {
    this.find(profile, id);
    const described = await this.describe((await this.desk.wait(id, waitSec * 1000, signal))!);
    // A confirmation the person said yes to carries the act's answer, once it ran.
    return { ...described, ...(await this.outcomeOf(described)) };
  }

  /** Keeps what hand-off `id`'s yes sets off, for its answer to show (confirm-service.ts: the act run on a yes). */
  follow(id: string, outcome: Promise<object>): void {
    // Nobody may be waiting on it (an HTTP caller that went): its failure is the hand-off's to tell.
    outcome.catch(() => {});
    for (const kept of this.outcomes.keys()) if (!this.desk.get(kept)) this.outcomes.delete(kept);
    this.outcomes.set(id, outcome);
  }

  /** A hand-off that ended carries what its yes set off, or why that failed. */
  private async outcomeOf(handoff: HandoffAnswer): Promise<Pick<HandoffAnswer, 'act' | 'actError'>> {
    const outcome = this.outcomes.get(handoff.id);
    if (!outcome || handoff.state === 'waiting') return {};
    try {
      return { act: (await outcome) as Record<string, unknown> };
    } catch (error) {
      return { actError: { code: error instanceof ClawdError ? error.code : 'internal', message: (error as Error).message } };
    }
  }

  /** Opens a hand-off and waits for its end (MCP's tool, the typed client's handoff()); the caller's abort cancels it. */
  async openAndWait(
    profile: string | undefined,
    request: z.output<typeof schemas.handoff>,
    link: LinkMaker,
    signal?: AbortSignal,
    onWaiting?: (handoff: HandoffAnswer) => void,
  ): Promise<HandoffAnswer> {
    const opened = await this.open(profile, request, link, signal);
    onWaiting?.(opened);
    const abandoned = () => this.desk.end(opened.id, 'cancelled', 'the agent stopped waiting');
    signal?.addEventListener('abort', abandoned, { once: true });
    try {
      return await this.state(profile, opened.id, request.timeoutSec + 1, signal);
    } finally {
      signal?.removeEventListener('abort', abandoned);
    }
  }

  async cancel(profile: string | undefined, id: string): Promise<HandoffAnswer> {
    this.find(profile, id);
    return this.describe(this.desk.end(id, 'cancelled', 'the agent cancelled it')!);
  }

  /** The person's answer (from the hand-off's page): logged as theirs. A yes to an act is a person's only (`by`). */
  async answer(id: string, answer: z.output<typeof schemas.handoffAnswer>, by: AnsweredBy): Promise<HandoffAnswer> {
    const handoff = this.find(undefined, id);
    if (handoff.state !== 'waiting') throw new ConflictError(`This hand-off is over (${handoff.state}): nothing waits for an answer`);
    if (handoff.confirm && answer.verdict === 'done' && by !== 'person')
      throw new ForbiddenError(
        `A yes to an act a confirm rule names (${handoff.confirm.rule}) is a person's: it is said in the operator's console, in the person's own Chrome or through the webhook's link, never with a credential an agent holds (the token, a session's key, a link handed to an agent). The token's holder may pre-approve the rule for a task session instead (POST /sessions/{id}/approvals)`,
      );
    const ended = this.desk.end(id, answer.verdict, answer.note)!;
    this.ports.actionLog.record({
      time: new Date().toISOString(),
      profile: ended.profile,
      targetId: ended.targetId,
      kind: `handoff-${answer.verdict}`,
      durationMs: Date.parse(ended.endedAt!) - Date.parse(ended.createdAt),
      outcome: 'ok',
      actor: by,
    });
    return this.describe(ended);
  }

  /** The live view of a waiting hand-off's tab (its page's picture). */
  async liveView(id: string): Promise<TabScreencast> {
    const handoff = this.waiting(id);
    return (await this.ports.drivers.driver(handoff.profile).screencast(handoff.targetId)).cast;
  }

  /** A hand-off that still waits for the person; a 409 once it ended (nothing of its tab is the person's any more). */
  waiting(id: string): Handoff {
    const handoff = this.find(undefined, id);
    if (handoff.state !== 'waiting') throw new ConflictError(`This hand-off is over (${handoff.state}): its tab is no longer yours to use`);
    return handoff;
  }

  list(): { handoffs: HandoffAnswer[] } {
    return { handoffs: this.desk.list().map(({ before: _before, ...shown }) => shown) };
  }

  /** A hand-off by id; a caller scoped to a profile (a session's key) finds only its own. */
  find(profile: string | undefined, id: string): Handoff {
    const handoff = this.desk.get(id);
    if (!handoff || (profile !== undefined && handoff.profile !== profile)) throw new NotFoundError(`No hand-off ${id}${profile ? ` on ${profile}` : ''}`);
    return handoff;
  }

  /** Once ended: where the tab is now, and what changed while the person had it. */
  private async describe(handoff: Handoff): Promise<HandoffAnswer> {
    const { before: _before, ...shown } = handoff;
    if (handoff.state === 'waiting') return shown;
    // The tab, if it is still there: its session may have ended (the driver is gone) or the tab closed.
    const tab = await Promise.resolve()
      .then(() => this.ports.drivers.driver(handoff.profile).tabFor(handoff.targetId))
      .catch(() => undefined);
    const now = tab ? { url: tab.page.url(), title: await tab.page.title().catch(() => '') } : { url: '', title: '(the tab is closed)' };
    const ended = handoff.endedAt ?? new Date().toISOString();
    const personActions = this.ports.actionLog
      .recent({ profile: handoff.profile, limit: 1000 })
      .filter(
        (action) =>
          action.actor === 'person' &&
          action.targetId === handoff.targetId &&
          action.time >= handoff.createdAt &&
          action.time <= ended &&
          action.kind.startsWith('view-'),
      ).length;
    // Where the tab is now is in the page's words: the answer carries its fence.
    return withFence({
      ...shown,
      now,
      changed: { navigated: now.url !== handoff.before.url, titleChanged: now.title !== handoff.before.title, personActions },
    });
  }
}
