import type { Protocol } from 'devtools-protocol';
import { WIRE_PROTOCOL_VERSION } from '../../../protocol/constants.js';
import { lendableUrlProblem, navigationProblem, shareableUrlProblem } from '../../../protocol/url-gate.js';
import { type BrowserInfo, encodeExtensionFrame, type ExtensionHeader, type RelayCommand, type RelayMessage, type SharedTab } from '../../../protocol/wire.js';
import { BadRequestError, ForbiddenError, NotFoundError, TimeoutError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChromeMessage } from './chrome-messages.js';
import type { DevToolsSocket } from './devtools-socket.js';
import { LentDownloads } from './lent-downloads.js';
import { PopupFollower } from './popup-follower.js';

/**
 * The tabs a person lent from their own Chrome, on the wire's extension side
 * (protocol/wire.ts): what the clawd-browser extension does with
 * chrome.debugger, done here over the one DevTools connection. The relay's
 * CdpBridge, unchanged, stands between these tabs and every client: it
 * emulates the browser, holds the method policy, the cookie scope and the
 * URL gate. Here, as in the extension, each tab is attached with a flat
 * session of its own, commands run only on lent tabs and the sessions under
 * them, a tab that reaches a page never lent is taken back at once (and
 * lent again when it leaves), and a lent tab's popups follow it.
 */

/** Attaching to a tab Chrome froze or discarded may never answer: past this, lending it fails with why. */
const ATTACH_TIMEOUT_MS = 10_000;
/** The Target methods a lent tab's session answers: its own children and info (as the bridge's method policy says). */
const TAB_TARGET_METHODS = new Set(['Target.setAutoAttach', 'Target.getTargetInfo', 'Target.detachFromTarget']);
/** Domains that reach beyond a tab from any session: never sent on a lent tab's. */
const BEYOND_A_TAB = /^(Browser|SystemInfo|Tracing|Extensions|PWA|Target)\./;

interface LentTab {
  info: SharedTab;
  /** clawd's flat session on the tab's page target. */
  sessionId: string;
  /** Opened by a client (Target.createTarget, /json/new), not picked by the person. */
  byAgent: boolean;
}

/** A lent tab that reached a page never lent: taken back until it leaves. */
interface Suspension {
  why: string;
  openerTargetId?: string;
  byAgent: boolean;
}

export interface LentTabsOptions {
  socket: DevToolsSocket;
  /** A wire frame for the relay's bridge (header, newline, payload). */
  toRelay(frame: string): void;
  /** This clawd-browser's ports: its own pages are never lent. */
  ownPorts(): readonly number[];
  log: Logger;
}

export class LentTabs {
  private nextTabId = 1;
  private readonly tabs = new Map<number, LentTab>();
  private readonly byTarget = new Map<string, LentTab>();
  /** Chrome's sessions under lent tabs (theirs and their children's) → the tab. */
  private readonly sessions = new Map<string, number>();
  private readonly suspended = new Map<string, Suspension>();
  private readonly popups = new PopupFollower((targetId, opener) => {
    // Its opener may have been taken back while it loaded.
    if (this.byTarget.has(opener))
      this.lend(targetId, { opener }).catch((error: Error) => this.options.log.warn(`attached Chrome: a popup of a lent tab was not lent: ${error.message}`));
  });
  private readonly attaching = new Map<string, Promise<SharedTab>>();
  private readonly downloads = new LentDownloads(
    (frameId) => this.byTarget.get(frameId)?.info.tabId,
    (tabId) => this.tabs.has(tabId),
    (tabId, download) => this.send({ type: 'download', tabId, download }),
  );
  /** Tabs not lent that another DevTools client is attached to (another tool driving this browser). */
  private readonly elsewhere = new Set<string>();

  constructor(private readonly options: LentTabsOptions) {}

  /** The wire's hello: the relay learns which browser this is; nothing is lent yet. */
  hello(browser: BrowserInfo): void {
    this.send({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION, browser, tabs: [], proof: '' });
  }

