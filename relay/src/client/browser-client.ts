import type { ToolboxApi } from '../api/toolbox-api.js';
import { toolboxClient } from './toolbox-client.js';
import type { VisionApi } from '../api/vision-api.js';
import { visionClient } from './vision-client.js';
import type { PageToolsApi } from '../api/page-tools-api.js';
import { pageToolsClient } from './page-tools-client.js';
import type { TeachApi } from '../api/teach-api.js';
import { teachClient } from './teach-client.js';
import { type VideoClient, videoClient } from './video-client.js';
import type { RecordingsApi } from '../api/recordings-api.js';
import { type ChromeClient, chromeClient } from './chrome-client.js';
import { browseOver } from './browse-client.js';
import type { BrowseOptions, BrowseRequest, BrowseResult } from '../api/browse-schemas.js';
import { knownControlUrl } from '../config/server-record.js';
import { clawdHome, readToken } from '../config/state-dir.js';
import { TimeoutError, UnavailableError } from '../errors.js';
import { type ControlResponse, type Credential, readAnswer, send } from './control-http.js';
import { AGENT_HEADER, MAX_WAIT_MS, sessionIdOf } from '../api/limits.js';
import type { RouteKey } from '../api/routes.js';
import { type RouteAnswer, type RouteArgs, type RouteInput, routeTarget, type WireInput } from './route-call.js';
import { answerAfterYes } from './after-yes.js';
import { ActShorthands } from './act-shorthands.js';
import type { ActOptions, BrowserApi, HandoffView, HandoffWaitOptions, SnapshotRequest } from '../api/browser-api.js';
import type { ActionRequest, QueryOf, RequestOf } from '../api/schemas.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import type { ActionResult, AiSnapshotResponse, AriaSnapshotResponse, NetworkBody, Snapshot, Tab } from '../api/responses.js';

// The typed errors travel with the client: `import { BrowserClient, NotFoundError } from 'clawd-browser'`.
export * from '../errors.js';

/**
 * The typed client for the control API. The CLI is built on it; agents in
 * TypeScript use it directly. Failures are thrown as the typed errors of
 * ../errors.ts (NotFoundError, AmbiguousError, DisabledError, UnauthorizedError,
 * TimeoutError, …), the same classes the server throws.
 */

// The request and response types, from the server's own schemas and shapes.
export type * from '../api/responses.js';
export type * from '../api/session-responses.js';
export type { ActionOptions, ActionRequest, QueryOf, RequestOf } from '../api/schemas.js';
export type * from '../api/browser-api.js';
export type { BrowseEvent, BrowseOptions, BrowseRequest, BrowseResult, BrowseStart, BrowseStep } from '../api/browse-schemas.js';
export type { RouteAnswer, RouteCall, RouteInput } from './route-call.js';
export type { RouteKey } from '../api/routes.js';

export interface BrowserClientOptions {
  /** e.g. http://127.0.0.1:18791; or how to find it, once, at the first request. */
  baseUrl: string | (() => Promise<string>);
  token: string;
  /** Sent as ?profile= on every call; the server's defaultProfile otherwise. */
  profile?: string;
  timeoutMs?: number;
  /** Aborts every call of this client: the request is dropped, and the server stops the work (see withSignal). */
  signal?: AbortSignal;
  /**
   * The agent this client acts for (`x-clawd-agent`): its requests without
   * targetId mean its own tabs, never another agent's last used one.
   */
  agent?: string;
  /** What `token` is, for the answer when a server refuses it (local() says: this home's token, or a session's key). */
  credential?: Credential;
}

/** The longest a server-side wait may take (MAX_WAIT_MS), and time to answer after it. */
const DEFAULT_TIMEOUT_MS = MAX_WAIT_MS + 10_000;

