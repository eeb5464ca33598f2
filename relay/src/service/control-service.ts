import type { z } from 'zod';
import type { ActOptions, BrowserApi, RecordRequest, SnapshotRequest } from '../api/browser-api.js';
import type { DialogArmed, FileChooserAnswer, PlaywrightScript } from '../api/responses.js';
import type { ActionRequest, RequestOf, TextOptions } from '../api/schemas.js';
import type { ActionResult, AiSnapshotResponse, ProfileSummary, RecordingAnswer, Status } from '../api/responses.js';
import { ActionSchema, schemas } from '../api/schemas.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, UnavailableError } from '../errors.js';
import type { ActionLog, Actor } from '../runtime/action-log.js';
import { abortable, runOperation } from '../runtime/operation.js';
import type { TaskSessions } from '../sessions/task-sessions.js';
import type { FilmService } from './film-service.js';
import type { RecordingService } from './recording-service.js';
import { describeIssues } from '../validation.js';
import { withFence, withSharedFence } from '../api/page-content.js';
import { type SecretOpener, secretNames } from '../driver/secrets/secret-typing.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { ToolboxService } from './toolbox-service.js';
import { VisionService } from './vision-service.js';
import { PageToolsService } from './page-tools-service.js';
import { atTheEdge } from './api-edge.js';
import { type AnsweredBy, HandoffService, type LinkMaker } from './handoff-service.js';
import { ConfirmService } from './confirm-service.js';
import { HandoffWebhook, type WebhookTarget } from './handoff-webhook.js';
import type { AuditTrail } from '../vault/audit-log.js';
import { Teaching, type TeachingStores } from './teaching.js';
import type { BrowseOptions, BrowseRequest, BrowseResult } from '../api/browse-schemas.js';

/** The browse runtime (browse/browse-runs.ts), as the server hands it to the service: a run for a caller's scope. */
export type BrowseRunner = (request: BrowseRequest, scope: { profile?: string; locked?: boolean }, options: BrowseOptions) => Promise<BrowseResult>;

/**
 * What the control API does, once, for every surface: HTTP routes
 * (server/control-server.ts) are thin adapters over it, and `/mcp` calls it
 * in process through `api()`. It takes plain, validated arguments and the
 * caller's AbortSignal; every call that acts on a browser goes through
 * `operation()` (cancelled with its caller, bounded, logged).
 */

/** How long a call whose browser went away waits to hear that its session ended (a jail's memory watch looks every second). */
const ENDING_WAIT_MS = 3_000;

/** Views, not actions: a recorded session keeps no screenshot of them. */
const NOT_RECORDED = new Set(['snapshot', 'text', 'screenshot', 'labelled-screenshot', 'pdf', 'start', 'focus', 'close', 'dialog', 'storage-read', 'page-tools']);

/** How an act is performed: the act's options, and what opens the secrets it may type (a routine's run gives its own; else the session's). */
export type PerformOptions = ActOptions & { secrets?: SecretOpener };

export interface OperationRequest {
  kind: string;
  targetId?: string;
  ref?: string;
  at?: { x: number; y: number };
  actor?: Actor;
}

/**
 * Input checked against an API schema: a 400 whose message is the field and
 * what is wrong with it ("url: "foo" is not a web address: …"), words a
 * person reads as they are; `what` names the input when the issue is with
 * all of it.
 */
export function validated<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new BadRequestError(describeIssues(result.error, what));
}

export class ControlService {
  /** Emulation, network routes, init scripts, storage (toolbox-service.ts). */
  readonly toolbox = new ToolboxService(this);
  /** Labelled screenshots and computer use (vision-service.ts). */
  readonly vision = new VisionService(this);
  /** The tools pages offer agents, WebMCP (page-tools-service.ts). */
  readonly pageTools = new PageToolsService(this);
  /** Hand-offs to a person (handoff-service.ts). */
  readonly handoffs: HandoffService;
  /** A person teaching: demonstrations, the routines they make, notes (teaching.ts). */
  readonly teaching: Teaching;
  /** Acts that wait for a person's yes (confirm-service.ts). */
  readonly confirmations: ConfirmService;
  /** Task sessions' profiles with calls that have asked: aborted, with why, when the session ends. */
  private readonly ending = new Map<string, AbortController>();
  private browseRunner: BrowseRunner = async () => {
    throw new UnavailableError('The browse runtime is not running on this server');
  };

