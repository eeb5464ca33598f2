import type { Protocol } from 'devtools-protocol';
import { z } from 'zod';
import { WIRE_PROTOCOL_VERSION } from '../../../protocol/constants.js';
import {
  CdpErrorCode,
  errorResponse,
  event,
  rawErrorResponse,
  rawEvent,
  rawResponse,
  response,
} from './cdp-frames.js';
import { filterAccepts } from './target-filter.js';
import {
  BROWSER_TARGET_ID,
  DEFAULT_BROWSER_CONTEXT_ID,
  type SharedTabRecord,
  TabRegistry,
} from './tab-registry.js';
import { type BrowserInfo, type ExtensionHeader, decodeExtensionFrames, type RelayCommand, type SharedDownload, type SharedTab } from '../../../protocol/wire.js';
import { parseExtensionControl } from './extension-messages.js';
import type { ErrorCode } from '../errors.js';
import { describeIssues } from '../validation.js';
import { navigationProblem, shareableUrlProblem } from '../../../protocol/url-gate.js';
import { classifyPageMethod, deniedMessage } from './method-policy.js';
import { type CookiePlan, filterCookies, planCookieCommand, sharedHosts } from './cookie-scope.js';

/**
 * The browser-level CDP emulation behind the extension relay.
 *
 * chrome.debugger gives an extension one session per tab and nothing at the
 * browser level. CdpBridge presents CDP clients (Playwright, Puppeteer) with
 * a browser that holds exactly the shared tabs: it answers Browser.* and
 * Target.* itself, gives every client its own session ids, forwards
 * everything else to the right tab (or child) session, and fans events out to
 * the clients attached there.
 *
 * It owns no sockets and no timers: every entry point takes a message and
 * returns the messages to send (`Outbound`), so it is tested without I/O.
 */

export type Outbound =
  | { to: 'client'; clientId: number; data: string | Uint8Array }
  | { to: 'extension'; data: string }
  | { to: 'closeClient'; clientId: number; reason: string };

export type ExtensionState = 'absent' | 'connected' | 'reconnecting';

type SessionKind = 'browser' | 'tab' | 'page' | 'child';

interface Client {
  id: number;
  /** Every session this client holds, by the id the client uses ('' is the root). */
  sessions: Map<string, Session>;
  /** Commands of this client waiting for the extension (capped: maxPendingPerClient). */
  inFlight: number;
}

interface Session {
  id: string;
  /** Unique across clients (session ids of child targets are Chrome's, shared). */
  key: string;
  client: Client;
  kind: SessionKind;
  /** For tab/page/child sessions. */
  tab?: SharedTabRecord;
  /** The chrome.debugger session behind a page ('') or child (Chrome's id) session. */
  chromeSessionId: string;
  /** The session the client was told about this one on (undefined for roots). */
  parent?: Session;
  /** Set by Target.setAutoAttach on browser and tab sessions. */
  autoAttach?: { filter?: Protocol.Target.TargetFilter };
  /** Set by Target.setDiscoverTargets on browser sessions. */
  discover?: { filter?: Protocol.Target.TargetFilter };
  /**
   * Domains this session asked Chrome to enable and Chrome has not answered
   * yet, with the events held meanwhile. Chrome answers an enable after the
   * commands sent before it; the held events go out just before the answer,
   * as they would from a browser of one's own.
   */
  enabling?: Map<string, Uint8Array[]>;
  closed: boolean;
}

/** Work to do when Chrome answers a forwarded command. */
type Followup =
  /** X.enable: replay what Chrome will not report again, release held events. */
  | { kind: 'enable'; domain: string; contexts: Uint8Array[] }
  /** Target.setAutoAttach: announce the children Chrome announced earlier to others. */
  | { kind: 'children' }
  /** Runtime.disable reached Chrome: its contexts are no longer reported. */
  | { kind: 'runtimeDisabled'; chromeSessionId: string }
  /** One of several internal commands a client's command waits for (answered or not). */
  | { kind: 'step'; done: () => void };

/** What a command sent to the extension is waiting to do with the answer. */
type PendingWork =
  | { kind: 'forward'; session: Session; messageId: number; tabId: number; followup?: Followup }
  /** Answered by the client's own transformation of Chrome's result (scoped cookies). */
  | { kind: 'transform'; session: Session; messageId: number; tabId: number; transform: (result: unknown) => object | undefined }
  | { kind: 'createTarget'; session: Session; messageId: number }
  | { kind: 'tabOp'; session: Session; messageId: number; tabId: number; result: object }
  | { kind: 'internal'; tabId: number; followup?: Followup };

/** Stamped when sent, for expiry (sendToExtension is the one place that does it). */
type Pending = PendingWork & { sentAt: number };

/** Thrown inside command handlers; becomes a CDP error response. */
class CdpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** What the failure is in clawd's terms (errors.ts), for HTTP callers of the bridge. */
    readonly kind: ErrorCode = 'internal',
  ) {
    super(message);
  }
}