export class BrowserClient extends ActShorthands implements BrowserApi {
  /** Emulation, network routes, init scripts, storage (toolbox-client.ts). */
  readonly toolbox: ToolboxApi = toolboxClient(this.call.bind(this));
  /** Labelled screenshots and computer use (vision-client.ts). */
  readonly vision: VisionApi = visionClient(this.call.bind(this));
  /** The tools pages offer agents, WebMCP (page-tools-client.ts). */
  readonly pageTools: PageToolsApi = pageToolsClient(this.call.bind(this));
  /** A person's demonstrations, routines, notes (teach-client.ts). */
  readonly teach: TeachApi = teachClient(this.call.bind(this));
  /** Films of a tab or of the whole profile (video-client.ts). */
  readonly video: VideoClient = videoClient(this.call.bind(this));
  /** The network log, HAR, traces and films, as BrowserApi has them (api/recordings-api.ts): the methods below. */
  readonly recordings: RecordingsApi = {
    networkRecord: (on, targetId) => this.networkRecord(on, targetId),
    network: (query) => this.network(query),
    networkBody: (id, targetId, part) => this.networkBody(id, targetId, part),
    har: (request) => this.har(request),
    traceStart: () => this.traceStart(),
    traceStop: (request) => this.traceStop(request),
    videoStart: (request) => this.video.start(request),
    videoStop: (request) => this.video.stop(request),
  };
  /** The person's own Chrome, attached through its remote-debugging consent (chrome-client.ts). */
  readonly chrome: ChromeClient = chromeClient(this.call.bind(this));

  constructor(private readonly options: BrowserClientOptions) {
    super();
  }

  /**
   * The local server, as `clawd-browser serve` runs it for $CLAWD_HOME, with
   * the home's token; or, given `key`, with a task session's own key, which
   * reaches that session only (its routes then mean it when no profile is named).
   */
  static local(options: { profile?: string; home?: string; url?: string; key?: string; timeoutMs?: number; agent?: string } = {}): BrowserClient {
    const home = options.home ?? clawdHome();
    // `url` (the CLI's --url), else CLAWD_URL, else where this home's server listens (server.json), else config.json:
    // read at the first request, and only then, since reading it takes the config's schema (a command's start pays for it).
    const baseUrl =
      options.url?.replace(/\/+$/, '') ?? knownControlUrl(home) ?? (async () => (await import('../config/server-address.js')).controlUrlFor(home));
    if (options.key)
      return new BrowserClient({
        baseUrl,
        token: options.key,
        profile: options.profile,
        timeoutMs: options.timeoutMs,
        agent: options.agent,
        credential: { kind: 'session key' },
      });
    // Constructing a client writes nothing: with no token yet, no server has run, and the first request says so.
    const token = readToken(home);
    return new BrowserClient({
      baseUrl,
      token: token ?? '',
      profile: options.profile,
      timeoutMs: options.timeoutMs,
      agent: options.agent,
      credential: { kind: 'home token', home, made: token !== undefined },
    });
  }

  withProfile(profile: string): BrowserClient {
    return new BrowserClient({ ...this.options, profile });
  }

  /**
   * The same client, its calls cancelled by `signal`: the HTTP request is
   * dropped, and the server stops what it was doing for it (a wait stops
   * looking, a navigation is stopped, a waiting hook disarmed). The call
   * rejects with the signal's reason.
   */
  withSignal(signal: AbortSignal): BrowserClient {
    return new BrowserClient({ ...this.options, signal });
  }

  status() {
    return this.call('GET /');
  }
  start() {
    return this.call('POST /start');
  }
  stop() {
    return this.call('POST /stop');
  }
  resetProfile() {
    return this.call('POST /reset-profile');
  }
  profiles() {
    return this.call('GET /profiles');
  }
  createProfile(request: RequestOf<'createProfile'>) {
    return this.call('POST /profiles/create', { body: request });
  }
  deleteProfile(name: string) {
    return this.call('DELETE /profiles/:name', { params: { name } });
  }
  async tabs(): Promise<Tab[]> {
    return (await this.tabList()).tabs;
  }
  tabList() {
    return this.call('GET /tabs');
  }
  openTab(url = 'about:blank') {
    return this.call('POST /tabs/open', { body: { url } });
  }
  focusTab(targetId: string) {
    return this.call('POST /tabs/focus', { body: { targetId } });
  }
  async closeTab(targetId: string): Promise<Tab> {
    return (await this.call('DELETE /tabs/:targetId', { params: { targetId } })).closed;
  }
  navigate(url: string, targetId?: string) {
    return this.call('POST /navigate', { body: { url, targetId } });
  }
  screenshot(options: RequestOf<'screenshot'> = {}) {
    return this.call('POST /screenshot', { body: options });
  }
  pdf(targetId?: string) {
    return this.call('POST /pdf', { body: { targetId } });
  }
  console(options: { targetId?: string; level?: string } = {}) {
    return this.call('GET /console', { query: options });
  }