  constructor(
    readonly manager: ProfileManager,
    private readonly sessions: TaskSessions,
    readonly actionLog: ActionLog,
    /** The network log, HAR and traces (recording-service.ts). */
    readonly recordings: RecordingService,
    /** Films (film-service.ts). */
    readonly films: FilmService,
    audit: AuditTrail,
    /** Where what people taught is kept (teaching.ts). */
    teachingStores: TeachingStores,
    /**
     * A person's one-time link to a hand-off: the server makes it, since it
     * holds the codes and knows its address (on a request's own host when
     * there is one, else where it listens).
     */
    readonly handoffLink: (host?: string) => LinkMaker,
    /** Where waiting hand-offs are announced, when config names a webhook. */
    handoffWebhook?: () => WebhookTarget | undefined,
  ) {
    this.handoffs = new HandoffService(this, audit, handoffWebhook && new HandoffWebhook(handoffWebhook, audit));
    this.teaching = new Teaching(this, teachingStores);
    this.confirmations = new ConfirmService(this, audit);
    // Every driver asks before it keeps a download (a confirm rule may hold an executable for a yes).
    manager.holdDownload = (held) => this.confirmations.download(held);
    // A session that ended takes its calls in flight with it, each told why (a 410, as later calls are).
    sessions.whenEnded((id) => {
      const profile = `${SESSION_PROFILE_PREFIX}${id}`;
      this.ending.get(profile)?.abort(this.manager.endedError(profile));
      this.ending.delete(profile);
    });
  }

  /** Whether this server holds task session `id` (a pre-approval is for one of its sessions). */
  sessionsHave(id: string): boolean {
    return this.sessions.has(id);
  }

  /** The tenant task session `id` was opened for, if any (whose routines its key saves: routines/routine-owners.ts). */
  tenantOf(id: string): string | undefined {
    return this.sessions.list().find((info) => info.id === id)?.tenant;
  }

  /** browser_record's one call, in process (credential headers stay redacted: MCP is not the token's holder's door). */
  async record(profile: string | undefined, request: RecordRequest): Promise<RecordingAnswer> {
    const refusal = 'Credential headers are shown only over HTTP, to the token\'s holder';
    switch (request.action) {
      case 'network-start':
      case 'network-stop':
        return this.recordings.networkRecord(profile, { targetId: request.targetId, on: request.action === 'network-start' });
      case 'network': {
        const { profile: _ignored, ...filters } = validated(schemas.networkQuery, { targetId: request.targetId, url: request.url, status: request.status, type: request.type, limit: request.limit }, 'arguments');
        return this.recordings.network(profile, filters, refusal);
      }
      case 'body':
      case 'request-body': {
        const { profile: _ignored, ...which } = validated(schemas.networkBody, { targetId: request.targetId, id: request.id, part: request.action === 'body' ? 'response' : 'request' }, 'arguments');
        const { targetId, ...body } = await this.recordings.networkBody(profile, which);
        return { targetId, body };
      }
      case 'har':
        return this.recordings.har(profile, validated(schemas.har, { targetId: request.targetId, all: request.all, keep: request.keep }, 'arguments'), refusal);
      case 'trace-start':
        return this.recordings.traceStart(profile);
      case 'trace-stop':
        return this.recordings.traceStop(profile, { keep: request.keep });
      case 'video-start':
        return { filming: await this.films.start(profile, validated(schemas.videoStart, { targetId: request.targetId, format: request.format }, 'arguments')) };
      case 'video-stop':
        return { film: await this.films.stop(profile, { keep: request.keep }) };
    }
  }