  list(): Array<SharedTab & { byAgent: boolean }> {
    return [...this.tabs.values()].map((tab) => ({ ...tab.info, byAgent: tab.byAgent }));
  }
  isLent(targetId: string): boolean {
    return this.byTarget.has(targetId);
  }
  byAgent(targetId: string): boolean {
    return this.byTarget.get(targetId)?.byAgent ?? false;
  }
  suspendedWhy(targetId: string): string | undefined {
    return this.suspended.get(targetId)?.why;
  }
  /** How many tabs not lent another DevTools client is attached to. */
  get otherDebuggers(): number {
    return this.elsewhere.size;
  }

  /** Lends a tab (the person picked it, a client opened it, or a lent tab opened it). */
  lend(targetId: string, how: { opener?: string; byAgent?: boolean } = {}): Promise<SharedTab> {
    const lent = this.byTarget.get(targetId);
    if (lent) return Promise.resolve(lent.info);
    const under = this.attaching.get(targetId);
    if (under) return under;
    const attaching = this.attach(targetId, how).finally(() => this.attaching.delete(targetId));
    this.attaching.set(targetId, attaching);
    return attaching;
  }

  /** Takes a tab back: clients see its target go; the person's tab itself stays as it is. */
  unlend(targetId: string, reason: string): void {
    this.suspended.delete(targetId);
    const tab = this.byTarget.get(targetId);
    if (!tab) return;
    this.drop(tab, reason);
    this.options.socket.command('Target.detachFromTarget', { sessionId: tab.sessionId }).catch(() => {});
  }

  /** The connection ended: every tab goes, each client told why. */
  endAll(reason: string): void {
    for (const tab of [...this.tabs.values()]) this.drop(tab, reason);
    this.popups.clear();
    this.suspended.clear();
  }

  // ---- relay -> Chrome -----------------------------------------------------