  /** The page outline with refs (`format: 'ai'`), or the raw accessibility tree (`'aria'`). */
  snapshot(options?: SnapshotRequest & { format?: 'ai' }): Promise<AiSnapshotResponse>;
  snapshot(options: { targetId?: string; format: 'aria'; limit?: number }): Promise<AriaSnapshotResponse>;
  snapshot(options: SnapshotRequest): Promise<Snapshot>;
  snapshot(options: SnapshotRequest = {}): Promise<Snapshot> {
    return this.call('GET /snapshot', { query: options });
  }
  /** `GET /text`: the page's readable content as Markdown (or one element's, by ref or selector). */
  text(options: Omit<QueryOf<'textQuery'>, 'profile'> = {}) {
    return this.call('GET /text', { query: options });
  }
  /**
   * Any `POST /act` action; the helpers below are shorthands. An act a confirm rule names waits for a
   * person's yes (asked with `person`, or where a person is reachable): this waits with it, through its
   * hand-off, and answers with the act's own answer; a no is a ConflictError naming the rule.
   */
  async act(action: ActionRequest, options: ActOptions = {}): Promise<ActionResult> {
    const answer = await this.call('POST /act', { body: action, query: { diff: options.diffMaxChars, person: options.person } });
    if (!answer.confirmation) return answer;
    try {
      return await answerAfterYes<ActionResult>(this.call.bind(this), answer.confirmation, options.onConfirmation);
    } catch (error) {
      // Stopped waiting (this client's signal): the ask is withdrawn, so nothing runs later unseen.
      if (this.options.signal?.aborted) await new BrowserClient({ ...this.options, signal: undefined }).cancelHandoff(answer.confirmation.id).catch(() => {});
      throw error;
    }
  }
  /** Uploads: set an input directly (inputRef/element), click `ref` and fill the chooser, or arm for the next chooser. */
  /** `paths` must be inside the server's upload folders; `files` carries contents inline (base64). */
  fileChooser(options: RequestOf<'fileChooser'>) {
    return this.call('POST /hooks/file-chooser', { body: options });
  }
  /** Arms the answer to the tab's next alert/confirm/prompt. */
  dialog(options: RequestOf<'dialog'>) {
    return this.call('POST /hooks/dialog', { body: options });
  }

  // ---- task sessions, grants, the cookie vault (spec §11) -----------------

  /** A fresh browser for one task; its routes take `profile: session.profile` (withProfile). */
  openSession(request: RequestOf<'openSession'>) {
    return this.call('POST /sessions', { body: request });
  }
  sessions() {
    return this.call('GET /sessions');
  }
  /** `id` is the session's id, or its profile name (`session-<id>`). */
  closeSession(id: string) {
    return this.call('DELETE /sessions/:id', { params: { id: sessionIdOf(id) } });
  }
  /** `POST /sessions/{id}/approvals`: the acts of a confirm rule run in this session without a person's yes (the main token only); `id` as for closeSession. */
  approveRule(id: string, rule: string) {
    return this.call('POST /sessions/:id/approvals', { params: { id: sessionIdOf(id) }, body: { rule } });
  }
  /** Gives a session `ttl` seconds from now; `id` as for closeSession. */
  extendSession(id: string, ttl: number) {
    return this.call('POST /sessions/:id/extend', { params: { id: sessionIdOf(id) }, body: { ttl } });
  }
  /** Grants that can still be used, and the sessions that used each. */
  grants() {
    return this.call('GET /grants');
  }
  /** The audit log, newest first; pass an answer's `next` as `before` for the page after. */
  audit(query: RouteInput<'GET /audit'>['query'] = {}) {
    return this.call('GET /audit', { query });
  }
  /** A signed grant: lends the tenant's cookies of these domains to operator sessions until it expires (ttl in seconds). */
  issueGrant(request: RequestOf<'issueGrant'>) {
    return this.call('POST /grants', { body: request });
  }
  revokeGrant(id: string) {
    return this.call('DELETE /grants/:id', { params: { id } });
  }
  /** What the vault holds: tenants, domains, dates, counts; never a value. */
  vault(tenant?: string) {
    return this.call('GET /vault', { query: { tenant } });
  }
  /** `POST /secrets`: the value goes in; what comes back names the secret, never its value. */
  setSecret(request: RequestOf<'setSecret'>) {
    return this.call('POST /secrets', { body: request });
  }
  secrets(tenant?: string) {
    return this.call('GET /secrets', { query: { tenant } });
  }
  forgetSecret(tenant: string, name?: string) {
    return this.call('DELETE /secrets', { query: { tenant, name } });
  }
  vaultForget(tenant: string, domain?: string) {
    return this.call('DELETE /vault', { query: { tenant, domain } });
  }
  /** Opens a session a person logs in with; vaultRefreshDone saves its cookies and ends it. */
  vaultRefresh(request: RequestOf<'vaultRefresh'>) {
    return this.call('POST /vault/refresh', { body: request });
  }
  vaultRefreshDone(id: string, domains?: string[]) {
    return this.call('POST /vault/refresh/:id/done', { params: { id }, body: domains ? { domains } : {} });
  }

