import type { ToolboxApi } from '../api/toolbox-api.js';
import { toolboxClient } from './toolbox-client.js';
import type { VisionApi } from '../api/vision-api.js';
import { visionClient } from './vision-client.js';
import type { PageToolsApi } from '../api/page-tools-api.js';
import { pageToolsClient } from './page-tools-client.js';
import type { TeachApi } from '../api/teach-api.js';
import { teachClient } from './teach-client.js';
import { type VideoClient, videoClient } from './video-client.js';
import { type ChromeClient, chromeClient } from './chrome-client.js';
import { browseOver } from './browse-client.js';
import type { BrowseOptions, BrowseRequest, BrowseResult } from '../api/browse-schemas.js';
import { knownControlUrl } from '../config/server-record.js';
import { clawdHome, readToken } from '../config/state-dir.js';
import { BadRequestError, errorFromBody, TimeoutError, UnavailableError } from '../errors.js';
import { type ControlResponse, type Credential, readAnswer, send } from './control-http.js';
import { AGENT_HEADER, MAX_WAIT_MS, sessionIdOf } from '../api/limits.js';
import type { ActOptions, BrowserApi, HandoffView, HandoffWaitOptions, RecordRequest, SnapshotRequest } from '../api/browser-api.js';
import type { DialogArmed, FileChooserAnswer, PlaywrightScript, ViewInputAnswer } from '../api/responses.js';
import type { ActionOptions, ActionRequest, RequestOf } from '../api/schemas.js';
import type { ActionRecord, AuditEntry, AuditEventKind, HandoffAnswer, IssuedGrant, LiveGrant, SecretListing, SessionInfo, SpareCounts, VaultListing } from '../api/session-responses.js';
import type { ActionResult, PageTextResponse, AiSnapshotResponse, AriaSnapshotResponse, Capture, ConsoleMessage, DownloadRecord, ProfileSummary, Screenshot, Snapshot, Status, RecordingAnswer, NetworkBody, Tab, TabList } from '../api/responses.js';

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
export type { ActionOptions, ActionRequest, RequestOf } from '../api/schemas.js';
export type * from '../api/browser-api.js';
export type { BrowseEvent, BrowseOptions, BrowseRequest, BrowseResult, BrowseStart, BrowseStep } from '../api/browse-schemas.js';

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

export class BrowserClient implements BrowserApi {
  /** Emulation, network routes, init scripts, storage (toolbox-client.ts). */
  readonly toolbox: ToolboxApi = toolboxClient((method, path, body, query) => this.call(method, path, body, query));
  /** Labelled screenshots and computer use (vision-client.ts). */
  readonly vision: VisionApi = visionClient((method, path, body, query) => this.call(method, path, body, query));
  /** The tools pages offer agents, WebMCP (page-tools-client.ts). */
  readonly pageTools: PageToolsApi = pageToolsClient((method, path, body, query) => this.call(method, path, body, query));
  /** A person's demonstrations, routines, notes (teach-client.ts). */
  readonly teach: TeachApi = teachClient((method, path, body, query) => this.call(method, path, body, query));
  /** Films of a tab or of the whole profile (video-client.ts). */
  readonly video: VideoClient = videoClient((method, path, body, query) => this.call(method, path, body, query));
  /** The person's own Chrome, attached through its remote-debugging consent (chrome-client.ts). */
  readonly chrome: ChromeClient = chromeClient((method, path, body, query) => this.call(method, path, body, query));

  constructor(private readonly options: BrowserClientOptions) {}

