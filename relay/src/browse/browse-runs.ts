import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { BrowserApi } from '../api/browser-api.js';
import { type BrowseEvent, type BrowseOptions, type BrowseRequest, BrowseRequestSchema, type BrowseResult, type BrowseStart } from '../api/browse-schemas.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { schemas } from '../api/schemas.js';
import { type BrowseConfig, providerNamed } from '../config/browse-config.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, TooManyError } from '../errors.js';
import { describeIssues } from '../validation.js';
import type { ActionLog } from '../runtime/action-log.js';
import { runLoop } from './browse-loop.js';
import { logRun, logStep } from './browse-log.js';
import { ComputerToolset } from './computer-toolset.js';
import { PageToolset } from './page-toolset.js';
import { providerFor } from './providers/provider-for.js';
import type { Conversation } from './providers/provider.js';
import type { Toolset } from './toolset.js';
import { systemPrompt } from './system-prompt.js';

/**
 * The browse runs of one server (spec §24): each call's provider, browser
 * and guardrails, the cap on runs at once, cancelling a run by its id, and
 * the conversations kept for task sessions, so that a later call naming the
 * session goes on where the model left off. What the loop itself does is
 * browse-loop.ts.
 */

/** What a run needs of the server it runs in. */
export interface BrowseHost {
  config(): BrowseConfig;
  /** The browser API of a profile, its calls bound to `signal` (the control service, in process). */
  api(profile: string, signal: AbortSignal): BrowserApi;
  openSession(request: z.output<typeof schemas.openSession>, signal: AbortSignal): Promise<{ id: string; profile: string }>;
  hasSession(id: string): boolean;
  closeSession(id: string): Promise<void>;
  log: ActionLog;
  exportDir: string;
}

/** Who asks: the profile the request's URL named, or a session's key, which holds its own session only. */
export interface RunScope {
  profile?: string;
  locked?: boolean;
}

interface Running {
  goal: string;
  profile: string;
  session?: string;
  provider: string;
  step: number;
  startedAt: string;
  controller: AbortController;
}

interface Kept {
  provider: string;
  runtime: 'tools' | 'computer';
  conversation: Conversation;
}

/** Conversations kept for continuation; beyond this many sessions, the oldest go. */
const KEPT_MAX = 32;