  /** Saves cookies of the user's own browser: the person confirms the domains in the extension first. */
  vaultFromExtension(request: RequestOf<'vaultFromExtension'>) {
    return this.call('POST /vault/from-extension', { body: request });
  }

  /** A one-time link that opens the dashboard in a browser (it works once, within a minute). */
  dashboardLink() {
    return this.call('POST /dashboard/link');
  }

  /** The action log's recent records (all profiles unless this client has one), newest last. */
  actions(options: { limit?: number } = {}) {
    return this.call('GET /actions', { query: options });
  }

  /** What the profile's tabs downloaded, and where the files are. */
  downloads() {
    return this.call('GET /downloads');
  }

  // ---- a record of what happened: network log, HAR, trace ------------------

  /** Starts (on) or stops a tab's network log. */
  networkRecord(on: boolean, targetId?: string) {
    return this.call('POST /network/record', { body: { on, targetId } });
  }
  /** A tab's network log, filtered; `secrets` shows credential headers (the token only). */
  network(query: RouteInput<'GET /network'>['query'] = {}) {
    return this.call('GET /network', { query });
  }
  /** A response body as the browser still holds it, or (`part: 'request'`) the request's own (base64, capped at 1 MiB). */
  networkBody(id: number, targetId?: string, part: NetworkBody['part'] = 'response') {
    return this.call('GET /network/body', { query: { id, targetId, part } });
  }
  /** Writes the tab's (or, with all, the profile's) network log as HAR 1.2 under $CLAWD_HOME/recordings. */
  har(request: RequestOf<'har'> = {}) {
    return this.call('POST /network/har', { body: request });
  }
  traceStart() {
    return this.call('POST /trace/start');
  }
  /** Writes the trace (a zip for `npx playwright show-trace`) and the action log entries beside it. */
  traceStop(request: RequestOf<'traceStop'> = {}) {
    return this.call('POST /trace/stop', { body: request });
  }
  /** `GET /script`: recorded steps as a Playwright test. */
  script(query: Omit<RequestOf<'scriptQuery'>, 'profile'> = {}) {
    return this.call('GET /script', { query });
  }
  // ---- hand-offs to a person

  /** `POST /handoff`: answers at once, with the person's one-time link. */
  openHandoff(request: RequestOf<'handoff'>) {
    return this.call('POST /handoff', { body: request });
  }
  /** `GET /handoff/{id}`, held up to `waitSec` (at most 60) for the person's answer. */
  handoffState(id: string, waitSec = 0) {
    return this.call('GET /handoff/:id', { params: { id }, query: { wait: waitSec } });
  }
  /** `GET /handoffs`: those waiting for a person, oldest first. */
  handoffs() {
    return this.call('GET /handoffs');
  }
  /** A hand-off and, while it waits, its tab's picture now (the hand-off's MCP App shows it). */
  async handoffView(id: string): Promise<HandoffView> {
    const handoff = await this.handoffState(id);
    if (handoff.state !== 'waiting') return { handoff };
    const frame = await this.bytes('GET /screencast/frame', { query: { profile: handoff.profile, targetId: handoff.targetId } });
    return { handoff, ...(frame.length ? { frame: { mimeType: 'image/jpeg', data: frame.toString('base64') } } : {}) };
  }
  /** `POST /handoff/{id}/input`: the person's input on the hand-off's tab. */
  handoffInput(id: string, input: RequestOf<'handoffInput'>) {
    return this.call('POST /handoff/:id/input', { params: { id }, body: input });
  }
  /** `POST /handoff/{id}/answer`: the person's answer. */
  answerHandoff(id: string, answer: RequestOf<'handoffAnswer'>) {
    return this.call('POST /handoff/:id/answer', { params: { id }, body: answer });
  }
  cancelHandoff(id: string) {
    return this.call('DELETE /handoff/:id', { params: { id } });
  }
  /** Opens a hand-off and waits for its end, a minute per request; aborting `signal` (or this client's) cancels it. */
  async handoff(request: RequestOf<'handoff'>, options: HandoffWaitOptions = {}): Promise<HandoffAnswer> {
    let handoff = await this.openHandoff(request);
    options.onWaiting?.(handoff);
    const waiting = options.signal ? this.withSignal(options.signal) : this;
    try {
      while (handoff.state === 'waiting') handoff = await waiting.handoffState(handoff.id, 60);
      return handoff;
    } catch (error) {
      if (options.signal?.aborted || this.options.signal?.aborted)
        await new BrowserClient({ ...this.options, signal: undefined }).cancelHandoff(handoff.id).catch(() => {});
      throw error;
    }
  }