  /**
   * The local server, as `clawd-browser serve` runs it for $CLAWD_HOME, with
   * the home's token; or, given `key`, with a task session's own key, which
   * reaches that session only (its routes then mean it when no profile is named).
   */
  static local(options: { profile?: string; home?: string; url?: string; key?: string; timeoutMs?: number; agent?: string } = {}): BrowserClient {
    const home = options.home ?? clawdHome();
    // `url` (the CLI's --url), else CLAWD_URL, else where this home's server listens (server.json), else config.json:
    // read at the first request, and only then, since reading it takes the config's schema (a command's start pays for it).
    const baseUrl = options.url?.replace(/\/+$/, '') ?? knownControlUrl(home) ?? (async () => (await import('../config/server-address.js')).controlUrlFor(home));
    if (options.key) return new BrowserClient({ baseUrl, token: options.key, profile: options.profile, timeoutMs: options.timeoutMs, agent: options.agent, credential: { kind: 'session key' } });
    // Constructing a client writes nothing: with no token yet, no server has run, and the first request says so.
    const token = readToken(home);
    return new BrowserClient({ baseUrl, token: token ?? '', profile: options.profile, timeoutMs: options.timeoutMs, agent: options.agent, credential: { kind: 'home token', home, made: token !== undefined } });
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

  status(): Promise<Status> {
    return this.call('GET', '/');
  }
  start(): Promise<Status> {
    return this.call('POST', '/start');
  }
  stop(): Promise<Status> {
    return this.call('POST', '/stop');
  }
  resetProfile(): Promise<{ profile: string; killed: number[] }> {
    return this.call('POST', '/reset-profile');
  }
  profiles(): Promise<{ profiles: ProfileSummary[]; defaultProfile: string }> {
    return this.call('GET', '/profiles');
  }
  createProfile(request: RequestOf<'createProfile'>): Promise<ProfileSummary> {
    return this.call('POST', '/profiles/create', request);
  }
  deleteProfile(name: string): Promise<{ deleted: ProfileSummary }> {
    return this.call('DELETE', `/profiles/${encodeURIComponent(name)}`);
  }
  async tabs(): Promise<Tab[]> {
    return (await this.tabList()).tabs;
  }
  tabList(): Promise<TabList> {
    return this.call('GET', '/tabs');
  }
  openTab(url = 'about:blank'): Promise<Tab> {
    return this.call('POST', '/tabs/open', { url });
  }
  focusTab(targetId: string): Promise<Tab> {
    return this.call('POST', '/tabs/focus', { targetId });
  }
  async closeTab(targetId: string): Promise<Tab> {
    return (await this.call<{ closed: Tab }>('DELETE', `/tabs/${encodeURIComponent(targetId)}`)).closed;
  }
  navigate(url: string, targetId?: string): Promise<Tab> {
    return this.call('POST', '/navigate', { url, targetId });
  }
  screenshot(options: RequestOf<'screenshot'> = {}): Promise<Screenshot> {
    return this.call('POST', '/screenshot', options);
  }
  pdf(targetId?: string): Promise<Capture> {
    return this.call('POST', '/pdf', { targetId });
  }
  console(options: { targetId?: string; level?: string } = {}): Promise<{ targetId: string; messages: ConsoleMessage[]; fence?: string }> {
    return this.call('GET', '/console', undefined, options);
  }

  /** The page outline with refs (`format: 'ai'`), or the raw accessibility tree (`'aria'`). */
  snapshot(options?: SnapshotRequest & { format?: 'ai' }): Promise<AiSnapshotResponse>;
  snapshot(options: { targetId?: string; format: 'aria'; limit?: number }): Promise<AriaSnapshotResponse>;
  snapshot(options: SnapshotRequest): Promise<Snapshot>;
  snapshot(options: SnapshotRequest = {}): Promise<Snapshot> {
    return this.call('GET', '/snapshot', undefined, options);
  }
  /** `GET /text`: the page's readable content as Markdown (or one element's, by ref or selector). */
  text(options: Omit<RequestOf<'textQuery'>, 'profile'> = {}): Promise<PageTextResponse> {
    return this.call('GET', '/text', undefined, options);
  }
  /**
   * Any `POST /act` action; the helpers below are shorthands. An act a confirm rule names waits for a
   * person's yes (asked with `person`, or where a person is reachable): this waits with it, through its
   * hand-off, and answers with the act's own answer; a no is a ConflictError naming the rule.
   */
  async act(action: ActionRequest, options: ActOptions = {}): Promise<ActionResult> {
    const answer = await this.call<ActionResult>('POST', '/act', action, { diff: options.diffMaxChars, person: options.person });
    if (!answer.confirmation) return answer;
    options.onConfirmation?.(answer.confirmation);
    let handoff: HandoffAnswer;
    try {
      handoff = await this.handoffState(answer.confirmation.id, 60);
      while (handoff.state === 'waiting') handoff = await this.handoffState(handoff.id, 60);
    } catch (error) {
      // Stopped waiting (this client's signal): the ask is withdrawn, so nothing runs later unseen.
      if (this.options.signal?.aborted) await new BrowserClient({ ...this.options, signal: undefined }).cancelHandoff(answer.confirmation.id).catch(() => {});
      throw error;
    }
    if (handoff.act) return handoff.act as ActionResult;
    throw errorFromBody(409, { error: handoff.actError ?? { code: 'conflict', message: `Not done: the hand-off for a person's yes ended ${handoff.state}` } });
  }
  click(ref: string, options: Omit<ActionOptions<'click'>, 'ref' | 'x' | 'y'> = {}) {
    return this.act({ kind: 'click', ref, ...options });
  }
  clickAt(x: number, y: number, options: Omit<ActionOptions<'click'>, 'ref' | 'x' | 'y'> = {}) {
    return this.act({ kind: 'click', x, y, ...options });
  }
  type(ref: string, text: string, options: Omit<ActionOptions<'type'>, 'ref' | 'text'> = {}) {
    return this.act({ kind: 'type', ref, text, ...options });
  }
  press(key: string, options: Omit<ActionOptions<'press'>, 'key'> = {}) {
    return this.act({ kind: 'press', key, ...options });
  }
  hover(ref: string, options: Omit<ActionOptions<'hover'>, 'ref'> = {}) {
    return this.act({ kind: 'hover', ref, ...options });
  }
  drag(startRef: string, endRef: string, options: Pick<ActionOptions<'drag'>, 'targetId' | 'steps'> = {}) {
    return this.act({ kind: 'drag', startRef, endRef, ...options });
  }
  // Where a ref cannot serve (spec §26): points are CSS pixels of the viewport, as a screenshot of it shows them.
  /** A drag between two points of the page, in `steps` mousemove events (default: about one per 8 pixels). */
  dragAt(from: { x: number; y: number }, to: { x: number; y: number }, options: Pick<ActionOptions<'drag'>, 'targetId' | 'steps'> = {}) {
    return this.act({ kind: 'drag', x: from.x, y: from.y, endX: to.x, endY: to.y, ...options });
  }
  move(x: number, y: number, options: Omit<ActionOptions<'move'>, 'x' | 'y'> = {}) {
    return this.act({ kind: 'move', x, y, ...options });
  }
  /** A mouse button pressed (at x,y, or where the mouse is). */
  mouseDown(options: ActionOptions<'mousedown'> = {}) {
    return this.act({ kind: 'mousedown', ...options });
  }
  mouseUp(options: ActionOptions<'mouseup'> = {}) {
    return this.act({ kind: 'mouseup', ...options });
  }
  scroll(deltaX: number, deltaY: number, options: Omit<ActionOptions<'scroll'>, 'deltaX' | 'deltaY'> = {}) {
    return this.act({ kind: 'scroll', deltaX, deltaY, ...options });
  }
  /** Text selected as a person drags across it: `text` where the page shows it first (in the element of `ref`, with one), or all of `ref`'s text. */
  selectText(options: Pick<ActionOptions<'select-text'>, 'text' | 'ref' | 'targetId'>) {
    return this.act({ kind: 'select-text', ...options });
  }
  /** Text selected by a drag between two points. */
  selectTextAt(from: { x: number; y: number }, to: { x: number; y: number }, options: Pick<ActionOptions<'select-text'>, 'targetId'> = {}) {
    return this.act({ kind: 'select-text', x: from.x, y: from.y, endX: to.x, endY: to.y, ...options });
  }
  select(ref: string, values: string[], options: Omit<ActionOptions<'select'>, 'ref' | 'values'> = {}) {
    return this.act({ kind: 'select', ref, values, ...options });
  }
  fill(fields: ActionOptions<'fill'>['fields'], options: Omit<ActionOptions<'fill'>, 'fields'> = {}) {
    return this.act({ kind: 'fill', fields, ...options });
  }
  wait(options: ActionOptions<'wait'>) {
    return this.act({ kind: 'wait', ...options });
  }
  resize(width: number, height: number, options: Omit<ActionOptions<'resize'>, 'width' | 'height'> = {}) {
    return this.act({ kind: 'resize', width, height, ...options });
  }
  evaluate(fn: string, options: Omit<ActionOptions<'evaluate'>, 'fn'> = {}) {
    return this.act({ kind: 'evaluate', fn, ...options });
  }
  /** Uploads: set an input directly (inputRef/element), click `ref` and fill the chooser, or arm for the next chooser. */
  /** `paths` must be inside the server's upload folders; `files` carries contents inline (base64). */
  fileChooser(options: RequestOf<'fileChooser'>): Promise<FileChooserAnswer> {
    return this.call('POST', '/hooks/file-chooser', options);
  }
  /** Arms the answer to the tab's next alert/confirm/prompt. */
  dialog(options: RequestOf<'dialog'>): Promise<DialogArmed> {
    return this.call('POST', '/hooks/dialog', options);
  }

  // ---- task sessions, grants, the cookie vault (spec §11) -----------------

  /** A fresh browser for one task; its routes take `profile: session.profile` (withProfile). */
  openSession(request: RequestOf<'openSession'>): Promise<SessionInfo> {
    return this.call('POST', '/sessions', request);
  }
  sessions(): Promise<{ sessions: SessionInfo[]; spares: SpareCounts }> {
    return this.call('GET', '/sessions');
  }
  /** `id` is the session's id, or its profile name (`session-<id>`). */
  closeSession(id: string): Promise<{ closed: SessionInfo }> {
    return this.call('DELETE', `/sessions/${encodeURIComponent(sessionIdOf(id))}`);
  }
  /** `POST /sessions/{id}/approvals`: the acts of a confirm rule run in this session without a person's yes (the main token only); `id` as for closeSession. */
  approveRule(id: string, rule: string): Promise<{ session: string; approved: string[] }> {
    return this.call('POST', `/sessions/${encodeURIComponent(sessionIdOf(id))}/approvals`, { rule });
  }
  /** Gives a session `ttl` seconds from now; `id` as for closeSession. */
  extendSession(id: string, ttl: number): Promise<{ extended: SessionInfo }> {
    return this.call('POST', `/sessions/${encodeURIComponent(sessionIdOf(id))}/extend`, { ttl });
  }
  /** Grants that can still be used, and the sessions that used each. */
  grants(): Promise<{ grants: LiveGrant[] }> {
    return this.call('GET', '/grants');
  }
  /** The audit log, newest first; pass an answer's `next` as `before` for the page after. */
  audit(query: { tenant?: string; session?: string; event?: AuditEventKind; before?: number; limit?: number } = {}): Promise<{ entries: Array<AuditEntry & { position: number }>; next?: number }> {
    return this.call('GET', '/audit', undefined, query);
  }
  /** A signed grant: lends the tenant's cookies of these domains to operator sessions until it expires (ttl in seconds). */
  issueGrant(request: RequestOf<'issueGrant'>): Promise<IssuedGrant> {
    return this.call('POST', '/grants', request);
  }
  revokeGrant(id: string): Promise<{ revoked: string }> {
    return this.call('DELETE', `/grants/${encodeURIComponent(id)}`);
  }
  /** What the vault holds: tenants, domains, dates, counts; never a value. */
  vault(tenant?: string): Promise<{ entries: VaultListing[] }> {
    return this.call('GET', '/vault', undefined, { tenant });
  }
  /** `POST /secrets`: the value goes in; what comes back names the secret, never its value. */
  setSecret(request: RequestOf<'setSecret'>): Promise<SecretListing> {
    return this.call('POST', '/secrets', request);
  }
  secrets(tenant?: string): Promise<{ secrets: SecretListing[] }> {
    return this.call('GET', '/secrets', undefined, { tenant });
  }
  forgetSecret(tenant: string, name?: string): Promise<{ forgotten: SecretListing[] }> {
    return this.call('DELETE', '/secrets', undefined, { tenant, name });
  }
  vaultForget(tenant: string, domain?: string): Promise<{ forgotten: VaultListing[] }> {
    return this.call('DELETE', '/vault', undefined, { tenant, domain });
  }
  /** Opens a session a person logs in with; vaultRefreshDone saves its cookies and ends it. */
  vaultRefresh(request: RequestOf<'vaultRefresh'>): Promise<SessionInfo & { liveView: string; done: string }> {
    return this.call('POST', '/vault/refresh', request);
  }
  vaultRefreshDone(id: string, domains?: string[]): Promise<{ saved: Array<{ domain: string; cookies: number; origins?: number; passkeys?: number }> }> {
    return this.call('POST', `/vault/refresh/${encodeURIComponent(id)}/done`, domains ? { domains } : {});
  }

  /** Saves cookies of the user's own browser: the person confirms the domains in the extension first. */
  vaultFromExtension(request: RequestOf<'vaultFromExtension'>): Promise<{ saved: Array<{ domain: string; cookies: number }>; refused: string[] }> {
    return this.call('POST', '/vault/from-extension', request);
  }

  /** A one-time link that opens the dashboard in a browser (it works once, within a minute). */
  dashboardLink(): Promise<{ url: string; expiresInSeconds: number }> {
    return this.call('POST', '/dashboard/link');
  }

  /** The action log's recent records (all profiles unless this client has one), newest last. */
  actions(options: { limit?: number } = {}): Promise<{ actions: ActionRecord[] }> {
    return this.call('GET', '/actions', undefined, options);
  }

  /** What the profile's tabs downloaded, and where the files are. */
  downloads(): Promise<{ downloads: DownloadRecord[]; fence?: string }> {
    return this.call('GET', '/downloads');
  }

  // ---- a record of what happened: network log, HAR, trace ------------------

  /** Starts (on) or stops a tab's network log. */
  networkRecord(on: boolean, targetId?: string): Promise<RecordingAnswer> {
    return this.call('POST', '/network/record', { on, targetId });
  }
  /** A tab's network log, filtered; `secrets` shows credential headers (the token only). */
  network(query: { targetId?: string; url?: string; status?: string; type?: string; limit?: number; secrets?: boolean } = {}): Promise<RecordingAnswer> {
    return this.call('GET', '/network', undefined, query);
  }
  /** A response body as the browser still holds it, or (`part: 'request'`) the request's own (base64, capped at 1 MiB). */
  networkBody(id: number, targetId?: string, part: NetworkBody['part'] = 'response'): Promise<NetworkBody & { targetId: string }> {
    return this.call('GET', '/network/body', undefined, { id, targetId, part });
  }
  /** Writes the tab's (or, with all, the profile's) network log as HAR 1.2 under $CLAWD_HOME/recordings. */
  har(request: RequestOf<'har'> = {}): Promise<RecordingAnswer & { entries: number }> {
    return this.call('POST', '/network/har', request);
  }
  traceStart(): Promise<RecordingAnswer> {
    return this.call('POST', '/trace/start', {});
  }
  /** Writes the trace (a zip for `npx playwright show-trace`) and the action log entries beside it. */
  traceStop(request: RequestOf<'traceStop'> = {}): Promise<RecordingAnswer & { actionsPath: string }> {
    return this.call('POST', '/trace/stop', request);
  }
  /** `GET /script`: recorded steps as a Playwright test. */
  script(query: Omit<RequestOf<'scriptQuery'>, 'profile'> = {}): Promise<PlaywrightScript> {
    return this.call('GET', '/script', undefined, query);
  }
  /** browser_record's one call (BrowserApi). */
  async record(request: RecordRequest): Promise<RecordingAnswer> {
    switch (request.action) {
      case 'network-start':
      case 'network-stop':
        return this.networkRecord(request.action === 'network-start', request.targetId);
      case 'network':
        return this.network({ targetId: request.targetId, url: request.url, status: request.status, type: request.type, limit: request.limit });
      case 'body':
      case 'request-body': {
        if (request.id === undefined) throw new BadRequestError(`${request.action} needs the id of a request in the network log`);
        const { targetId, ...body } = await this.networkBody(request.id, request.targetId, request.action === 'body' ? 'response' : 'request');
        return { targetId, body };
      }
      case 'har':
        return this.har({ targetId: request.targetId, all: request.all, keep: request.keep });
      case 'trace-start':
        return this.traceStart();
      case 'trace-stop':
        return this.traceStop({ keep: request.keep });
      case 'video-start':
        return { filming: await this.video.start({ targetId: request.targetId, format: request.format }) };
      case 'video-stop':
        return { film: await this.video.stop({ keep: request.keep }) };
    }
  }

  // ---- hand-offs to a person

  /** `POST /handoff`: answers at once, with the person's one-time link. */
  openHandoff(request: RequestOf<'handoff'>): Promise<HandoffAnswer> {
    return this.call('POST', '/handoff', request);
  }
  /** `GET /handoff/{id}`, held up to `waitSec` (at most 60) for the person's answer. */
  handoffState(id: string, waitSec = 0): Promise<HandoffAnswer> {
    return this.call('GET', `/handoff/${encodeURIComponent(id)}`, undefined, { wait: waitSec });
  }
  /** `GET /handoffs`: those waiting for a person, oldest first. */
  handoffs(): Promise<{ handoffs: HandoffAnswer[] }> {
    return this.call('GET', '/handoffs');
  }
  /** A hand-off and, while it waits, its tab's picture now (the hand-off's MCP App shows it). */
  async handoffView(id: string): Promise<HandoffView> {
    const handoff = await this.handoffState(id);
    if (handoff.state !== 'waiting') return { handoff };
    const frame = await this.bytes('GET', '/screencast/frame', { profile: handoff.profile, targetId: handoff.targetId });
    return { handoff, ...(frame.length ? { frame: { mimeType: 'image/jpeg', data: frame.toString('base64') } } : {}) };
  }
  /** `POST /handoff/{id}/input`: the person's input on the hand-off's tab. */
  handoffInput(id: string, input: RequestOf<'handoffInput'>): Promise<ViewInputAnswer> {
    return this.call('POST', `/handoff/${encodeURIComponent(id)}/input`, input);
  }
  /** `POST /handoff/{id}/answer`: the person's answer. */
  answerHandoff(id: string, answer: RequestOf<'handoffAnswer'>): Promise<HandoffAnswer> {
    return this.call('POST', `/handoff/${encodeURIComponent(id)}/answer`, answer);
  }
  cancelHandoff(id: string): Promise<HandoffAnswer> {
    return this.call('DELETE', `/handoff/${encodeURIComponent(id)}`);
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
      if (options.signal?.aborted || this.options.signal?.aborted) await new BrowserClient({ ...this.options, signal: undefined }).cancelHandoff(handoff.id).catch(() => {});
      throw error;
    }
  }

