import type { ActOptions, Confirmation } from '../api/browser-api.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { ActionResult } from '../api/responses.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { type ConfirmRule, type Consequence, describeRule, matchDownload } from '../runtime/consequential-acts.js';
import type { AuditTrail } from '../vault/audit-log.js';
import { withFence } from '../api/page-content.js';
import type { Act, Perform, PerformOptions } from './act-performer.js';
import type { HandoffService, LinkMaker } from './handoff-service.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { consequenceAt, consequenceOf } from '../driver/acts/act-consequence.js';
import type { DriverTab } from '../driver/driver-tab.js';
import { AskFirst } from '../driver/screen/computer-use.js';
type Point = { x: number; y: number };
/** Asked before a press of a computer-use batch or the live view: throws to stop it there, or to pause it for a yes. */
type PressGate = (tab: DriverTab, at: Point | 'focused' | 'focused-space') => Promise<void>;
/** Why a computer-use batch paused: the press a rule names, and the viewport its target's box is in. */
export interface BatchPause {
  consequence: Consequence;
  viewport?: { width: number; height: number };
}

/**
 * A consequential act waits for a yes (spec §20). Before an act runs, the
 * driver says what it would set off (driver/acts/act-consequence.ts); when one of
 * config's `confirm` rules names it:
 * - a rule the token's holder pre-approved for this task session lets it run;
 * - with a person reachable (the person's own Chrome, a webhook to their
 *   channel, the operator's console open, or a caller that says a person is
 *   at hand), it becomes a hand-off that shows the act and its target, and
 *   runs on their yes (done), never on no;
 * - with nobody to ask, it is refused: a 409 naming the rule.
 * The yes must come from where the agent is not: the hand-off's link goes
 * only to the person's Chrome or the webhook's channel, the agent is told
 * where the person is asked (the console always among them), and a yes with
 * a credential an agent holds is refused (handoff-service.ts). Every ask,
 * yes, no and pre-approval is audited. A session's own key never reaches
 * the pre-approval (its route is the main token's).
 */

/** What confirmations need: the rules, the act itself, the hand-offs that ask, and whether anyone can be asked. */
export interface ConfirmPorts {
  config: () => Pick<ReturnType<ProfileManager['registry']['config']>, 'confirm' | 'handoffWebhook'>;
  drivers: Pick<ProfileManager, 'driver'>;
  /** The act once it may run (act-performer.ts). */
  perform: Perform;
  handoffs: Pick<HandoffService, 'open' | 'follow' | 'desk'>;
  /** The person's one-time link to a hand-off (the server makes it). */
  link: () => LinkMaker;
  /** Whether this server holds task session `id` (a pre-approval is for one of its sessions). */
  sessionsHave: (id: string) => boolean;
  /** Whether the operator's console is open (an event stream of the server's is). */
  consoleOpen: () => boolean;
}

/** The kinds that can act on a control or send a form (act-consequence.ts): the rest run without a look. */
const JUDGED = new Set(['click', 'mousedown', 'press', 'type']);

/** Who let an act a rule names run. */
type Confirmed = NonNullable<ActionResult['confirmed']>;

export class ConfirmService {
  /** Rules pre-approved per task session's profile, by the token's holder. */
  private readonly approvals = new Map<string, Set<string>>();

  constructor(
    private readonly ports: ConfirmPorts,
    private readonly audit: AuditTrail,
  ) {
    // A session that ends takes its approvals with it.
    audit.subscribe((entry) => {
      if (entry.event === 'session-stop' && entry.session) this.approvals.delete(`${SESSION_PROFILE_PREFIX}${entry.session}`);
    });
  }

  private rules(): ConfirmRule[] {
    return this.ports.config().confirm.rules;
  }

  /**
   * One act, through the rules: it runs (none names it, or it was pre-approved), it waits for a
   * person (in process, `options.wait`: until they answer; else the answer says so at once, with the
   * hand-off's handle), or it is refused.
   */
  async act(profile: string | undefined, action: Act, signal: AbortSignal | undefined, options: PerformOptions & { wait?: boolean }): Promise<ActionResult> {
    if (!JUDGED.has(action.kind)) return this.ports.perform(profile, action, signal, options);
    const found = await this.ports.drivers.driver(profile).consequenceOf(action, this.rules());
    if (!found) return this.ports.perform(profile, action, signal, options);
    return this.confirm(
      profile,
      action.targetId,
      found.consequence,
      found.viewport,
      (bounded) => this.ports.perform(profile, action, bounded, { diffMaxChars: options.diffMaxChars, secrets: options.secrets }),
      signal,
      options,
      (confirmation, targetId) => ({ targetId, kind: action.kind, confirmation }),
    );
  }