  // ---- the browse runtime (spec §24)

  /** Runs the agent loop for a goal against a configured model (`POST /browse`); `onEvent` hears each step. */
  async browse(request: BrowseRequest, options: BrowseOptions = {}): Promise<BrowseResult> {
    return browseOver({ ...this.options, baseUrl: await this.baseUrl() }, request, options);
  }
  /** Runs in progress. */
  browseRuns() {
    return this.call('GET /browse');
  }
  /** Cancels a run by its id (the start event's `run`). */
  cancelBrowse(run: string) {
    return this.call('DELETE /browse/:run', { params: { run } });
  }

  /**
   * Any route of the table (api/routes.ts) by its key, with the input its schemas take and the answer its
   * schema gives: `call('DELETE /tabs/:targetId', { params: { targetId } })`. Query values are sent as text
   * (a number as its digits, a flag as true/false), undefined ones left out; path parameters are encoded.
   */
  async call<K extends RouteKey>(key: K, ...[input]: RouteArgs<K>): Promise<RouteAnswer<K>> {
    const baseUrl = await this.baseUrl();
    return readAnswer<RouteAnswer<K>>(await this.request(baseUrl, key, input as WireInput | undefined), { baseUrl, credential: this.options.credential });
  }

  /** A route answered with bytes (a picture): empty when the server has none to give (204). */
  private async bytes<K extends RouteKey>(key: K, ...[input]: RouteArgs<K>): Promise<Buffer> {
    const baseUrl = await this.baseUrl();
    const response = await this.request(baseUrl, key, input as WireInput | undefined);
    if (response.status >= 400) readAnswer(response, { baseUrl, credential: this.options.credential });
    return response.bytes;
  }

  /** The server's address: as given, or found at the first request (and kept). */
  private baseUrl(): Promise<string> {
    const { baseUrl } = this.options;
    return (this.foundBaseUrl ??= typeof baseUrl === 'string' ? Promise.resolve(baseUrl) : baseUrl());
  }
  private foundBaseUrl?: Promise<string>;

  private async request(baseUrl: string, key: RouteKey, input: WireInput = {}): Promise<ControlResponse> {
    const { method, path } = routeTarget(key, input.params);
    const url = new URL(path, baseUrl);
    // This client's profile; a client of none, the one the call names (a hand-off's tab), else the server's default.
    for (const [name, value] of Object.entries({ ...input.query, profile: this.options.profile ?? input.query?.profile })) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const { body } = input;
    try {
      const headers = {
        authorization: `Bearer ${this.options.token}`,
        ...(this.options.agent ? { [AGENT_HEADER]: this.options.agent } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      return await send(
        url,
        method,
        headers,
        body !== undefined ? JSON.stringify(body) : undefined,
        this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        this.options.signal,
      );
    } catch (error) {
      if (this.options.signal?.aborted) throw this.options.signal.reason;
      if (error instanceof TimeoutError) throw new TimeoutError(`${method} ${path} timed out`);
      throw new UnavailableError(`Cannot reach the control API at ${baseUrl}: is \`clawd-browser serve\` running? (${(error as Error).message})`);
    }
  }
}