  /** A request that acts on a browser: cancelled with its caller, bounded by actionTimeoutMs, logged. */
  operation<T>(profile: string | undefined, request: OperationRequest, signal: AbortSignal | undefined, work: (driver: ProfileDriver, signal: AbortSignal) => Promise<T>): Promise<T> {
    const driver = this.manager.driver(profile);
    const settings = { actionTimeoutMs: this.manager.registry.config().actionTimeoutMs, log: this.actionLog };
    return runOperation(
      { profile: driver.profile.name, ...request },
      settings,
      async (bounded) => {
        const result = await work(driver, bounded).catch((error: unknown) => this.endedWith(driver.profile.name, error));
        // A recorded task session keeps a screenshot per action (outside its dir).
        if (!NOT_RECORDED.has(request.kind)) await this.sessions.recordAction(driver.profile.name, request.kind, request.targetId ?? (result as { targetId?: string })?.targetId);
        return result;
      },
      signal,
      this.gone(driver.profile.name),
    );
  }

  /** Fires, with why, when task session `profile`'s browser is gone for good: what its calls in flight answer. */
  private gone(profile: string): AbortSignal | undefined {
    if (!profile.startsWith(SESSION_PROFILE_PREFIX)) return undefined;
    let ending = this.ending.get(profile);
    if (!ending) this.ending.set(profile, (ending = new AbortController()));
    return ending.signal;
  }