  /** A call of a tool the page offers (WebMCP) that a rule names (driver/page-tools/tool-consequence.ts): asked as an act is. */
  async pageTool<T extends object>(
    profile: string | undefined,
    targetId: string | undefined,
    consequence: Consequence,
    run: (signal?: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
    options: ActOptions & { wait?: boolean },
    waiting: (confirmation: Confirmation, targetId: string) => T,
  ): Promise<T & { confirmed?: Confirmed }> {
    return this.confirm(profile, targetId, consequence, undefined, run, signal, options, waiting);
  }

  /** A computer-use batch that paused before a press a rule names (batchGate): asked as an act is, the rest of the batch run on the yes. */
  async batch<T extends object>(
    profile: string | undefined,
    targetId: string,
    pause: BatchPause,
    run: (signal?: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
    options: ActOptions & { wait?: boolean },
    waiting: (confirmation: Confirmation, targetId: string) => T,
  ): Promise<T & { confirmed?: Confirmed }> {
    return this.confirm(profile, targetId, pause.consequence, pause.viewport, run, signal, options, waiting);
  }

  /**
   * What a rule names runs when pre-approved for the session; with nobody to ask it is refused (409);
   * else a hand-off asks the person, and `run` runs, server-side, on their yes. The caller waits for that
   * (`options.wait`), or is answered at once with `waiting(confirmation)`, the hand-off's handle.
   */
  private async confirm<T extends object>(
    profile: string | undefined,
    targetId: string | undefined,
    consequence: Consequence,
    viewport: { width: number; height: number } | undefined,
    run: (signal?: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
    options: ActOptions & { wait?: boolean },
    waiting: (confirmation: Confirmation, targetId: string) => T,
  ): Promise<T & { confirmed?: Confirmed }> {
    const name = this.ports.drivers.driver(profile).profile.name;
    const session = sessionOf(name);
    if (this.approvals.get(name)?.has(consequence.rule)) {
      this.record('confirm-yes', session, 'ok', `${consequence.rule}: ${consequence.act} on ${name}, pre-approved for the session`);
      return { ...(await run(signal)), confirmed: { rule: consequence.rule, by: 'pre-approval' as const } };
    }
    if (!this.reachable(name, options.person === true)) {
      this.record('confirm-ask', session, 'refused', `${consequence.rule}: ${consequence.act} on ${name}; no person could be asked`);
      throw refusal(consequence, this.rule(consequence.rule), 'and no person can be asked here');
    }
    const { opened, outcome } = await this.ask(name, targetId, consequence, viewport, run, signal);
    const confirmation: Confirmation = {
      id: opened.id,
      rule: consequence.rule,
      act: consequence.act,
      state: 'waiting',
      askedIn: opened.askedIn ?? ['console'],
      expiresAt: opened.expiresAt,
    };
    // The act names its target in the page's words: fenced.
    if (!options.wait) return withFence(waiting(confirmation, opened.targetId));
    options.onConfirmation?.(confirmation);
    const abandoned = () => this.ports.handoffs.desk.end(opened.id, 'cancelled', 'the agent stopped waiting');
    signal?.addEventListener('abort', abandoned, { once: true });
    try {
      return (await outcome) as T & { confirmed: Confirmed };
    } finally {
      signal?.removeEventListener('abort', abandoned);
    }
  }

  /** Opens the hand-off asking for the person's yes; `run` runs, server-side, on it. */
  private async ask(
    name: string,
    targetId: string | undefined,
    consequence: Consequence,
    viewport: { width: number; height: number } | undefined,
    run: () => Promise<object>,
    signal: AbortSignal | undefined,
  ): Promise<{ opened: HandoffAnswer; outcome: Promise<object> }> {
    const waitSeconds = this.ports.config().confirm.waitSeconds;
    const box = consequence.box &&
      viewport && {
        x: consequence.box.x / viewport.width,
        y: consequence.box.y / viewport.height,
        width: consequence.box.width / viewport.width,
        height: consequence.box.height / viewport.height,
      };
    const opened = await this.ports.handoffs.open(
      name,
      { targetId, reason: `Say yes to let the agent ${consequence.act} (rule ${consequence.rule})`, timeoutSec: waitSeconds },
      this.ports.link(),
      signal,
      { rule: consequence.rule, act: consequence.act, ...(box ? { box } : {}) },
    );
    this.record('confirm-ask', sessionOf(name), 'ok', `${consequence.rule}: ${consequence.act} on ${name}, hand-off ${opened.id}`);
    const outcome = this.ports.handoffs.desk.wait(opened.id, waitSeconds * 1000 + 1000).then(async (ended) => {
      if (ended?.state !== 'done') {
        this.record(
          'confirm-no',
          sessionOf(name),
          'refused',
          `${consequence.rule}: ${consequence.act} on ${name}, hand-off ${opened.id}: ${ended?.state ?? 'gone'}${ended?.note ? ` (${ended.note})` : ''}`,
        );
        throw refusal(
          consequence,
          this.rule(consequence.rule),
          ended?.state === 'refused'
            ? `and the person said no${ended.note ? `: ${JSON.stringify(ended.note)}` : ''}`
            : ended?.state === 'timeout'
              ? 'and nobody answered in time'
              : 'and the ask was cancelled',
          opened.id,
        );
      }
      this.record('confirm-yes', sessionOf(name), 'ok', `${consequence.rule}: ${consequence.act} on ${name}, hand-off ${opened.id}`);
      return { ...(await run()), confirmed: { rule: consequence.rule, by: 'person' as const, handoff: opened.id } };
    });
    // The hand-off's answer shows the act's, once it ran (handoff-service.ts).
    this.ports.handoffs.follow(opened.id, outcome);
    return { opened, outcome };
  }

  /**
   * A download a rule names (an executable's type) is kept only on a person's yes, or when pre-approved
   * for the session; with nobody to ask it is discarded. Its file waits, unsaved, meanwhile.
   */
  async download(held: { profile: string; tab: DriverTab; fileName: string; url: string }): Promise<{ keep: boolean; rule?: string; why?: string }> {
    const rule = matchDownload(this.rules(), held.fileName);
    if (!rule) return { keep: true };
    const session = sessionOf(held.profile);
    const act = `keep a download: ${JSON.stringify(clipped(held.fileName))} from ${hostOf(held.url)}`;
    if (this.approvals.get(held.profile)?.has(rule.name)) {
      this.record('confirm-yes', session, 'ok', `${rule.name}: ${act} on ${held.profile}, pre-approved for the session`);
      return { keep: true, rule: rule.name };
    }
    if (!this.reachable(held.profile, false)) {
      this.record('confirm-ask', session, 'refused', `${rule.name}: ${act} on ${held.profile}; no person could be asked`);
      return { keep: false, rule: rule.name, why: `confirm rule ${rule.name} (${describeRule(rule)}) needs a person's yes, and no person can be asked here` };
    }
    held.tab.noteEvent(`download held for a person's yes (confirm rule ${rule.name}): ${held.fileName}`);
    const waitSeconds = this.ports.config().confirm.waitSeconds;
    const opened = await this.ports.handoffs.open(
      held.profile,
      { targetId: await held.tab.targetId(), reason: `Say yes to ${act} (rule ${rule.name})`, timeoutSec: waitSeconds },
      this.ports.link(),
      undefined,
      { rule: rule.name, act },
    );
    this.record('confirm-ask', session, 'ok', `${rule.name}: ${act} on ${held.profile}, hand-off ${opened.id}`);
    const ended = await this.ports.handoffs.desk.wait(opened.id, waitSeconds * 1000 + 1000);
    const yes = ended?.state === 'done';
    this.record(
      yes ? 'confirm-yes' : 'confirm-no',
      session,
      yes ? 'ok' : 'refused',
      `${rule.name}: ${act} on ${held.profile}, hand-off ${opened.id}${yes ? '' : `: ${ended?.state ?? 'gone'}`}`,
    );
    return yes
      ? { keep: true, rule: rule.name }
      : { keep: false, rule: rule.name, why: `confirm rule ${rule.name}: the person ${ended?.state === 'refused' ? 'said no' : 'did not answer'}` };
  }

  /**
   * For an agent's input through the live view (the token's, a session key's, a link it was handed:
   * never a person's yes): a press on what a rule names runs when the rule is pre-approved for the
   * session, else it stops there (a 409 naming the rule).
   */
  pressGate(profile: string): PressGate {
    const why =
      "and input an agent sends through the live view is the agent's own act, not a person's yes: do it with POST /act (by ref, or at x/y), which asks them";
    return async (tab, at) => {
      const consequence = await this.pressConsequence(tab, at);
      if (!consequence || this.preApproved(profile, consequence, 'the live view')) return;
      this.record(
        'confirm-ask',
        sessionOf(profile),
        'refused',
        `${consequence.rule}: ${consequence.act} on ${profile} (the live view): an agent's input is not a person's yes`,
      );
      throw refusal(consequence, this.rule(consequence.rule), why);
    };
  }

  /**
   * For a computer-use batch: a press on what a rule names (a click, a button down, Enter or Space on
   * what has focus) runs when pre-approved for the session; with a person reachable the batch pauses
   * before it (AskFirst: nothing of the press done) and goes on, that press first, on their yes
   * (`yesGiven`: the batch going on, whose first press the person said yes to); with nobody to ask it
   * stops there, a 409 naming the rule.
   */
  batchGate(profile: string, person: boolean, yesGiven: boolean): PressGate {
    let yes = yesGiven;
    return async (tab, at) => {
      const consequence = await this.pressConsequence(tab, at);
      if (!consequence) return;
      if (yes) {
        yes = false;
        return;
      }
      if (this.preApproved(profile, consequence, 'computer use')) return;
      if (this.reachable(profile, person)) throw new AskFirst<BatchPause>({ consequence, viewport: tab.page.viewportSize() ?? undefined });
      this.record(
        'confirm-ask',
        sessionOf(profile),
        'refused',
        `${consequence.rule}: ${consequence.act} on ${profile} (computer use); no person could be asked`,
      );
      throw refusal(consequence, this.rule(consequence.rule), 'and no person can be asked here');
    };
  }

  private pressConsequence(tab: DriverTab, at: Point | 'focused' | 'focused-space'): Promise<Consequence | undefined> {
    const rules = this.rules();
    return typeof at === 'string' ? consequenceOf(tab, { kind: 'press', key: at === 'focused' ? 'Enter' : 'Space' }, rules) : consequenceAt(tab, at, rules);
  }

  private preApproved(profile: string, consequence: Consequence, via: string): boolean {
    if (!this.approvals.get(profile)?.has(consequence.rule)) return false;
    this.record('confirm-yes', sessionOf(profile), 'ok', `${consequence.rule}: ${consequence.act} on ${profile} (${via}), pre-approved for the session`);
    return true;
  }

  /** `POST /sessions/{id}/approvals`: the token's holder lets a rule's acts run in one task session without asking. */
  approve(session: string, rule: string): { session: string; approved: string[] } {
    if (!this.ports.sessionsHave(session)) throw new NotFoundError(`No task session ${JSON.stringify(session)}`, { next: 'list-sessions' });
    this.rule(rule);
    const profile = `${SESSION_PROFILE_PREFIX}${session}`;
    const approved = this.approvals.get(profile) ?? new Set<string>();
    approved.add(rule);
    this.approvals.set(profile, approved);
    this.record('confirm-approve', session, 'ok', `${rule} (${describeRule(this.rule(rule))}) pre-approved for session ${session} by the token's holder`);
    return { session, approved: [...approved] };
  }

  private rule(name: string): ConfirmRule {
    const rule = this.rules().find((candidate) => candidate.name === name);
    if (!rule)
      throw new NotFoundError(
        `No confirm rule ${JSON.stringify(name)}: config.json's confirm.rules has ${
          this.rules()
            .map((r) => r.name)
            .join(', ') || 'none'
        }`,
      );
    return rule;
  }

  /**
   * Whether a person can be asked: config says always or never; else their own Chrome, a webhook to their
   * channel (config handoffWebhook), the console open, or a caller that says a person is at hand (who
   * then answers in the console: the caller gets no link to show them).
   */
  private reachable(profile: string, callerShows: boolean): boolean {
    const config = this.ports.config();
    if (config.confirm.askPerson !== 'auto') return config.confirm.askPerson === 'always';
    return profile === 'extension' || config.handoffWebhook !== undefined || callerShows || this.ports.consoleOpen();
  }

  private record(
    event: 'confirm-ask' | 'confirm-yes' | 'confirm-no' | 'confirm-approve',
    session: string | undefined,
    outcome: 'ok' | 'refused',
    detail: string,
  ): void {
    this.audit.record({ event, ...(session ? { session } : {}), outcome, detail });
  }
}

function clipped(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

function sessionOf(profile: string): string | undefined {
  return profile.startsWith(SESSION_PROFILE_PREFIX) ? profile.slice(SESSION_PROFILE_PREFIX.length) : undefined;
}

/** The 409: which rule, why not, and what would let it run. */
function refusal(consequence: Consequence, rule: ConfirmRule, why: string, handoff?: string): ConflictError {
  return new ConflictError(
    `Not done: to ${consequence.act} needs a person's yes (confirm rule ${consequence.rule}: ${describeRule(rule)}), ${why}. ` +
      "A person says yes where they are asked (the operator's console, their own Chrome, the webhook's channel), never through a link or credential an agent holds; the token's holder may pre-approve the rule for a task session (POST /sessions/{id}/approvals)",
    { rule: consequence.rule, ...(handoff ? { handoff } : {}) },
  );
}