  // ---- the browse runtime (spec §24)

  /** Runs the agent loop for a goal against a configured model (`POST /browse`); `onEvent` hears each step. */
  async browse(request: BrowseRequest, options: BrowseOptions = {}): Promise<BrowseResult> {
    return browseOver({ ...this.options, baseUrl: await this.baseUrl() }, request, options);
  }
  /** Runs in progress. */
  browseRuns(): Promise<{ runs: Array<{ run: string; goal: string; profile: string; provider: string; step: number; startedAt: string; cancelling: boolean }> }> {
    return this.call('GET', '/browse');
  }
  /** Cancels a run by its id (the start event's `run`). */
  cancelBrowse(run: string) {
    return this.call<{ run: string; cancelling: boolean }>('DELETE', `/browse/${encodeURIComponent(run)}`);
  }

  /** One request; query values are sent as text (a number as its digits, a flag as true/false), undefined ones left out. */
  private async call<T>(method: string, path: string, body?: object, query: Readonly<Record<string, unknown>> = {}): Promise<T> {
    const baseUrl = await this.baseUrl();
    return readAnswer<T>(await this.request(baseUrl, method, path, body, query), { baseUrl, credential: this.options.credential });
  }

  /** One request answered with bytes (a picture): empty when the server has none to give (204). */
  private async bytes(method: string, path: string, query: Readonly<Record<string, unknown>> = {}): Promise<Buffer> {
    const baseUrl = await this.baseUrl();
    const response = await this.request(baseUrl, method, path, undefined, query);
    if (response.status >= 400) readAnswer(response, { baseUrl, credential: this.options.credential });
    return response.bytes;
  }

