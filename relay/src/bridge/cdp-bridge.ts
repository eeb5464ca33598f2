import type { Protocol } from 'devtools-protocol';
import { z } from 'zod';
import { WIRE_PROTOCOL_VERSION } from '../../../protocol/constants.js';
import { type BrowserInfo, type ExtensionHeader, decodeExtensionFrames, type SharedTab } from '../../../protocol/wire.js';
import { describeIssues } from '../validation.js';
import type { UrlPolicy } from '../runtime/url-policy.js';
import { BridgeCore } from './bridge-core.js';
import { BrowserTarget } from './browser-target.js';
import { CdpErrorCode, errorResponse } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import { EXTENSION_WORDS, type ExtensionState, type PeerWords } from './extension-link.js';
import { BadPayload, parseExtensionControl } from './extension-messages.js';
import type { Outbound } from './outbound.js';
import { runPageCommand } from './page-commands.js';
import { FileUploads, type ReadFile } from './file-uploads.js';
import { DownloadEvents } from './download-events.js';
import { ExtensionAnswers, looksLikeObject } from './extension-answers.js';
import type { SharedTabRecord } from './tab-registry.js';

export type { Outbound } from './outbound.js';
export type { ExtensionState, PeerWords } from './extension-link.js';

/**
 * The browser-level CDP emulation behind the extension relay: CDP clients
 * (Playwright, Puppeteer) see a browser that holds exactly the shared tabs.
 *
 * CdpBridge is the facade; each concern has its own module:
 * - client-sessions.ts: clients, their sessions and ids;
 * - browser-target.ts: Browser.* and Target.*, answered by the relay itself;
 * - page-commands.ts: what goes to a tab (method policy, cookies, forwarding);
 * - extension-answers.ts: answers and events from the extension, to the clients;
 * - domain-gate.ts: enable counting, held events, context replay;
 * - extension-link.ts: the link's state, pending and queued commands.
 *
 * It owns no sockets and no timers: every entry point takes a message and
 * returns the messages to send (`Outbound`), so it is tested without I/O.
 */

export interface CdpBridgeOptions {
  /** Commands held while the extension reconnects; beyond this they fail. */
  maxQueuedCommands?: number;
  /** Commands one client may have waiting for the extension; beyond this they fail at once. */
  maxPendingPerClient?: number;
  /** A command the extension has not answered in this long fails (see expirePending). */
  pendingTimeoutMs?: number;
  /** Schemes the URL gate allows beyond http, https and about:blank (config allowedUrlSchemes). */
  allowedUrlSchemes?: string[];
  /** The URL policy (config urlPolicy), read at each check so edits apply. */
  urlPolicy?: () => UrlPolicy | undefined;
  /** This clawd-browser's own ports (control API, relay): no client opens its pages (url-gate.ts clawdOwnPage). */
  ownPorts?: () => readonly number[];
  /** The clock for pending expiry (tests inject one). */
  now?: () => number;
  /** How errors name the far side (default: the extension). */
  words?: PeerWords;
}

export const DEFAULT_MAX_PENDING_PER_CLIENT = 10_000;
export const DEFAULT_PENDING_TIMEOUT_MS = 300_000;