  /**
   * A call that failed because its browser went away under it (a session
   * ended for a limit while the call was in flight: the target crashed, the
   * page closed): it is told what later calls are told, why the session
   * ended (a 410), once the session's end is known, which may take a moment
   * after the browser died. Any other failure is thrown as it came.
   */
  private async endedWith(profile: string, error: unknown): Promise<never> {
    const gone = profile.startsWith(SESSION_PROFILE_PREFIX) && /Target crashed|Target closed|has been closed|Browser closed|browser has disconnected/i.test((error as Error)?.message ?? '');
    for (let waited = 0; gone && waited <= ENDING_WAIT_MS; waited += 100) {
      const ended = this.manager.endedError(profile);
      if (ended) throw ended;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw error;
  }

  /** The browse runtime sits above the service (it drives the service's own BrowserApi): the server hands it over here, for `api().browse`. */
  browseWith(runner: BrowseRunner): void {
    this.browseRunner = runner;
  }

  /** `GET /script`: the profile's recorded steps (one tab's with targetId) as a Playwright test. */
  script(profile: string | undefined, query: { targetId?: string; title?: string }): PlaywrightScript {
    const driver = this.manager.driver(profile);
    const name = driver.profile.name;
    const written = driver.script.script(query.targetId, query.title ?? `recorded on ${name}`, `Recorded by clawd-browser on profile ${name}, ${new Date().toISOString()}.`);
    if (query.targetId && !written.steps) throw new NotFoundError(`No recorded steps for tab ${JSON.stringify(query.targetId)} in profile ${name}`, { next: 'list-tabs' });
    return { language: 'typescript', runner: '@playwright/test', ...written };
  }

  // ---- status and lifecycle ------------------------------------------------

  async status(profile?: string): Promise<Status> {
    const driver = this.manager.peek(profile);
    const config = this.manager.registry.config();
    const { profile: described } = driver;
    return {
      profile: described.name,
      driver: described.driver,
      enabled: config.enabled,
      color: described.color,
      cdpUrl: this.manager.cdpUrlOf(driver),
      ...(config.enabled ? await driver.status() : { running: false }),
    };
  }

  start(profile: string | undefined, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'start' }, signal, async (driver, bounded) => {
      await abortable(driver.start(), bounded);
      return { profile: driver.profile.name, ...(await driver.status()) };
    });
  }

  async stop(profile?: string) {
    const driver = this.manager.driver(profile);
    await driver.stop();
    return { profile: driver.profile.name, ...(await driver.status()) };
  }

  // ---- tabs and inspection -------------------------------------------------

  // Titles and URLs are the page's words: each answer carries its fence (api/page-content.ts).
  async tabs(profile?: string) {
    return (await this.tabList(profile)).tabs;
  }
  async tabList(profile?: string) {
    const { tabs, hint } = await this.manager.driver(profile).tabList();
    return { tabs: withSharedFence(tabs), ...(hint ? { hint } : {}) };
  }
  openTab(profile: string | undefined, url: string, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'open' }, signal, async (driver, bounded) => withFence(await driver.openTab(url, bounded)));
  }
  focusTab(profile: string | undefined, targetId: string, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'focus', targetId }, signal, async (driver) => withFence(await driver.focusTab(targetId)));
  }
  closeTab(profile: string | undefined, targetId: string, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'close', targetId }, signal, async (driver) => withFence(await driver.closeTab(targetId)));
  }
  navigate(profile: string | undefined, url: string, targetId: string | undefined, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'navigate', targetId }, signal, async (driver, bounded) => withFence(await driver.navigate(url, targetId, bounded)));
  }
  screenshot(profile: string | undefined, options: z.output<typeof schemas.screenshot>, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'screenshot', targetId: options.targetId, ref: options.ref }, signal, (driver) => driver.screenshot(options));
  }
  pdf(profile: string | undefined, targetId: string | undefined, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'pdf', targetId }, signal, (driver) => driver.pdf(targetId));
  }
  async console(profile: string | undefined, options: { targetId?: string; level?: string }) {
    return withFence(await this.manager.driver(profile).console(options));
  }
  async downloads(profile?: string) {
    return withFence(await this.manager.driver(profile).downloads());
  }

  // ---- snapshots, actions, hooks -------------------------------------------

  snapshot(profile: string | undefined, options: Omit<z.output<typeof schemas.snapshotQuery>, 'profile'>, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'snapshot', targetId: options.targetId }, signal, async (driver) => {
      const snapshot = withFence(await driver.snapshot(options));
      // The person's notes on the tab come with it, apart from the page's words, with their elements' refs (notes-service.ts).
      const notes = snapshot.format === 'ai' ? await this.teaching.notes.forSnapshot(driver, snapshot.targetId) : undefined;
      return notes ? { ...snapshot, notes } : snapshot;
    });
  }
  text(profile: string | undefined, options: TextOptions, signal?: AbortSignal) {
    return this.operation(profile, { kind: 'text', targetId: options.targetId, ref: options.ref }, signal, async (driver) => withFence(await driver.text(options)));
  }
  /**
   * One action, unless a confirm rule names it (confirm-service.ts): then it waits for a person's yes
   * (`wait`: here, until they answer; else the answer says so, with the hand-off's handle), or is refused.
   */
  act(profile: string | undefined, action: z.output<typeof schemas.act>, signal?: AbortSignal, options: PerformOptions & { wait?: boolean } = {}): Promise<ActionResult> {
    return this.confirmations.act(profile, action, signal, options);
  }

  /** The action itself; with `diffMaxChars`, and when it did not navigate, the page's diff comes with it (no second call). */
  perform(profile: string | undefined, action: z.output<typeof schemas.act>, signal?: AbortSignal, options: PerformOptions = {}): Promise<ActionResult> {
    const ref = 'ref' in action ? action.ref : 'startRef' in action ? action.startRef : undefined;
    const at = ref === undefined && 'x' in action && action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : undefined;
    return this.operation(profile, { kind: action.kind, targetId: action.targetId, ref, ...(at ? { at } : {}) }, signal, async (driver, bounded) => {
      const before = options.diffMaxChars ? await driver.page(action.targetId).then((page) => page.url(), () => undefined) : undefined;
      // A routine's run types the secrets it was given (routine-service.ts), and the session's beside them.
      const open = options.secrets ?? this.sessions.secretOpener(driver.profile.name);
      if (open && secretNames(action).length && this.recordings.isTracing(driver.profile.name))
        throw new ConflictError('A trace is recording this browser, and a trace cannot be redacted: stop it (POST /trace/stop) before typing a secret');
      const result: ActionResult = await driver.act(action, bounded, {
        open,
        onTyped: (typed) => this.sessions.secretsTyped(driver.profile.name, typed),
      });
      if (options.diffMaxChars && result.url !== undefined && result.url === before) {
        const snapshot = await driver.snapshot({ targetId: result.targetId, format: 'ai', diff: true, maxChars: options.diffMaxChars }).catch(() => undefined);
        if (snapshot?.format === 'ai') {
          result.diff = snapshot.text;
          if (snapshot.leadingNotes) result.diffLeadingNotes = snapshot.leadingNotes;
        }
      }
      return withFence(result);
    });
  }
  fileChooser(profile: string | undefined, hook: z.output<typeof schemas.fileChooser>, signal?: AbortSignal): Promise<FileChooserAnswer> {
    const request = { kind: 'file-chooser', targetId: hook.targetId, ref: hook.ref ?? hook.inputRef };
    return this.operation(profile, request, signal, (driver, bounded) => driver.fileChooser(hook, bounded));
  }
  armDialog(profile: string | undefined, hook: z.output<typeof schemas.dialog>, signal?: AbortSignal): Promise<DialogArmed> {
    return this.operation(profile, { kind: 'dialog', targetId: hook.targetId }, signal, (driver) => driver.armDialog(hook));
  }
  /** What opens the secrets a profile's acts may type (a task session's grant), if any. */
  secretOpenerOf(profile: string): SecretOpener | undefined {
    return this.sessions.secretOpener(profile);
  }
  /**
   * Input through the live view, logged as `how.actor`'s. Unless a person's credential sent it (the
   * console's login, a link that went to their own channel: `how.by`), whoever holds the token, a
   * session's key or a link handed to an agent may have: a click or key on what a confirm rule names is
   * then stopped, as in computer use (confirm-service.ts), since it would be the act without a yes.
   */
  viewInput(profile: string | undefined, input: z.output<typeof schemas.viewInput>, signal: AbortSignal | undefined, how: { by: AnsweredBy; actor: 'agent' | 'person' }) {
    return this.operation(profile, { kind: `view-${input.type}`, targetId: input.targetId, actor: how.actor }, signal, (driver) =>
      driver.viewInput(input, how.by === 'agent' ? this.confirmations.pressGate(driver.profile.name) : undefined),
    );
  }

  /** The action log's recent records, newest last (never what was typed: runtime/action-log.ts). */
  actions(query: { profile?: string; limit: number }) {
    return { actions: this.actionLog.recent(query) };
  }

  // ---- profiles ------------------------------------------------------------

  async profiles(): Promise<{ profiles: ProfileSummary[]; defaultProfile: string }> {
    const profiles = await Promise.all(
      this.manager.registry.list().map(async (profile) => {
        const driver = this.manager.peek(profile.name);
        return { ...profile, cdpUrl: this.manager.cdpUrlOf(driver), running: (await driver.status()).running ?? false };
      }),
    );
    return { profiles, defaultProfile: this.manager.defaultProfile };
  }
  async resetProfile(profile?: string) {
    const name = profile ?? this.manager.defaultProfile;
    return { profile: name, ...(await this.manager.resetProfile(name)) };
  }

  /**
   * The same service as an agent's tools see it (BrowserApi), for one
   * profile: in process, no HTTP. Arguments are checked against the API's
   * schemas here, as the HTTP routes check them.
   */
  api(profile?: string, signal?: AbortSignal, options: { locked?: boolean; agent?: string } = {}): BrowserApi {
    const service = this;
    // Each call as the caller's agent, each answer without the secrets typed into the profile's browser (api-edge.ts).
    return atTheEdge<BrowserApi>({
      // A task session's key holds its own profile only: another is refused, and the list names no other.
      withProfile: (other) => {
        if (options.locked && other !== profile) throw new ForbiddenError(`A task session's key reaches its own session only (${profile}), not ${JSON.stringify(other)}`);
        return service.api(other, signal, options);
      },
      status: () => service.status(profile),
      profiles: async () => {
        const all = await service.profiles();
        return options.locked ? { profiles: [], defaultProfile: profile! } : all;
      },
      tabs: () => service.tabs(profile),
      tabList: () => service.tabList(profile),
      openTab: (url = 'about:blank') => service.openTab(profile, validated(schemas.open, { url }, 'arguments').url, signal),
      focusTab: (targetId) => service.focusTab(profile, targetId, signal),
      closeTab: (targetId) => service.closeTab(profile, targetId, signal),
      navigate: (url, targetId) => {
        const checked = validated(schemas.navigate, { url, targetId }, 'arguments');
        return service.navigate(profile, checked.url, checked.targetId, signal);
      },
      screenshot: (options = {}) => service.screenshot(profile, validated(schemas.screenshot, options, 'arguments'), signal),
      pdf: (targetId) => service.pdf(profile, targetId, signal),
      console: (options = {}) => service.console(profile, options),
      text: (options = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.textQuery, options, 'arguments');
        return service.text(profile, checked, signal);
      },
      snapshot: async (options: SnapshotRequest = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.snapshotQuery, options, 'arguments');
        return (await service.snapshot(profile, checked, signal)) as AiSnapshotResponse;
      },
      act: (action: ActionRequest, options?: ActOptions) => service.act(profile, validated(ActionSchema, action, 'arguments'), signal, { ...options, wait: true }),
      fileChooser: (options: RequestOf<'fileChooser'>) => service.fileChooser(profile, validated(schemas.fileChooser, options, 'arguments'), signal),
      dialog: (options: RequestOf<'dialog'>) => service.armDialog(profile, validated(schemas.dialog, options, 'arguments'), signal),
      downloads: async () => service.downloads(profile),
      record: (request) => service.record(profile, request),
      script: async (query = {}) => {
        const { profile: _ignored, ...checked } = validated(schemas.scriptQuery, query, 'arguments');
        return service.script(profile, checked);
      },
      toolbox: service.toolbox.api(profile, signal),
      vision: service.vision.api(profile, signal),
      pageTools: service.pageTools.api(profile, signal),
      // A session's key's routines are its own (its key's MCP is the locked API of its profile).
      teach: service.teaching.api(profile, signal, options.locked && profile?.startsWith(SESSION_PROFILE_PREFIX) ? profile.slice(SESSION_PROFILE_PREFIX.length) : undefined),
      handoff: (request, wait = {}) =>
        service.handoffs.openAndWait(profile, validated(schemas.handoff, request, 'arguments'), service.handoffLink(), wait.signal ?? signal, wait.onWaiting),
      browse: (request, how = {}) => service.browseRunner(request, { profile, locked: options.locked ?? false }, { ...how, signal: how.signal ?? signal }),
      // A scoped caller (a session's key) reaches its own profile's hand-offs only: find() says so first.
      handoffView: async (id) => {
        const handoff = await service.handoffs.state(profile, id, 0);
        const jpeg = handoff.state === 'waiting' ? await service.manager.driver(handoff.profile).thumbnail(handoff.targetId) : undefined;
        return { handoff, ...(jpeg ? { frame: { mimeType: 'image/jpeg' as const, data: jpeg.toString('base64') } } : {}) };
      },
      // Through the agent's own connection (an MCP App's view): the agent's input and answer, never a person's yes.
      handoffInput: async (id, input) => {
        service.handoffs.find(profile, id);
        return service.handoffs.input(id, validated(schemas.handoffInput, input, 'arguments'), signal, 'agent');
      },
      answerHandoff: async (id, answer) => {
        service.handoffs.find(profile, id);
        return service.handoffs.answer(id, validated(schemas.handoffAnswer, answer, 'arguments'), 'agent');
      },
    }, { redact: (answer) => service.manager.secretsOf(profile)?.redactDeep(answer) ?? answer, agent: options.agent });
  }
}