export class BrowseRuns {
  private readonly running = new Map<string, Running>();
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly host: BrowseHost) {}

  list() {
    return { runs: [...this.running.entries()].map(([run, entry]) => this.describe(run, entry)) };
  }

  cancel(run: string) {
    const entry = this.running.get(run);
    if (!entry) throw new NotFoundError(`No browse run ${JSON.stringify(run)} is running (GET /browse lists those that are)`);
    entry.controller.abort(new Error('the run was cancelled'));
    return this.describe(run, entry);
  }

  /** One run, to its end: a failure before its start (a bad provider, a cap, an unknown session) throws; after it, the result says. */
  async run(input: BrowseRequest, scope: RunScope, options: BrowseOptions = {}): Promise<BrowseResult> {
    const parsed = BrowseRequestSchema.safeParse(input);
    if (!parsed.success) throw new BadRequestError(`Invalid body: ${describeIssues(parsed.error, 'body')}`);
    const request = parsed.data;
    if (scope.locked) throw new ForbiddenError("Browse runs spend the operator's model budget: they are the main token's, not a task session key's");
    const config = this.host.config();
    if (this.running.size >= config.maxRuns)
      throw new TooManyError(
        `${this.running.size} browse runs are running, the most config browse.maxRuns allows: wait for one to end, or cancel one (DELETE /browse/{run})`,
      );
    const chosen = providerNamed(config, request.provider);
    const provider = await providerFor(chosen.name, chosen.provider);
    const runtime = request.runtime ?? chosen.provider.runtime ?? 'tools';
    if (runtime === 'computer' && !provider.hasComputerTool)
      throw new BadRequestError(
        `Invalid runtime: provider ${chosen.name} speaks ${provider.api}, which has no computer tool; use runtime tools, or an anthropic or openai-responses provider`,
      );
    const maxSteps = Math.min(request.maxSteps ?? config.maxSteps, config.maxStepsLimit);
    const stepTimeoutMs = request.stepTimeoutMs ?? config.stepTimeoutMs;
    const budgetTokens = request.budget?.tokens ?? (config.budgetTokens || undefined);

    const run = randomBytes(6).toString('hex');
    const controller = new AbortController();
    const onCaller = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onCaller();
    options.signal?.addEventListener('abort', onCaller, { once: true });
    const entry: Running = { goal: request.goal, profile: '', provider: chosen.name, step: 0, startedAt: new Date().toISOString(), controller };
    this.running.set(run, entry);
    const started = performance.now();
    try {
      const { profile, session, opened } = await this.target(request, scope, controller.signal);
      entry.profile = profile;
      entry.session = session;
      const api = (signal: AbortSignal) => this.host.api(profile, signal);
      // A session opened for a run that could not start goes at once: nobody was told its id.
      const targetId = await prepareTab(api(controller.signal), request.startUrl).catch(async (error: unknown) => {
        if (opened) await this.host.closeSession(opened).catch(() => {});
        throw error;
      });
      const toolset: Toolset = runtime === 'computer' ? new ComputerToolset(api, chosen.provider.display) : new PageToolset(api, this.host.exportDir);
      const kept = session ? this.kept.get(session) : undefined;
      const conversation =
        kept && kept.provider === chosen.name && kept.runtime === runtime
          ? kept.conversation
          : provider.conversation({ system: systemPrompt(runtime), tools: toolset.functions, computer: toolset.computer });
      const start: BrowseStart = {
        run,
        provider: chosen.name,
        model: provider.model,
        runtime,
        profile,
        ...(session ? { session } : {}),
        targetId,
        maxSteps,
        stepTimeoutMs,
        ...(budgetTokens ? { budgetTokens } : {}),
      };
      emit(options, { kind: 'start', data: start });

      const ended = await runLoop({
        conversation,
        toolset,
        goal: request.goal,
        settings: { maxSteps, stepTimeoutMs, budgetTokens },
        signal: controller.signal,
        onStep: (report) => {
          entry.step = report.step;
          logStep(this.host.log, start, report);
          emit(options, {
            kind: 'step',
            data: {
              run,
              step: report.step,
              actions: report.actions,
              ...(report.said ? { said: report.said } : {}),
              usage: report.usage,
              total: report.total,
              screenshots: report.screenshots,
              durationMs: report.durationMs,
            },
          });
        },
      });

      // A failure (the provider's, a safety check, a step cut short) may leave the transcript half-written: a later run starts a fresh one.
      if (session) this.keep(session, ended.error ? undefined : { provider: chosen.name, runtime, conversation });
      const after = new AbortController();
      const tab = await api(after.signal)
        .tabs()
        .then(
          (tabs) => tabs.find((candidate) => candidate.targetId === targetId),
          () => undefined,
        );
      const screenshot = request.screenshot ? await finalScreenshot(api(after.signal), targetId) : undefined;
      let sessionClosed: boolean | undefined;
      if (session && request.close) {
        await this.host.closeSession(session).catch(() => {});
        this.kept.delete(session);
        sessionClosed = true;
      }
      const result: BrowseResult = {
        run,
        ...ended,
        durationMs: Math.round(performance.now() - started),
        provider: chosen.name,
        model: provider.model,
        runtime,
        profile,
        ...(session ? { session } : {}),
        ...(sessionClosed ? { sessionClosed } : {}),
        targetId,
        ...(tab ? { url: tab.url } : {}),
        ...(screenshot ? { screenshot } : {}),
      };
      logRun(this.host.log, start, result);
      emit(options, { kind: 'end', data: result });
      return result;
    } finally {
      options.signal?.removeEventListener('abort', onCaller);
      this.running.delete(run);
    }
  }

  /** The run's browser: the session it names, the profile asked for, or a new clean task session. */
  private async target(
    request: z.output<typeof BrowseRequestSchema>,
    scope: RunScope,
    signal: AbortSignal,
  ): Promise<{ profile: string; session?: string; opened?: string }> {
    this.forgetEnded();
    const profile = request.profile ?? scope.profile;
    const named = request.session ?? (profile?.startsWith(SESSION_PROFILE_PREFIX) ? profile.slice(SESSION_PROFILE_PREFIX.length) : undefined);
    // Two runs in one session would write one conversation at once.
    if (named && [...this.running.values()].some((other) => other.session === named))
      throw new ConflictError(`Task session ${named} has a browse run going: one run at a time goes on in a session (wait for it, or cancel it)`);
    if (request.session) {
      if (!this.host.hasSession(request.session))
        throw new NotFoundError(`No task session ${request.session}: it has ended (a run without session opens a new one)`);
      return { profile: `${SESSION_PROFILE_PREFIX}${request.session}`, session: request.session };
    }
    if (profile) return { profile, ...(named ? { session: named } : {}) };
    const opened = await this.host.openSession(request.open ?? { credential_mode: 'clean' }, signal);
    return { profile: opened.profile, session: opened.id, opened: opened.id };
  }

  private keep(session: string, kept: Kept | undefined): void {
    this.kept.delete(session);
    if (!kept) return;
    this.kept.set(session, kept);
    while (this.kept.size > KEPT_MAX) this.kept.delete(this.kept.keys().next().value!);
  }

  /** Conversations of sessions that have ended (closed, expired) go with them. */
  private forgetEnded(): void {
    for (const session of this.kept.keys()) if (!this.host.hasSession(session)) this.kept.delete(session);
  }

  private describe(run: string, entry: Running) {
    return {
      run,
      goal: entry.goal.slice(0, 200),
      profile: entry.profile,
      provider: entry.provider,
      step: entry.step,
      startedAt: entry.startedAt,
      cancelling: entry.controller.signal.aborted,
    };
  }
}

function emit(options: BrowseOptions, event: BrowseEvent): void {
  try {
    options.onEvent?.(event);
  } catch {
    // A listener's failure is its own: the run goes on.
  }
}

/** The tab the run works in: the start URL loaded (in the last used tab, or a new one), else the last used tab, else a blank one. */
async function prepareTab(api: BrowserApi, startUrl: string | undefined): Promise<string> {
  const tabs = await api.tabs();
  if (startUrl) return (tabs.length ? await api.navigate(startUrl) : await api.openTab(startUrl)).targetId;
  if (tabs.length) {
    // The last used tab: what a call without targetId acts on.
    const shot = await api.snapshot({ maxChars: 500 }).catch(() => undefined);
    return shot?.targetId ?? tabs[0].targetId;
  }
  return (await api.openTab('about:blank')).targetId;
}

async function finalScreenshot(api: BrowserApi, targetId: string): Promise<{ mimeType: string; data: string } | undefined> {
  return api.screenshot({ targetId, type: 'jpeg', quality: 70, scale: 'css' }).then(
    (shot) => ({ mimeType: shot.mimeType, data: shot.data }),
    () => undefined,
  );
}