const ClientCommand = z.object({
  id: z.number().int().nonnegative(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
  sessionId: z.string().optional(),
});

export class CdpBridge {
  private readonly core: BridgeCore;
  private readonly browser: BrowserTarget;
  private readonly uploads: FileUploads;
  private readonly downloads: DownloadEvents;
  private readonly answers: ExtensionAnswers;

  constructor(options: CdpBridgeOptions = {}) {
    this.core = new BridgeCore(
      {
        maxQueuedCommands: options.maxQueuedCommands ?? 10_000,
        maxPendingPerClient: options.maxPendingPerClient ?? DEFAULT_MAX_PENDING_PER_CLIENT,
        pendingTimeoutMs: options.pendingTimeoutMs ?? DEFAULT_PENDING_TIMEOUT_MS,
        now: options.now ?? Date.now,
        words: options.words ?? EXTENSION_WORDS,
      },
      options.allowedUrlSchemes ?? [],
      options.urlPolicy ?? (() => undefined),
      options.ownPorts ?? (() => []),
    );
    this.browser = new BrowserTarget(this.core);
    this.uploads = new FileUploads(this.core);
    this.downloads = new DownloadEvents(this.core);
    this.answers = new ExtensionAnswers(this.core, this.browser);
  }

  /** The server copied a finished download for an allowAndName client (Outbound `copyDownload`), or could not. */
  downloadCopied(requestId: number, ok: boolean): Outbound[] {
    this.downloads.copied(requestId, ok);
    return this.core.out.drain();
  }

  /** The server read (or refused) the files of a DOM.setFileInputFiles (Outbound `readFiles`). */
  filesRead(requestId: number, result: { files: ReadFile[] } | { error: string }): Outbound[] {
    this.uploads.filesRead(requestId, result);
    return this.core.out.drain();
  }

  // ---- status -------------------------------------------------------------

  get extensionState(): ExtensionState {
    const state = this.core.link.state;
    // Until its hello, a new link is as good as none: tabs are held or not.
    if (state === 'handshaking') return this.core.tabs.size > 0 ? 'reconnecting' : 'absent';
    return state;
  }
  /** Commands waiting for the extension, all clients together. */
  get pendingCount(): number {
    return this.core.link.pendingCount;
  }
  get clientCount(): number {
    return this.core.sessions.clientCount;
  }
  sharedTabs(): SharedTab[] {
    return this.core.tabs.all().map((tab) => ({ ...tab.info }));
  }
  /** Targets Chrome auto-attached under shared tabs (out-of-process iframes, workers). */
  childTargets(): Protocol.Target.TargetInfo[] {
    return this.core.tabs.all().flatMap((tab) => [...tab.children.values()].map((child) => child.targetInfo));
  }
  findTab(targetId: string): SharedTab | undefined {
    const tab = this.core.tabs.byTargetId(targetId);
    return tab && { ...tab.info };
  }
  browserVersion(): Protocol.Browser.GetVersionResponse {
    return this.browser.version();
  }

  // ---- CDP clients --------------------------------------------------------

  /** A CDP client; with `group`, it sees only that tab group's tabs (browser-target.ts). */
  addClient(group?: string): number {
    return this.core.sessions.addClient(group).id;
  }

  removeClient(clientId: number): Outbound[] {
    const { sessions, link } = this.core;
    const client = sessions.client(clientId);
    if (!client) return [];
    sessions.removeClient(client);
    this.uploads.forget((session) => session.client === client);
    for (const session of [...client.sessions.values()]) this.core.closeSession(session, { undo: true });
    // Its commands still in flight are nobody's any more: forget them now, not when (or if) answered.
    link.settleWhere((work) => work.kind !== 'internal' && work.session.client === client);
    return this.core.out.drain();
  }

  handleClientMessage(clientId: number, text: string): Outbound[] {
    const { sessions, out } = this.core;
    const client = sessions.client(clientId);
    if (!client) return [];
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      out.toClient(client, errorResponse(undefined, '', { code: CdpErrorCode.parseError, message: 'Message must be a valid JSON' }));
      return out.drain();
    }
    const parsed = ClientCommand.safeParse(message);
    if (!parsed.success) {
      const id = (message as { id?: unknown })?.id;
      const error = { code: CdpErrorCode.invalidRequest, message: `Invalid CDP message: ${describeIssues(parsed.error, 'message')}` };
      out.toClient(client, errorResponse(typeof id === 'number' ? id : undefined, '', error));
      return out.drain();
    }
    const { id, method, params, sessionId = '' } = parsed.data;
    const session = client.sessions.get(sessionId);
    try {
      if (!session) throw new CdpFailure(CdpErrorCode.sessionNotFound, `Session with given id not found: ${sessionId}`);
      switch (session.kind) {
        case 'browser':
          this.browser.browserCommand(session, id, method, params);
          break;
        case 'tab':
          this.browser.tabCommand(session, id, method, params);
          break;
        default:
          runPageCommand(this.core, this.browser, this.uploads, session, id, method, params);
      }
    } catch (error) {
      if (!(error instanceof CdpFailure)) throw error;
      out.toClient(client, errorResponse(id, sessionId, { code: error.code, message: error.message, data: error.kind }));
    }
    return out.drain();
  }

  // ---- the extension link -------------------------------------------------

  /** A new extension socket proved the key; it must say hello before anything else. */
  extensionConnected(): void {
    this.core.link.opened();
  }

  /** The extension socket closed. Shared tabs stay through a grace period. */
  extensionDisconnected(): Outbound[] {
    const { lost, repeated } = this.core.link.closed(this.core.tabs.size > 0);
    for (const work of repeated) {
      if (work.kind === 'forward' && work.followup?.kind === 'isolatedWorld') work.followup.repeated = true;
    }
    this.answers.fail(lost, `${this.core.link.words.name} disconnected while the command was in flight`);
    return this.core.out.drain();
  }

  /** The grace period ended without the extension coming back. */
  expireGrace(): Outbound[] {
    if (!this.core.link.graceExpired()) return [];
    const why = `${this.core.link.words.name} did not reconnect`;
    for (const tab of this.core.tabs.all()) this.removeTab(tab, why);
    this.answers.fail(
      this.core.link.settleWhere(() => true),
      why,
    );
    return this.core.out.drain();
  }

  /** The server listens on other ports now: every shared tab holds them offline too (own-origins.ts). */
  ownPortsChanged(): Outbound[] {
    this.core.ownOrigins.refresh();
    return this.core.out.drain();
  }

  /**
   * Fails the commands the extension has not answered in time, so no client
   * waits forever. The server calls this on a timer.
   */
  expirePending(): Outbound[] {
    this.answers.fail(this.core.link.settleExpired(), `${this.core.link.words.name} did not answer within ${this.core.link.timeoutSeconds} s`);
    return this.core.out.drain();
  }

  /** One WebSocket message from the extension: one frame or a batch of them. */
  handleExtensionMessage(data: Uint8Array): Outbound[] {
    const out = this.core.out;
    for (const frame of decodeExtensionFrames(data)) {
      if ('error' in frame) {
        out.protocolError(frame.error);
        continue;
      }
      try {
        this.onExtensionFrame(frame.header, frame.payload);
      } catch (error) {
        if (!(error instanceof BadPayload)) throw error;
        out.protocolError(`${frame.header.type} frame dropped: ${error.message}`);
      }
    }
    return out.drain();
  }

  private onExtensionFrame(header: ExtensionHeader, payload: Uint8Array): void {
    const { out, tabs, link } = this.core;
    // Results and events are the hot path: checked by hand, not by schema.
    switch (header.type) {
      case 'result':
      case 'error':
        if (typeof header.id !== 'number') return out.protocolError(`${header.type} without a numeric id`);
        return this.answers.answer(header.id, header.type === 'error', payload);
      case 'event':
        if (typeof header.tabId !== 'number' || typeof header.method !== 'string' || !/^[A-Za-z]+\.[A-Za-z]+$/.test(header.method))
          return out.protocolError('event needs a numeric tabId and a Domain.event method');
        // Payloads are spliced into client messages unparsed: one that is not an object would break the client's JSON.
        if (!looksLikeObject(payload)) return out.protocolError('event frame dropped: payload is not a JSON object');
        return this.answers.event(header.tabId, header.sessionId ?? '', header.method, payload);
    }
    const control = parseExtensionControl(header);
    if (typeof control === 'string') return out.protocolError(control);
    if (control.type !== 'hello' && link.state !== 'connected') return out.protocolError('send hello first');
    switch (control.type) {
      case 'hello':
        if (control.protocol !== WIRE_PROTOCOL_VERSION)
          return out.protocolError(`wire protocol ${control.protocol} is not supported; this relay speaks ${WIRE_PROTOCOL_VERSION}`);
        return this.onHello(control.browser, control.tabs);
      case 'tabShared':
        return this.onTabShared(control.tab);
      case 'tabUpdated':
        return this.onTabUpdated(control.tab);
      case 'tabUnshared': {
        const tab = tabs.get(control.tabId);
        if (tab) this.removeTab(tab, control.reason);
        return;
      }
      case 'download': {
        const tab = tabs.get(control.tabId);
        if (!tab) return;
        out.download(tab.targetId, control.download);
        this.downloads.report(tab, control.download);
        return;
      }
      case 'consentAnswer':
        out.consent(control.id, control.allowed, control.domains);
        return;
      case 'teach': {
        // Teaching is on a tab the person shared, and only there.
        const { type: _type, tabId, ...request } = control;
        const tab = tabs.get(tabId);
        if (!tab)
          return out.toExtension(
            JSON.stringify({
              type: 'taught',
              id: control.id,
              ok: false,
              error: 'this tab is not shared with clawd-browser: share it first (click the toolbar button)',
            }),
          );
        out.teach({ ...request, targetId: tab.targetId });
        return;
      }
      case 'ping':
        out.toExtension(JSON.stringify({ type: 'pong' }));
        return;
    }
  }

  private onHello(browser: BrowserInfo, shared: SharedTab[]): void {
    this.browser.setBrowser(browser);
    const announced = new Set(shared.map((tab) => tab.tabId));
    for (const tab of this.core.tabs.all()) {
      if (!announced.has(tab.tabId)) this.removeTab(tab, 'no longer shared by the extension');
    }
    for (const info of shared) this.onTabShared(info);
    // Queued commands go out after the tabs are reconciled: they may be for those tabs.
    this.core.link.helloReceived();
  }

  private onTabShared(info: SharedTab): void {
    const existing = this.core.tabs.get(info.tabId);
    // The same page re-announced (relay reconnect, worker restart): clients keep
    // their sessions. A re-attached debugger arrives as tabUnshared + tabShared.
    if (existing && existing.targetId === info.targetId) return this.onTabUpdated(info);
    if (existing) this.removeTab(existing, 'the tab now shows a different page target');
    const tab = this.core.tabs.add(info);
    // Before any client can reach it: this server's own origins are out of its reach (own-origins.ts).
    this.core.ownOrigins.watch(tab);
    this.browser.tabAdded(tab);
  }

  private onTabUpdated(info: SharedTab): void {
    const tab = this.core.tabs.get(info.tabId);
    if (!tab) return;
    tab.info = { ...info, openerTargetId: info.openerTargetId ?? tab.info.openerTargetId };
    this.browser.tabChanged(tab);
  }

  /** A tab left the relay: its pending commands fail, clients are told, nothing hangs. */
  private removeTab(tab: SharedTabRecord, reason: string): void {
    this.core.tabs.remove(tab.tabId);
    const lost = this.core.link.settleWhere((work) => work.kind !== 'createTarget' && work.tabId === tab.tabId);
    this.answers.fail(lost, `Target closed: ${reason}`);
    this.browser.tabRemoved(tab);
  }
}