const ClientCommand = z.object({
  id: z.number().int().nonnegative(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
  sessionId: z.string().optional(),
});

const Filter = z.array(z.object({ type: z.string().optional(), exclude: z.boolean().optional() }));
const AutoAttachParams = z.object({
  autoAttach: z.boolean(),
  waitForDebuggerOnStart: z.boolean().optional(),
  flatten: z.boolean().optional(),
  filter: Filter.optional(),
});
const DiscoverParams = z.object({ discover: z.boolean(), filter: Filter.optional() });
const FilterParams = z.object({ filter: Filter.optional() });
const TargetIdParams = z.object({ targetId: z.string() });
const OptionalTargetIdParams = z.object({ targetId: z.string().optional() });
const AttachParams = z.object({ targetId: z.string(), flatten: z.boolean().optional() });
const DetachParams = z.object({ sessionId: z.string().optional(), targetId: z.string().optional() });
const CreateTargetParams = z.object({ url: z.string().optional(), background: z.boolean().optional() });
const CookiesParams = z.object({ cookies: z.array(z.unknown()) });

function parseParams<T>(schema: z.ZodType<T>, params: unknown, method: string): T {
  const result = schema.safeParse(params ?? {});
  if (result.success) return result.data;
  const detail = describeIssues(result.error, 'params');
  throw new CdpFailure(CdpErrorCode.invalidParams, `Invalid parameters for ${method}: ${detail}`, 'bad_request');
}

const decoder = new TextDecoder();

/** A payload the extension sent was not the JSON it should be: the frame is dropped, never the process. */
class BadPayload extends Error {}

function parseJson<T>(raw: Uint8Array): T {
  try {
    const value = JSON.parse(decoder.decode(raw)) as unknown;
    if (value === null || typeof value !== 'object') throw new BadPayload('payload is not a JSON object');
    return value as T;
  } catch (error) {
    throw error instanceof BadPayload ? error : new BadPayload(`payload is not JSON: ${(error as Error).message}`);
  }
}

/**
 * Domains whose events Chrome sends a session only after its `X.enable`. The
 * relay shares one chrome.debugger session between clients, so it delivers
 * these events only to the client sessions that enabled the domain: a client
 * must not see Runtime contexts before it asked (Playwright drops contexts of
 * frames it does not know yet), nor another client's paused requests.
 */
const DOMAINS_NEEDING_ENABLE = new Set([
  'Accessibility', 'Animation', 'Audits', 'Autofill', 'BackgroundService', 'CSS', 'Console', 'DOM', 'DOMStorage',
  'Database', 'Debugger', 'DeviceAccess', 'FedCm', 'Fetch', 'HeapProfiler', 'IndexedDB', 'Inspector', 'LayerTree',
  'Log', 'Media', 'Network', 'Overlay', 'Page', 'Performance', 'PerformanceTimeline', 'Preload', 'Profiler',
  'Runtime', 'Security', 'ServiceWorker', 'WebAuthn',
]);
/** Events of those domains that Chrome sends without the enable. */
const EVENTS_WITHOUT_ENABLE = new Set(['Page.screencastFrame', 'Page.screencastVisibilityChanged']);

/** After the last client leaves a tab, undo what clients may have switched on. */
const TAB_RESET_COMMANDS: Array<[string, object]> = [
  ['Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true }],
  ['Page.setInterceptFileChooserDialog', { enabled: false }],
  ['Emulation.clearDeviceMetricsOverride', {}],
  ['Runtime.runIfWaitingForDebugger', {}],
];

const MAX_DOWNLOADS = 200;

export interface CdpBridgeOptions {
  /** Commands held while the extension reconnects; beyond this they fail. */
  maxQueuedCommands?: number;
  /** Commands one client may have waiting for the extension; beyond this they fail at once. */
  maxPendingPerClient?: number;
  /** A command the extension has not answered in this long fails (see expirePending). */
  pendingTimeoutMs?: number;
  /** Schemes the URL gate allows beyond http, https and about:blank (config allowedUrlSchemes). */
  allowedUrlSchemes?: string[];
  /** The clock for pending expiry (tests inject one). */
  now?: () => number;
}

export const DEFAULT_MAX_PENDING_PER_CLIENT = 10_000;
export const DEFAULT_PENDING_TIMEOUT_MS = 300_000;

export class CdpBridge {
  private readonly clients = new Map<number, Client>();
  private readonly tabs = new TabRegistry();
  /** Client sessions on each tab, for event fan-out. */
  private readonly tabSessions = new Map<number, Set<Session>>();
  private readonly pending = new Map<number, Pending>();
  private readonly queue: string[] = [];
  private readonly maxQueuedCommands: number;
  private readonly maxPendingPerClient: number;
  private readonly pendingTimeoutMs: number;
  private readonly allowedUrlSchemes: string[];
  private readonly now: () => number;
  private out: Outbound[] = [];
  private nextClientId = 1;
  private nextCommandId = 1;
  private nextSessionNumber = 1;
  private extension: ExtensionState = 'absent';
  private helloReceived = false;
  private browser: BrowserInfo | undefined;
  /** Downloads shared tabs started, newest last (bounded). */
  private readonly downloadLog = new Map<number, SharedDownload & { targetId: string }>();

  constructor(options: CdpBridgeOptions = {}) {
    this.maxQueuedCommands = options.maxQueuedCommands ?? 10_000;
    this.maxPendingPerClient = options.maxPendingPerClient ?? DEFAULT_MAX_PENDING_PER_CLIENT;
    this.pendingTimeoutMs = options.pendingTimeoutMs ?? DEFAULT_PENDING_TIMEOUT_MS;
    this.allowedUrlSchemes = options.allowedUrlSchemes ?? [];
    this.now = options.now ?? Date.now;
  }

  /** Commands waiting for the extension, all clients together. */
  get pendingCount(): number {
    return this.pending.size;
  }

  // ---- status -------------------------------------------------------------

  get extensionState(): ExtensionState {
    return this.extension;
  }
  get clientCount(): number {
    return this.clients.size;
  }
  sharedTabs(): SharedTab[] {
    return this.tabs.all().map((tab) => ({ ...tab.info }));
  }
  /** Targets Chrome auto-attached under shared tabs (out-of-process iframes, workers). */
  childTargets(): Protocol.Target.TargetInfo[] {
    return this.tabs.all().flatMap((tab) => [...tab.children.values()].map((child) => child.targetInfo));
  }
  downloads(): Array<SharedDownload & { targetId: string }> {
    return [...this.downloadLog.values()].map((download) => ({ ...download }));
  }
  findTab(targetId: string): SharedTab | undefined {
    const tab = this.tabs.byTargetId(targetId);
    return tab && { ...tab.info };
  }
  browserVersion(): Protocol.Browser.GetVersionResponse {
    return {
      protocolVersion: '1.3',
      product: this.browser?.product ?? 'Chrome/0.0.0.0',
      revision: '@clawd-browser-relay',
      // Clients treat "Headless" as a capability hint; the user's browser is headful.
      userAgent: (this.browser?.userAgent ?? '').replace('HeadlessChrome', 'Chrome'),
      jsVersion: '',
    };
  }

  // ---- CDP clients --------------------------------------------------------

  addClient(): number {
    const client: Client = { id: this.nextClientId++, sessions: new Map(), inFlight: 0 };
    client.sessions.set('', this.newSession(client, 'browser', { id: '' }));
    this.clients.set(client.id, client);
    return client.id;
  }

  removeClient(clientId: number): Outbound[] {
    const client = this.clients.get(clientId);
    if (!client) return [];
    this.clients.delete(clientId);
    for (const session of [...client.sessions.values()]) this.removeSession(session, { undo: true });
    // Its commands still in flight are nobody's any more: forget them now, not when (or if) answered.
    for (const [commandId, pending] of this.pending) {
      if (pending.kind !== 'internal' && pending.session.client === client) this.settle(commandId);
    }
    return this.drain();
  }

  handleClientMessage(clientId: number, text: string): Outbound[] {
    const client = this.clients.get(clientId);
    if (!client) return [];
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.toClient(client, errorResponse(undefined, '', { code: CdpErrorCode.parseError, message: 'Message must be a valid JSON' }));
      return this.drain();
    }
    const parsed = ClientCommand.safeParse(message);
    if (!parsed.success) {
      const id = (message as { id?: unknown })?.id;
      const error = { code: CdpErrorCode.invalidRequest, message: `Invalid CDP message: ${describeIssues(parsed.error, 'message')}` };
      this.toClient(client, errorResponse(typeof id === 'number' ? id : undefined, '', error));
      return this.drain();
    }
    const { id, method, params, sessionId = '' } = parsed.data;
    const session = client.sessions.get(sessionId);
    try {
      if (!session) throw new CdpFailure(CdpErrorCode.sessionNotFound, `Session with given id not found: ${sessionId}`);
      if (session.kind === 'browser') this.browserCommand(session, id, method, params);
      else if (session.kind === 'tab') this.tabTargetCommand(session, id, method, params);
      else this.pageCommand(session, id, method, params);
    } catch (error) {
      if (!(error instanceof CdpFailure)) throw error;
      this.toClient(client, errorResponse(id, sessionId, { code: error.code, message: error.message, data: error.kind }));
    }
    return this.drain();
  }

  // ---- the extension ------------------------------------------------------

  /** A new extension socket is open; it must say hello before anything else. */
  extensionConnected(): void {
    this.helloReceived = false;
  }

  /** The extension socket closed. Shared tabs stay through a grace period. */
  extensionDisconnected(): Outbound[] {
    this.helloReceived = false;
    this.extension = this.tabs.size > 0 ? 'reconnecting' : 'absent';
    this.failPending(() => true, 'clawd-browser extension disconnected while the command was in flight');
    return this.drain();
  }

  /** The grace period ended without the extension coming back. */
  expireGrace(): Outbound[] {
    if (this.extension !== 'reconnecting') return [];
    this.extension = 'absent';
    for (const tab of this.tabs.all()) this.removeTab(tab, 'the clawd-browser extension did not reconnect');
    this.queue.length = 0;
    this.failPending(() => true, 'the clawd-browser extension did not reconnect');
    return this.drain();
  }

  /** One WebSocket message from the extension: one frame or a batch of them. */
  handleExtensionMessage(data: Uint8Array): Outbound[] {
    for (const frame of decodeExtensionFrames(data)) {
      if ('error' in frame) {
        this.protocolError(frame.error);
        continue;
      }
      try {
        this.onExtensionFrame(frame.header, frame.payload);
      } catch (error) {
        if (!(error instanceof BadPayload)) throw error;
        this.protocolError(`${frame.header.type} frame dropped: ${error.message}`);
      }
    }
    return this.drain();
  }

  /**
   * Fails the commands the extension has not answered within
   * pendingTimeoutMs (a wedged worker, a lost frame), so no client waits
   * forever and the pending map cannot grow without bound. The server calls
   * this on a timer.
   */
  expirePending(): Outbound[] {
    const cutoff = this.now() - this.pendingTimeoutMs;
    const seconds = Math.round(this.pendingTimeoutMs / 1000);
    this.failPending((pending) => pending.sentAt < cutoff, `the clawd-browser extension did not answer within ${seconds} s`);
    return this.drain();
  }

  private onExtensionFrame(header: ExtensionHeader, payload: Uint8Array): void {
    // Results and events are the hot path: checked by hand, not by schema.
    switch (header.type) {
      case 'result':
      case 'error':
        if (typeof header.id !== 'number') return this.protocolError(`${header.type} without a numeric id`);
        return this.onCommandAnswer(header.id, header.type === 'error', payload);
      case 'event':
        if (typeof header.tabId !== 'number' || typeof header.method !== 'string')
          return this.protocolError('event needs a numeric tabId and a method');
        return this.onTabEvent(header.tabId, header.sessionId ?? '', header.method, payload);
    }
    const control = parseExtensionControl(header);
    if (typeof control === 'string') return this.protocolError(control);
    if (control.type !== 'hello' && !this.helloReceived) return this.protocolError('send hello first');
    switch (control.type) {
      case 'hello':
        if (control.protocol !== WIRE_PROTOCOL_VERSION)
          return this.protocolError(`wire protocol ${control.protocol} is not supported; this relay speaks ${WIRE_PROTOCOL_VERSION}`);
        return this.onHello(control.browser, control.tabs);
      case 'tabShared':
        return this.onTabShared(control.tab);
      case 'tabUpdated':
        return this.onTabUpdated(control.tab);
      case 'tabUnshared': {
        const tab = this.tabs.get(control.tabId);
        if (tab) this.removeTab(tab, control.reason);
        return;
      }
      case 'download': {
        const tab = this.tabs.get(control.tabId);
        if (!tab) return;
        this.downloadLog.delete(control.download.id);
        this.downloadLog.set(control.download.id, { ...control.download, targetId: tab.targetId });
        while (this.downloadLog.size > MAX_DOWNLOADS) this.downloadLog.delete(this.downloadLog.keys().next().value!);
        return;
      }
      case 'ping':
        this.out.push({ to: 'extension', data: JSON.stringify({ type: 'pong' }) });
        return;
    }
  }

  // ---- browser-level commands ---------------------------------------------

  private browserCommand(session: Session, id: number, method: string, params: unknown): void {
    switch (method) {
      case 'Browser.getVersion':
        return this.reply(session, id, this.browserVersion());
      case 'Browser.close':
        // Closing the user's browser is not ours to do: end this client only.
        this.reply(session, id, {});
        this.out.push({ to: 'closeClient', clientId: session.client.id, reason: 'Browser.close' });
        return;
      case 'Browser.setDownloadBehavior':
        return this.reply(session, id, {});
      case 'Target.setDiscoverTargets': {
        const { discover, filter } = parseParams(DiscoverParams, params, method);
        session.discover = discover ? { filter } : undefined;
        if (discover) {
          if (filterAccepts(filter, 'browser')) this.emit(session, 'Target.targetCreated', { targetInfo: this.browserTargetInfo() });
          for (const tab of this.tabs.all()) this.announceCreated(session, tab);
        }
        return this.reply(session, id, {});
      }
      case 'Target.setAutoAttach': {
        const { autoAttach, flatten, filter } = parseParams(AutoAttachParams, params, method);
        if (autoAttach && !flatten)
          throw new CdpFailure(CdpErrorCode.invalidParams, 'clawd-browser supports only flat sessions (flatten: true)');
        session.autoAttach = autoAttach ? { filter } : undefined;
        if (autoAttach) for (const tab of this.tabs.all()) this.autoAttachTab(session, tab);
        return this.reply(session, id, {});
      }
      case 'Target.getTargets': {
        const { filter } = parseParams(FilterParams, params, method);
        const targetInfos: Protocol.Target.TargetInfo[] = [];
        if (filterAccepts(filter, 'browser')) targetInfos.push(this.browserTargetInfo());
        for (const tab of this.tabs.all()) {
          if (filterAccepts(filter, 'tab')) targetInfos.push(tab.tabTargetInfo());
          if (filterAccepts(filter, 'page')) targetInfos.push(tab.pageTargetInfo());
        }
        return this.reply(session, id, { targetInfos });
      }
      case 'Target.getTargetInfo': {
        const { targetId } = parseParams(OptionalTargetIdParams, params, method);
        if (!targetId || targetId === BROWSER_TARGET_ID) return this.reply(session, id, { targetInfo: this.browserTargetInfo() });
        return this.reply(session, id, { targetInfo: this.targetInfoFor(targetId) });
      }
      case 'Target.attachToTarget': {
        const { targetId, flatten } = parseParams(AttachParams, params, method);
        if (!flatten) throw new CdpFailure(CdpErrorCode.invalidParams, 'clawd-browser supports only flat sessions (flatten: true)');
        const tab = this.requireTab(targetId);
        const kind = targetId === tab.tabTargetId ? 'tab' : 'page';
        const attached = this.attachSession(session, tab, kind);
        return this.reply(session, id, { sessionId: attached.id });
      }
      case 'Target.attachToBrowserTarget': {
        const browser = this.newSession(session.client, 'browser', { parent: session });
        this.emit(session, 'Target.attachedToTarget', {
          sessionId: browser.id,
          targetInfo: this.browserTargetInfo(),
          waitingForDebugger: false,
        });
        return this.reply(session, id, { sessionId: browser.id });
      }
      case 'Target.detachFromTarget':
        return this.detachCommand(session, id, params);
      case 'Target.createTarget': {
        const { url, background } = parseParams(CreateTargetParams, params, method);
        this.checkUrl(url || 'about:blank');
        this.requireExtension();
        this.sendToExtension(
          { type: 'createTab', id: 0, url: url || 'about:blank', active: background !== true },
          { kind: 'createTarget', session, messageId: id },
        );
        return;
      }
      case 'Target.closeTarget': {
        const tab = this.requireTab(parseParams(TargetIdParams, params, method).targetId);
        return this.tabOperation(session, id, { type: 'closeTab', id: 0, tabId: tab.tabId }, { success: true });
      }
      case 'Target.activateTarget': {
        const tab = this.requireTab(parseParams(TargetIdParams, params, method).targetId);
        return this.tabOperation(session, id, { type: 'activateTab', id: 0, tabId: tab.tabId }, {});
      }
      case 'Target.getBrowserContexts':
        return this.reply(session, id, { browserContextIds: [], defaultBrowserContextId: DEFAULT_BROWSER_CONTEXT_ID });
      case 'Target.createBrowserContext':
      case 'Target.disposeBrowserContext':
        throw new CdpFailure(
          CdpErrorCode.serverError,
          "The extension profile is the user's own browser: it has one browser context and cannot create others",
        );
      // Cookie calls are browser-level in CDP; the Network domain of any
      // shared tab reaches the same cookie jar, scoped to the shared sites.
      case 'Storage.getCookies':
      case 'Storage.clearCookies':
        return this.cookieCommand(session, id, method, {}, this.anyTab());
      case 'Storage.setCookies':
        return this.cookieCommand(session, id, method, { cookies: parseParams(CookiesParams, params, method).cookies }, this.anyTab());
      default:
        throw new CdpFailure(
          CdpErrorCode.methodNotFound,
          `'${method}' wasn't found: the clawd-browser relay has no real browser target, only the shared tabs`,
        );
    }
  }

  /** Commands on a synthetic tab target (Puppeteer attaches pages through these). */
  private tabTargetCommand(session: Session, id: number, method: string, params: unknown): void {
    const tab = session.tab!;
    switch (method) {
      case 'Target.setAutoAttach': {
        const { autoAttach, filter } = parseParams(AutoAttachParams, params, method);
        session.autoAttach = autoAttach ? { filter } : undefined;
        const hasPage = [...session.client.sessions.values()].some((s) => s.parent === session && s.kind === 'page');
        if (autoAttach && filterAccepts(filter, 'page') && !hasPage) this.attachSession(session, tab, 'page');
        return this.reply(session, id, {});
      }
      case 'Runtime.runIfWaitingForDebugger':
        return this.reply(session, id, {});
      case 'Target.getTargetInfo':
        return this.reply(session, id, { targetInfo: tab.tabTargetInfo() });
      case 'Target.detachFromTarget':
        return this.detachCommand(session, id, params);
      default:
        throw new CdpFailure(CdpErrorCode.methodNotFound, `'${method}' wasn't found on a tab target`);
    }
  }

  /** Commands on a page or child session: mostly forwarded to chrome.debugger. */
  private pageCommand(session: Session, id: number, method: string, params: Record<string, unknown> | undefined): void {
    const tab = session.tab!;
    switch (method) {
      case 'Target.detachFromTarget':
        return this.detachCommand(session, id, params);
      case 'Browser.getVersion':
        return this.reply(session, id, this.browserVersion());
      case 'Target.getTargetInfo':
        if (session.kind === 'page' && !params?.targetId) return this.reply(session, id, { targetInfo: tab.pageTargetInfo() });
        break;
      case 'Target.setAutoAttach':
        // Chrome announces existing children only to the first caller; later
        // clients get them replayed when the answer arrives.
        return this.forward(session, id, method, params, { kind: 'children' });
    }
    switch (classifyPageMethod(method)) {
      case 'deny':
        throw new CdpFailure(CdpErrorCode.serverError, deniedMessage(method), 'forbidden');
      case 'cookies':
        return this.cookieCommand(session, id, method, params ?? {}, tab);
      case 'navigate':
        this.checkUrl(typeof params?.url === 'string' ? params.url : '');
        break;
      case 'forward':
        break;
    }
    const dot = method.indexOf('.');
    const domain = method.slice(0, dot);
    const action = method.slice(dot + 1);
    const state = tab.chromeSession(session.chromeSessionId);
    if (action === 'enable') {
      state.enable(domain, session.key);
      (session.enabling ??= new Map()).set(domain, []);
      // Contexts Chrome already reported will not be reported again: snapshot them.
      const contexts = domain === 'Runtime' ? [...state.contexts.values()] : [];
      return this.forward(session, id, method, params, { kind: 'enable', domain, contexts });
    }
    if (action === 'disable') {
      // Another client still relies on the domain: disabling it for this one is local.
      if (!state.disable(domain, session.key)) return this.reply(session, id, {});
      session.enabling?.delete(domain);
      const followup: Followup | undefined = domain === 'Runtime' ? { kind: 'runtimeDisabled', chromeSessionId: session.chromeSessionId } : undefined;
      return this.forward(session, id, method, params, followup);
    }
    return this.forward(session, id, method, params);
  }

  private detachCommand(from: Session, id: number, params: unknown): void {
    const { sessionId, targetId } = parseParams(DetachParams, params, 'Target.detachFromTarget');
    const client = from.client;
    const target = sessionId !== undefined
      ? client.sessions.get(sessionId)
      : [...client.sessions.values()].find((s) => s.kind !== 'browser' && s.tab && this.targetIdOf(s) === targetId);
    if (!target || target.kind === 'browser' && target.id === '')
      throw new CdpFailure(CdpErrorCode.invalidParams, `No session with given id: ${sessionId ?? targetId ?? '(none given)'}`);
    if (target.parent) {
      this.emit(target.parent, 'Target.detachedFromTarget', {
        sessionId: target.id,
        ...(target.tab ? { targetId: this.targetIdOf(target) } : {}),
      });
    }
    this.removeSession(target, { undo: true });
    this.reply(from, id, {});
  }

  // ---- answers and events from the extension ------------------------------

  private onCommandAnswer(commandId: number, isError: boolean, payload: Uint8Array): void {
    const pending = this.settle(commandId);
    if (!pending) return; // already failed (tab gone, extension reconnected, expired)
    if (pending.kind === 'internal') {
      if (pending.followup?.kind === 'step') pending.followup.done();
      else if (!isError && pending.followup) this.runFollowup(pending.followup, undefined, pending.tabId);
      return;
    }
    const session = pending.session;
    if (session.closed) return;
    const client = session.client;
    if (isError) {
      if (pending.kind === 'forward' && pending.followup?.kind === 'enable') session.enabling?.delete(pending.followup.domain);
      this.toClient(client, rawErrorResponse(pending.messageId, session.id, payload));
      return;
    }
    try {
      this.deliverAnswer(pending, payload);
    } catch (error) {
      if (!(error instanceof BadPayload)) throw error;
      this.toClient(client, errorResponse(pending.messageId, session.id, { code: CdpErrorCode.serverError, message: `the extension sent an unreadable answer: ${error.message}` }));
      throw error;
    }
  }

  private deliverAnswer(pending: Exclude<Pending, { kind: 'internal' }>, payload: Uint8Array): void {
    const session = pending.session;
    const client = session.client;
    switch (pending.kind) {
      case 'forward':
        if (pending.followup) this.runFollowup(pending.followup, session, pending.tabId);
        this.toClient(client, rawResponse(pending.messageId, session.id, payload));
        return;
      case 'transform': {
        const result = pending.transform(parseJson<object>(payload));
        if (result) this.reply(session, pending.messageId, result);
        return;
      }
      case 'createTarget': {
        const { targetId } = parseJson<{ targetId: string }>(payload);
        this.reply(session, pending.messageId, { targetId });
        return;
      }
      case 'tabOp':
        this.reply(session, pending.messageId, pending.result);
        return;
    }
  }

  /** What a successful answer entails, before the client sees the answer itself. */
  private runFollowup(followup: Followup, session: Session | undefined, tabId: number): void {
    switch (followup.kind) {
      case 'enable': {
        const held = session!.enabling?.get(followup.domain) ?? [];
        session!.enabling?.delete(followup.domain);
        for (const context of followup.contexts)
          this.toClient(session!.client, rawEvent('Runtime.executionContextCreated', session!.id, context));
        for (const frame of held) this.toClient(session!.client, frame);
        return;
      }
      case 'children':
        return this.replayChildren(session!);
      case 'runtimeDisabled':
        this.tabs.get(tabId)?.chromeSessions.get(followup.chromeSessionId)?.contexts.clear();
        return;
      case 'step':
        return followup.done();
    }
  }

  private onTabEvent(tabId: number, chromeSessionId: string, method: string, payload: Uint8Array): void {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    if (chromeSessionId && !tab.children.has(chromeSessionId)) return;
    if (method.startsWith('Runtime.executionContext')) this.trackContexts(tab, chromeSessionId, method, payload);
    if (method === 'Target.attachedToTarget') return this.onChildAttached(tab, chromeSessionId, payload);
    if (method === 'Target.detachedFromTarget') return this.onChildDetached(tab, parseJson<{ sessionId: string }>(payload).sessionId);
    if (method === 'Inspector.targetCrashed' && !chromeSessionId) this.announceCrash(tab);
    const domain = method.slice(0, method.indexOf('.'));
    const enabledBy = DOMAINS_NEEDING_ENABLE.has(domain) && !EVENTS_WITHOUT_ENABLE.has(method)
      ? tab.chromeSessions.get(chromeSessionId)?.enabledBy.get(domain) ?? new Set<string>()
      : undefined;
    for (const session of this.sessionsOn(tab, chromeSessionId)) {
      if (enabledBy && !enabledBy.has(session.key)) continue;
      const frame = rawEvent(method, session.id, payload);
      const held = session.enabling?.get(domain);
      if (held) held.push(frame);
      else this.toClient(session.client, frame);
    }
  }

  private trackContexts(tab: SharedTabRecord, chromeSessionId: string, method: string, payload: Uint8Array): void {
    const state = tab.chromeSession(chromeSessionId);
    if (method === 'Runtime.executionContextCreated') {
      const { context } = parseJson<Protocol.Runtime.ExecutionContextCreatedEvent>(payload);
      state.contexts.set(context.id, payload.slice());
    } else if (method === 'Runtime.executionContextDestroyed') {
      state.contexts.delete(parseJson<Protocol.Runtime.ExecutionContextDestroyedEvent>(payload).executionContextId);
    } else if (method === 'Runtime.executionContextsCleared') {
      state.contexts.clear();
    }
  }

  private onChildAttached(tab: SharedTabRecord, parentSessionId: string, payload: Uint8Array): void {
    const params = parseJson<Protocol.Target.AttachedToTargetEvent>(payload);
    // A frame or worker of an extension (or a browser page) inside a shared tab
    // would run with its powers: not the user's to lend. Let it go unseen.
    if (shareableUrlProblem(params.targetInfo?.url)) {
      if (params.sessionId) this.sendInternal(tab, 'Target.detachFromTarget', { sessionId: params.sessionId }, parentSessionId || undefined);
      return;
    }
    tab.children.set(params.sessionId, { sessionId: params.sessionId, parentSessionId, targetInfo: params.targetInfo });
    let delivered = false;
    for (const parent of this.sessionsOn(tab, parentSessionId)) {
      if (parent.client.sessions.has(params.sessionId)) continue; // one view per client
      this.newSession(parent.client, 'child', { id: params.sessionId, tab, parent, chromeSessionId: params.sessionId });
      this.toClient(parent.client, rawEvent('Target.attachedToTarget', parent.id, payload));
      delivered = true;
    }
    // Nobody is listening, so nobody would ever resume a target paused on start.
    if (!delivered && params.waitingForDebugger)
      this.sendInternal(tab, 'Runtime.runIfWaitingForDebugger', {}, params.sessionId);
  }

  private onChildDetached(tab: SharedTabRecord, childSessionId: string): void {
    const targetIds = new Map([...tab.children.values()].map((child) => [child.sessionId, child.targetInfo.targetId]));
    for (const removed of tab.removeChild(childSessionId)) {
      for (const session of this.sessionsOn(tab, removed)) {
        if (session.parent) this.emit(session.parent, 'Target.detachedFromTarget', { sessionId: removed, targetId: targetIds.get(removed) });
        this.removeSession(session, { undo: false });
      }
    }
  }

  private onHello(browser: BrowserInfo, shared: SharedTab[]): void {
    this.browser = browser;
    this.helloReceived = true;
    this.extension = 'connected';
    const announced = new Map(shared.map((tab) => [tab.tabId, tab]));
    for (const tab of this.tabs.all()) {
      if (!announced.has(tab.tabId)) this.removeTab(tab, 'no longer shared by the extension');
    }
    for (const info of shared) this.onTabShared(info);
    for (const data of this.queue.splice(0)) this.out.push({ to: 'extension', data });
  }

  private onTabShared(info: SharedTab): void {
    const existing = this.tabs.get(info.tabId);
    // The same page re-announced (relay reconnect, worker restart): clients keep
    // their sessions. A re-attached debugger arrives as tabUnshared + tabShared.
    if (existing && existing.targetId === info.targetId) return this.onTabUpdated(info);
    if (existing) this.removeTab(existing, 'the tab now shows a different page target');
    const tab = this.tabs.add(info);
    for (const client of this.clients.values()) {
      for (const session of client.sessions.values()) {
        if (session.kind !== 'browser') continue;
        if (session.discover) this.announceCreated(session, tab);
        if (session.autoAttach) this.autoAttachTab(session, tab);
      }
    }
  }

  private onTabUpdated(info: SharedTab): void {
    const tab = this.tabs.get(info.tabId);
    if (!tab) return;
    tab.info = { ...info, openerTargetId: info.openerTargetId ?? tab.info.openerTargetId };
    for (const session of this.browserSessions()) {
      if (!session.discover) continue;
      if (filterAccepts(session.discover.filter, 'tab')) this.emit(session, 'Target.targetInfoChanged', { targetInfo: tab.tabTargetInfo() });
      if (filterAccepts(session.discover.filter, 'page')) this.emit(session, 'Target.targetInfoChanged', { targetInfo: tab.pageTargetInfo() });
    }
  }

  /** Chrome reports a crash to the browser target too; discovering clients expect it there. */
  private announceCrash(tab: SharedTabRecord): void {
    for (const session of this.browserSessions()) {
      if (session.discover && filterAccepts(session.discover.filter, 'page'))
        this.emit(session, 'Target.targetCrashed', { targetId: tab.targetId, status: 'crashed', errorCode: 0 });
    }
  }

  /** A tab left the relay: pending commands fail, clients are told, nothing hangs. */
  private removeTab(tab: SharedTabRecord, reason: string): void {
    this.tabs.remove(tab.tabId);
    this.failPending((pending) => pending.kind !== 'createTarget' && pending.tabId === tab.tabId, `Target closed: ${reason}`);
    const sessions = [...(this.tabSessions.get(tab.tabId) ?? [])];
    const order: SessionKind[] = ['child', 'page', 'tab'];
    sessions.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    for (const session of sessions) {
      if (session.closed) continue;
      if (session.parent && !session.parent.closed)
        this.emit(session.parent, 'Target.detachedFromTarget', { sessionId: session.id, targetId: this.targetIdOf(session) });
      this.removeSession(session, { undo: false });
    }
    this.tabSessions.delete(tab.tabId);
    for (const session of this.browserSessions()) {
      if (!session.discover) continue;
      if (filterAccepts(session.discover.filter, 'page')) this.emit(session, 'Target.targetDestroyed', { targetId: tab.targetId });
      if (filterAccepts(session.discover.filter, 'tab')) this.emit(session, 'Target.targetDestroyed', { targetId: tab.tabTargetId });
    }
  }

  // ---- sessions -----------------------------------------------------------

  private newSession(
    client: Client,
    kind: SessionKind,
    options: { id?: string; tab?: SharedTabRecord; parent?: Session; chromeSessionId?: string },
  ): Session {
    const id = options.id ?? `${kind}-${this.nextSessionNumber++}`;
    const session: Session = {
      id,
      key: `${client.id}/${id}`,
      client,
      kind,
      tab: options.tab,
      chromeSessionId: options.chromeSessionId ?? '',
      parent: options.parent,
      closed: false,
    };
    client.sessions.set(session.id, session);
    if (session.tab) {
      let set = this.tabSessions.get(session.tab.tabId);
      if (!set) this.tabSessions.set(session.tab.tabId, (set = new Set()));
      set.add(session);
    }
    return session;
  }

  /** Creates a tab or page session under `parent` and tells the client. */
  private attachSession(parent: Session, tab: SharedTabRecord, kind: 'tab' | 'page'): Session {
    const session = this.newSession(parent.client, kind, { tab, parent });
    this.emit(parent, 'Target.attachedToTarget', {
      sessionId: session.id,
      targetInfo: kind === 'tab' ? tab.tabTargetInfo() : tab.pageTargetInfo(),
      waitingForDebugger: false,
    });
    return session;
  }

  private autoAttachTab(browserSession: Session, tab: SharedTabRecord): void {
    const filter = browserSession.autoAttach?.filter;
    const kind = filterAccepts(filter, 'tab') ? 'tab' : filterAccepts(filter, 'page') ? 'page' : undefined;
    if (!kind) return;
    const already = [...browserSession.client.sessions.values()].some(
      (s) => s.parent === browserSession && s.tab === tab && s.kind === kind,
    );
    if (!already) this.attachSession(browserSession, tab, kind);
  }

  private announceCreated(browserSession: Session, tab: SharedTabRecord): void {
    const filter = browserSession.discover?.filter;
    if (filterAccepts(filter, 'tab')) this.emit(browserSession, 'Target.targetCreated', { targetInfo: tab.tabTargetInfo() });
    if (filterAccepts(filter, 'page')) this.emit(browserSession, 'Target.targetCreated', { targetInfo: tab.pageTargetInfo() });
  }

  private replayChildren(session: Session): void {
    for (const child of session.tab!.childrenOf(session.chromeSessionId)) {
      if (session.client.sessions.has(child.sessionId)) continue;
      this.newSession(session.client, 'child', { id: child.sessionId, tab: session.tab, parent: session, chromeSessionId: child.sessionId });
      this.emit(session, 'Target.attachedToTarget', { sessionId: child.sessionId, targetInfo: child.targetInfo, waitingForDebugger: false });
    }
  }

  /**
   * Ends a client session. With `undo`, domains only this session had enabled
   * are disabled in Chrome, and a tab nobody watches any more is reset.
   */
  private removeSession(session: Session, { undo }: { undo: boolean }): void {
    if (session.closed) return;
    session.closed = true;
    const client = session.client;
    for (const other of [...client.sessions.values()]) {
      if (other.parent === session) this.removeSession(other, { undo });
    }
    client.sessions.delete(session.id);
    const tab = session.tab;
    if (!tab) return;
    const onTab = this.tabSessions.get(tab.tabId);
    onTab?.delete(session);
    if (!undo || !this.tabs.get(tab.tabId)) return;
    if (session.kind === 'page' || session.kind === 'child') {
      const state = tab.chromeSessions.get(session.chromeSessionId);
      for (const domain of state?.forget(session.key) ?? []) {
        const followup: Followup | undefined = domain === 'Runtime' ? { kind: 'runtimeDisabled', chromeSessionId: session.chromeSessionId } : undefined;
        this.sendInternal(tab, `${domain}.disable`, {}, session.chromeSessionId || undefined, followup);
      }
    }
    if (onTab && onTab.size === 0) {
      for (const [method, params] of TAB_RESET_COMMANDS) this.sendInternal(tab, method, params);
    }
  }

  /** Client sessions on a tab's own chrome session ('') or on one of its children. */
  private sessionsOn(tab: SharedTabRecord, chromeSessionId: string): Session[] {
    const kind = chromeSessionId ? 'child' : 'page';
    const result: Session[] = [];
    for (const session of this.tabSessions.get(tab.tabId) ?? []) {
      if (session.kind === kind && session.chromeSessionId === chromeSessionId) result.push(session);
    }
    return result;
  }

  private *browserSessions(): Generator<Session> {
    for (const client of this.clients.values()) {
      for (const session of client.sessions.values()) if (session.kind === 'browser') yield session;
    }
  }

  private targetIdOf(session: Session): string | undefined {
    if (session.kind === 'tab') return session.tab!.tabTargetId;
    if (session.kind === 'page') return session.tab!.targetId;
    if (session.kind === 'child') return session.tab!.children.get(session.chromeSessionId)?.targetInfo.targetId;
    return undefined;
  }

  // ---- talking to the extension -------------------------------------------

  private forward(
    session: Session,
    messageId: number,
    method: string,
    params: object | undefined,
    followup?: Followup,
  ): void {
    const tab = session.tab!;
    const command: RelayCommand = { type: 'cdp', id: 0, tabId: tab.tabId, method, params };
    if (session.kind === 'child') command.sessionId = session.chromeSessionId;
    this.sendToExtension(command, { kind: 'forward', session, messageId, tabId: tab.tabId, followup });
  }

  private anyTab(): SharedTabRecord {
    const tab = this.tabs.all()[0];
    if (!tab) throw new CdpFailure(CdpErrorCode.serverError, 'No tab is shared: share a tab with the clawd-browser extension first', 'unavailable');
    return tab;
  }

  private checkUrl(url: string): void {
    const problem = navigationProblem(url, this.allowedUrlSchemes);
    if (problem) throw new CdpFailure(CdpErrorCode.invalidParams, `Navigation refused: ${problem}`, 'bad_request');
  }

  /**
   * A cookie or storage method, scoped to the shared tabs' sites: refused,
   * forwarded (its answer filtered), or, for "clear all", emulated as a
   * delete of each cookie in scope. Sent through `tab`'s own session.
   */
  private cookieCommand(session: Session, messageId: number, method: string, params: Record<string, unknown>, tab: SharedTabRecord): void {
    const hosts = sharedHosts(this.tabs.all().map((shared) => shared.info.url));
    const plan: CookiePlan = planCookieCommand(method, params, hosts);
    const target = { tabId: tab.tabId, sessionId: session.kind === 'child' ? session.chromeSessionId : undefined };
    const command = (cdpMethod: string, cdpParams: object): RelayCommand => ({ type: 'cdp', id: 0, ...target, method: cdpMethod, params: cdpParams });
    switch (plan.kind) {
      case 'refuse':
        throw new CdpFailure(CdpErrorCode.serverError, plan.message, 'forbidden');
      case 'forward':
        if (!plan.filter) return this.sendToExtension(command(plan.method, plan.params), { kind: 'forward', session, messageId, tabId: tab.tabId });
        return this.sendToExtension(command(plan.method, plan.params), {
          kind: 'transform',
          session,
          messageId,
          tabId: tab.tabId,
          transform: (result) => filterCookies(result, hosts),
        });
      case 'clear':
        return this.sendToExtension(command('Network.getAllCookies', {}), {
          kind: 'transform',
          session,
          messageId,
          tabId: tab.tabId,
          transform: (result) => {
            this.deleteCookies(session, messageId, tab, filterCookies(result, hosts).cookies);
            return undefined;
          },
        });
    }
  }

  /** Deletes each cookie, then answers the client once Chrome has answered every delete. */
  private deleteCookies(session: Session, messageId: number, tab: SharedTabRecord, cookies: Protocol.Network.Cookie[]): void {
    let remaining = cookies.length;
    if (!remaining) return this.reply(session, messageId, {});
    const done = () => {
      if (--remaining === 0 && !session.closed) this.reply(session, messageId, {});
    };
    for (const cookie of cookies) {
      const params = { name: cookie.name, domain: cookie.domain, path: cookie.path };
      this.sendToExtension(
        { type: 'cdp', id: 0, tabId: tab.tabId, method: 'Network.deleteCookies', params },
        { kind: 'internal', tabId: tab.tabId, followup: { kind: 'step', done } },
      );
    }
  }

  private tabOperation(session: Session, messageId: number, command: RelayCommand, result: object): void {
    this.requireExtension();
    this.sendToExtension(command, { kind: 'tabOp', session, messageId, tabId: (command as { tabId: number }).tabId, result });
  }

  private sendInternal(tab: SharedTabRecord, method: string, params: object, chromeSessionId?: string, followup?: Followup): void {
    if (this.extension !== 'connected') return;
    const command: RelayCommand = { type: 'cdp', id: 0, tabId: tab.tabId, method, params };
    if (chromeSessionId) command.sessionId = chromeSessionId;
    this.sendToExtension(command, { kind: 'internal', tabId: tab.tabId, followup });
  }

  /** Sends now, or holds the command while the extension reconnects. */
  private sendToExtension(command: RelayCommand, work: PendingWork): void {
    if (this.extension === 'absent') this.requireExtension();
    const client = work.kind === 'internal' ? undefined : work.session.client;
    if (client && client.inFlight >= this.maxPendingPerClient)
      throw new CdpFailure(
        CdpErrorCode.serverError,
        `Too many commands in flight (${this.maxPendingPerClient}): wait for answers before sending more`,
        'unavailable',
      );
    command.id = this.nextCommandId++;
    const data = JSON.stringify(command);
    const linkUp = this.extension === 'connected' && this.helloReceived;
    if (!linkUp && this.queue.length >= this.maxQueuedCommands)
      throw new CdpFailure(CdpErrorCode.serverError, 'Too many commands queued while the clawd-browser extension reconnects', 'unavailable');
    this.pending.set(command.id, { ...work, sentAt: this.now() });
    if (client) client.inFlight++;
    if (linkUp) this.out.push({ to: 'extension', data });
    else this.queue.push(data);
  }

  /** Takes a command out of the pending map (answered, failed or expired). */
  private settle(commandId: number): Pending | undefined {
    const pending = this.pending.get(commandId);
    if (!pending) return undefined;
    this.pending.delete(commandId);
    if (pending.kind !== 'internal') pending.session.client.inFlight--;
    return pending;
  }

  private requireExtension(): void {
    if (this.extension === 'absent')
      throw new CdpFailure(
        CdpErrorCode.serverError,
        'The clawd-browser extension is not connected: click its toolbar button on a tab to share it',
        'unavailable',
      );
  }

  private requireTab(targetId: string): SharedTabRecord {
    const tab = this.tabs.byTargetId(targetId);
    if (!tab) throw new CdpFailure(CdpErrorCode.invalidParams, `No target with given id found: ${targetId}`, 'not_found');
    return tab;
  }

  private targetInfoFor(targetId: string): Protocol.Target.TargetInfo {
    const tab = this.tabs.byTargetId(targetId);
    if (tab) return targetId === tab.tabTargetId ? tab.tabTargetInfo() : tab.pageTargetInfo();
    for (const candidate of this.tabs.all()) {
      for (const child of candidate.children.values()) if (child.targetInfo.targetId === targetId) return child.targetInfo;
    }
    throw new CdpFailure(CdpErrorCode.invalidParams, `No target with given id found: ${targetId}`, 'not_found');
  }

  private browserTargetInfo(): Protocol.Target.TargetInfo {
    return { targetId: BROWSER_TARGET_ID, type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };
  }

  private failPending(predicate: (pending: Pending) => boolean, message: string): void {
    for (const [commandId, pending] of this.pending) {
      if (!predicate(pending)) continue;
      this.settle(commandId);
      if (pending.kind === 'internal') {
        if (pending.followup?.kind === 'step') pending.followup.done();
        continue;
      }
      if (pending.session.closed) continue;
      this.toClient(pending.session.client, errorResponse(pending.messageId, pending.session.id, { code: CdpErrorCode.serverError, message }));
    }
  }

  // ---- output -------------------------------------------------------------

  private reply(session: Session, messageId: number, result: object): void {
    this.toClient(session.client, response(messageId, session.id, result));
  }

  private emit(session: Session, method: string, params: object): void {
    this.toClient(session.client, event(method, session.id, params));
  }

  private toClient(client: Client, data: string | Uint8Array): void {
    if (this.clients.has(client.id)) this.out.push({ to: 'client', clientId: client.id, data });
  }

  private protocolError(message: string): void {
    this.out.push({ to: 'extension', data: JSON.stringify({ type: 'protocolError', message }) });
  }

  private drain(): Outbound[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}