  /** One WebSocket message of the relay's: a message or a batch. */
  fromRelay(data: string): void {
    const parsed = JSON.parse(data) as RelayMessage | RelayMessage[];
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (message.type === 'protocolError') this.options.log.warn(`attached Chrome: the relay could not use a frame: ${message.message}`);
      else if (message.type === 'cdp' || message.type === 'createTab' || message.type === 'closeTab' || message.type === 'activateTab') this.run(message);
      // pong, and the extension's own notices (consent, hand-offs), mean nothing here.
    }
  }

  private run(command: RelayCommand): void {
    const answer = (error: boolean, payload: string) => this.send({ type: error ? 'error' : 'result', id: command.id }, payload);
    const fail = (message: string) => answer(true, JSON.stringify({ code: -32000, message }));
    if (command.type === 'cdp') {
      const tab = this.tabs.get(command.tabId);
      if (!tab) return fail(`tab ${command.tabId} is not lent`);
      if (command.sessionId !== undefined && this.sessions.get(command.sessionId) !== tab.info.tabId)
        return fail(`session ${command.sessionId} is not under a lent tab`);
      if (BEYOND_A_TAB.test(command.method) && !TAB_TARGET_METHODS.has(command.method)) return fail(`${command.method} reaches beyond a lent tab`);
      const sent = this.options.socket.forward(command.method, command.params, command.sessionId ?? tab.sessionId, (reply) =>
        answer(reply.error === true, reply.payload),
      );
      if (sent === undefined) fail('the connection to Chrome is closed');
      return;
    }
    this.tabCommand(command).then(
      (result) => answer(false, JSON.stringify(result)),
      (error: Error) => fail(error.message),
    );
  }

  private async tabCommand(command: Exclude<RelayCommand, { type: 'cdp' }>): Promise<object> {
    const { socket } = this.options;
    if (command.type === 'createTab') {
      const problem = navigationProblem(command.url) ?? lendableUrlProblem(command.url, this.options.ownPorts());
      if (problem) throw new Error(`clawd-browser will not open ${JSON.stringify(command.url)}: ${problem}`);
      const { targetId } = await socket.command<{ targetId: string }>('Target.createTarget', { url: command.url, background: !command.active });
      try {
        const tab = await this.lend(targetId, { byAgent: true });
        return { tabId: tab.tabId, targetId: tab.targetId };
      } catch (error) {
        // Opened for a client and not lent after all: it is not left open.
        await socket.command('Target.closeTarget', { targetId }).catch(() => {});
        throw error;
      }
    }
    const tab = this.tabs.get(command.tabId);
    if (!tab) throw new Error(`tab ${command.tabId} is not lent`);
    await socket.command(command.type === 'closeTab' ? 'Target.closeTarget' : 'Target.activateTarget', { targetId: tab.info.targetId });
    return {};
  }

  // ---- Chrome -> relay -----------------------------------------------------

  /** An event of the DevTools connection, the browser's own or a session's. */
  onChromeEvent(message: ChromeMessage): void {
    if (message.sessionId === undefined) return this.onBrowserEvent(message);
    const tabId = this.sessions.get(message.sessionId);
    const tab = tabId === undefined ? undefined : this.tabs.get(tabId);
    if (!tab) return;
    const own = message.sessionId === tab.sessionId;
    if (message.method === 'Target.attachedToTarget' || message.method === 'Target.detachedFromTarget') {
      const child = (JSON.parse(message.payload) as { sessionId?: string }).sessionId;
      if (child && message.method === 'Target.attachedToTarget') this.sessions.set(child, tab.info.tabId);
      if (child && message.method === 'Target.detachedFromTarget') this.sessions.delete(child);
    }
    // Its own page moved somewhere never lent: taken back before this event or any command gets there.
    const landed = own ? landedOn(message, tab.info.targetId) : undefined;
    if (landed !== undefined) {
      const problem = message.method === 'Page.frameNavigated' ? lendableUrlProblem(landed, this.options.ownPorts()) : shareableUrlProblem(landed);
      if (problem) return this.suspend(tab, problem);
    }
    this.send({ type: 'event', tabId: tab.info.tabId, method: message.method!, ...(own ? {} : { sessionId: message.sessionId }) }, message.payload);
  }

  private onBrowserEvent(message: ChromeMessage): void {
    if (message.method === 'Browser.downloadWillBegin') return this.downloads.willBegin(JSON.parse(message.payload) as Protocol.Browser.DownloadWillBeginEvent);
    if (message.method === 'Browser.downloadProgress') return this.downloads.progress(JSON.parse(message.payload) as Protocol.Browser.DownloadProgressEvent);
    const params = JSON.parse(message.payload) as { targetInfo?: Protocol.Target.TargetInfo; targetId?: string; sessionId?: string };
    const info = params.targetInfo;
    if (info?.type === 'page') {
      const theirs = info.attached && !this.byTarget.has(info.targetId) && !this.attaching.has(info.targetId);
      if (theirs) this.elsewhere.add(info.targetId);
      else this.elsewhere.delete(info.targetId);
    }
    if (message.method === 'Target.targetDestroyed' && params.targetId) this.elsewhere.delete(params.targetId);
    switch (message.method) {
      case 'Target.targetCreated':
        if (info?.type === 'page' && info.openerId && this.byTarget.has(info.openerId)) this.popups.created(info, info.openerId);
        return;
      case 'Target.targetInfoChanged':
        if (info) this.changed(info);
        return;
      case 'Target.targetDestroyed':
        if (params.targetId) this.gone(params.targetId, 'the tab was closed');
        return;
      case 'Target.detachedFromTarget': {
        // Chrome let go of a lent tab by itself: lent again when it is still there, as the extension re-attaches.
        const tab = [...this.tabs.values()].find((each) => each.sessionId === params.sessionId);
        if (!tab) return;
        this.drop(tab, 'Chrome detached the tab; attaching again');
        this.lend(tab.info.targetId, { opener: tab.info.openerTargetId, byAgent: tab.byAgent }).catch(() => {});
      }
    }
  }

  private changed(info: Protocol.Target.TargetInfo): void {
    if (this.popups.changed(info)) return;
    const suspension = this.suspended.get(info.targetId);
    if (suspension && !lendableUrlProblem(info.url, this.options.ownPorts())) {
      this.suspended.delete(info.targetId);
      this.lend(info.targetId, { opener: suspension.openerTargetId, byAgent: suspension.byAgent }).catch((error: Error) =>
        this.suspended.set(info.targetId, { ...suspension, why: error.message }),
      );
      return;
    }
    const tab = this.byTarget.get(info.targetId);
    if (!tab) return;
    const problem = lendableUrlProblem(info.url, this.options.ownPorts());
    if (problem) return this.suspend(tab, problem);
    if (tab.info.url === info.url && tab.info.title === info.title) return;
    tab.info = { ...tab.info, url: info.url, title: info.title };
    this.send({ type: 'tabUpdated', tab: tab.info });
  }

  private gone(targetId: string, reason: string): void {
    this.suspended.delete(targetId);
    this.popups.gone(targetId);
    const tab = this.byTarget.get(targetId);
    if (tab) this.drop(tab, reason);
  }

  // ---- lending ---------------------------------------------------------------

  private async attach(targetId: string, how: { opener?: string; byAgent?: boolean }): Promise<SharedTab> {
    const { socket, ownPorts } = this.options;
    const target = await this.targetInfo(targetId);
    if (target.type !== 'page' || target.subtype) throw new BadRequestError(`Target ${targetId} is not a tab (it is a ${target.subtype ?? target.type})`);
    const problem = lendableUrlProblem(target.url, ownPorts());
    if (problem) throw new ForbiddenError(`This tab is never lent: ${problem}`);
    const { sessionId } = await socket
      .command<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }, undefined, ATTACH_TIMEOUT_MS)
      .catch((error: Error) => {
        throw /did not answer/.test(error.message)
          ? new TimeoutError(
              `Chrome did not let clawd-browser attach to this tab within ${ATTACH_TIMEOUT_MS / 1000} s: it may be frozen or discarded; bring it to the front to wake it, then lend it again`,
            )
          : error;
      });
    // Where it is now: it may have moved while being attached.
    const now = await this.targetInfo(targetId).catch(() => undefined);
    const moved = now ? lendableUrlProblem(now.url, ownPorts()) : 'the tab was closed';
    if (moved) {
      await socket.command('Target.detachFromTarget', { sessionId }).catch(() => {});
      throw new ForbiddenError(`This tab is never lent: ${moved}`);
    }
    const opener = how.opener && this.byTarget.has(how.opener) ? how.opener : undefined;
    const info: SharedTab = { tabId: this.nextTabId++, targetId, url: now!.url, title: now!.title, ...(opener ? { openerTargetId: opener } : {}) };
    const tab: LentTab = { info, sessionId, byAgent: how.byAgent === true };
    this.tabs.set(info.tabId, tab);
    this.byTarget.set(targetId, tab);
    this.sessions.set(sessionId, info.tabId);
    this.send({ type: 'tabShared', tab: info });
    return info;
  }

  private async targetInfo(targetId: string): Promise<Protocol.Target.TargetInfo> {
    const answer = await this.options.socket.command<Protocol.Target.GetTargetInfoResponse>('Target.getTargetInfo', { targetId }).catch(() => undefined);
    if (!answer) throw new NotFoundError(`No tab ${targetId} in your browser (it was closed?)`);
    return answer.targetInfo;
  }

  /** Reached a page never lent: clients lose it now; it is lent again when it leaves (changed()). */
  private suspend(tab: LentTab, why: string): void {
    this.unlend(tab.info.targetId, `suspended: ${why}`);
    this.suspended.set(tab.info.targetId, { why, openerTargetId: tab.info.openerTargetId, byAgent: tab.byAgent });
  }

  private drop(tab: LentTab, reason: string): void {
    this.tabs.delete(tab.info.tabId);
    this.byTarget.delete(tab.info.targetId);
    for (const [sessionId, tabId] of this.sessions) if (tabId === tab.info.tabId) this.sessions.delete(sessionId);
    this.send({ type: 'tabUnshared', tabId: tab.info.tabId, reason });
  }

  private send(header: ExtensionHeader, payload = ''): void {
    this.options.toRelay(encodeExtensionFrame(header, payload));
  }
}

/**
 * The URL a lent tab's own page now shows, from its session's events: its
 * main frame navigating, or its main frame's page world starting (the main
 * frame's id is its target's). Other worlds are not the page's: the
 * person's extensions put content scripts in worlds of their own origin.
 */
function landedOn(message: ChromeMessage, mainFrameId: string): string | undefined {
  if (message.method !== 'Page.frameNavigated' && message.method !== 'Runtime.executionContextCreated') return undefined;
  const params = JSON.parse(message.payload) as {
    frame?: { url?: string; parentId?: string };
    context?: { origin?: string; auxData?: { isDefault?: boolean; frameId?: string } };
  };
  if (message.method === 'Page.frameNavigated') return params.frame?.parentId ? undefined : params.frame?.url;
  const { context } = params;
  return context?.auxData?.isDefault && context.auxData.frameId === mainFrameId ? context.origin || undefined : undefined;
}