  /** The server's address: as given, or found at the first request (and kept). */
  private baseUrl(): Promise<string> {
    const { baseUrl } = this.options;
    return (this.foundBaseUrl ??= typeof baseUrl === 'string' ? Promise.resolve(baseUrl) : baseUrl());
  }
  private foundBaseUrl?: Promise<string>;

  private async request(baseUrl: string, method: string, path: string, body: object | undefined, query: Readonly<Record<string, unknown>>): Promise<ControlResponse> {
    const url = new URL(path, baseUrl);
    for (const [key, value] of Object.entries({ ...query, profile: this.options.profile })) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    try {
      const headers = { authorization: `Bearer ${this.options.token}`, ...(this.options.agent ? { [AGENT_HEADER]: this.options.agent } : {}), ...(body ? { 'content-type': 'application/json' } : {}) };
      return await send(url, method, headers, body ? JSON.stringify(body) : undefined, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, this.options.signal);
    } catch (error) {
      if (this.options.signal?.aborted) throw this.options.signal.reason;
      if (error instanceof TimeoutError) throw new TimeoutError(`${method} ${path} timed out`);
      throw new UnavailableError(`Cannot reach the control API at ${baseUrl}: is \`clawd-browser serve\` running? (${(error as Error).message})`);
    }
  }
}
