import type { Protocol } from 'devtools-protocol';
import { z } from 'zod';
import type { BrowserInfo } from '../../../protocol/wire.js';
import { type BridgeCore, sees } from './bridge-core.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure, parseParams } from './cdp-failure.js';
import { type BrowserSession, type Session, type TabSession, type TargetSession, targetIdOf } from './client-sessions.js';
import { runCookieCommand } from './cookie-commands.js';
import { DownloadBehaviorParams } from './download-events.js';
import { filterAccepts } from './target-filter.js';
import { BROWSER_TARGET_ID, DEFAULT_BROWSER_CONTEXT_ID, type SharedTabRecord } from './tab-registry.js';

/**
 * The emulated browser target. chrome.debugger gives an extension one
 * session per tab and nothing at the browser level, so the relay answers
 * Browser.* and Target.* itself, for a browser that holds exactly the shared
 * tabs, and tells discovering and auto-attaching clients when tabs come and go.
 */

const Filter = z.array(z.object({ type: z.string().optional(), exclude: z.boolean().optional() }));
const AutoAttachParams = z.object({
  autoAttach: z.boolean(),
  waitForDebuggerOnStart: z.boolean().optional(),
  flatten: z.boolean().optional(),
  filter: Filter.optional(),
});
const DiscoverParams = z.object({ discover: z.boolean(), filter: Filter.optional() }) satisfies z.ZodType<Protocol.Target.SetDiscoverTargetsRequest>;
const FilterParams = z.object({ filter: Filter.optional() }) satisfies z.ZodType<Protocol.Target.GetTargetsRequest>;
const TargetIdParams = z.object({ targetId: z.string() }) satisfies z.ZodType<Protocol.Target.CloseTargetRequest>;
const OptionalTargetIdParams = z.object({ targetId: z.string().optional() }) satisfies z.ZodType<Protocol.Target.GetTargetInfoRequest>;
const AttachParams = z.object({ targetId: z.string(), flatten: z.boolean().optional() }) satisfies z.ZodType<Protocol.Target.AttachToTargetRequest>;
const DetachParams = z.object({
  sessionId: z.string().optional(),
  targetId: z.string().optional(),
}) satisfies z.ZodType<Protocol.Target.DetachFromTargetRequest>;
const CreateTargetParams = z.object({ url: z.string().optional(), background: z.boolean().optional() });
const CookiesParams = z.object({ cookies: z.array(z.unknown()) });

const FLAT_ONLY = 'clawd-browser supports only flat sessions (flatten: true)';

export class BrowserTarget {
  private browser: BrowserInfo | undefined;

  constructor(private readonly core: BridgeCore) {}

  /** What the extension's hello says about the user's browser. */
  setBrowser(browser: BrowserInfo): void {
    this.browser = browser;
  }

  version(): Protocol.Browser.GetVersionResponse {
    return {
      protocolVersion: '1.3',
      product: this.browser?.product ?? 'Chrome/0.0.0.0',
      revision: '@clawd-browser-relay',
      // Clients treat "Headless" as a capability hint; the user's browser is headful.
      userAgent: (this.browser?.userAgent ?? '').replace('HeadlessChrome', 'Chrome'),
      jsVersion: '',
    };
  }

  // ---- commands -----------------------------------------------------------

  browserCommand(session: BrowserSession, id: number, method: string, params: unknown): void {
    const { out, link } = this.core;
    switch (method) {
      case 'Browser.getVersion':
        return out.reply(session, id, method, this.version());
      case 'Browser.close':
        // Closing the user's browser is not ours to do: end this client only.
        out.reply(session, id, method, {});
        out.closeClient(session.client, 'Browser.close');
        return;
      case 'Browser.setDownloadBehavior': {
        // The user's browser keeps its own download settings; what this records is whether the
        // client hears of downloads, and where it expects their files (download-events.ts).
        const { behavior, downloadPath, eventsEnabled } = parseParams(DownloadBehaviorParams, params, method);
        session.downloads = { behavior, downloadPath, eventsEnabled };
        return out.reply(session, id, method, {});
      }
      case 'Target.setDiscoverTargets': {
        const { discover, filter } = parseParams(DiscoverParams, params, method);
        session.discover = discover ? { filter } : undefined;
        if (discover) {
          if (filterAccepts(filter, 'browser')) out.emit(session, 'Target.targetCreated', { targetInfo: browserTargetInfo() });
          for (const tab of this.core.tabsFor(session.client)) this.announceCreated(session, tab);
        }
        return out.reply(session, id, method, {});
      }
      case 'Target.setAutoAttach': {
        const { autoAttach, flatten, filter } = parseParams(AutoAttachParams, params, method);
        if (autoAttach && !flatten) throw new CdpFailure(CdpErrorCode.invalidParams, FLAT_ONLY);
        session.autoAttach = autoAttach ? { filter } : undefined;
        if (autoAttach) for (const tab of this.core.tabsFor(session.client)) this.autoAttachTab(session, tab);
        return out.reply(session, id, method, {});
      }
      case 'Target.getTargets': {
        const { filter } = parseParams(FilterParams, params, method);
        const targetInfos: Protocol.Target.TargetInfo[] = [];
        if (filterAccepts(filter, 'browser')) targetInfos.push(browserTargetInfo());
        for (const tab of this.core.tabsFor(session.client)) {
          if (filterAccepts(filter, 'tab')) targetInfos.push(tab.tabTargetInfo());
          if (filterAccepts(filter, 'page')) targetInfos.push(tab.pageTargetInfo());
        }
        return out.reply(session, id, method, { targetInfos });
      }
      case 'Target.getTargetInfo': {
        const { targetId } = parseParams(OptionalTargetIdParams, params, method);
        const targetInfo = !targetId || targetId === BROWSER_TARGET_ID ? browserTargetInfo() : this.core.targetInfoFor(targetId, session.client);
        return out.reply(session, id, method, { targetInfo });
      }
      case 'Target.attachToTarget': {
        const { targetId, flatten } = parseParams(AttachParams, params, method);
        if (!flatten) throw new CdpFailure(CdpErrorCode.invalidParams, FLAT_ONLY);
        if (targetId === BROWSER_TARGET_ID) {
          // Puppeteer's browser.target().createCDPSession(): a browser session of its own.
          const browser = this.core.sessions.openBrowser(session.client, session);
          out.emit(session, 'Target.attachedToTarget', { sessionId: browser.id, targetInfo: browserTargetInfo(), waitingForDebugger: false });
          return out.reply(session, id, method, { sessionId: browser.id });
        }
        const known = this.core.childFor(targetId, session.client);
        if (known && !this.core.tabs.byTargetId(targetId)) {
          // A child target of a shared tab: a session of the client's own on it.
          const attached = this.core.sessions.openAttachedChild(session, known.tab, known.child.sessionId);
          out.emit(session, 'Target.attachedToTarget', { sessionId: attached.id, targetInfo: known.child.targetInfo, waitingForDebugger: false });
          return out.reply(session, id, method, { sessionId: attached.id });
        }
        const tab = this.core.requireTab(targetId, session.client);
        const attached = this.attach(session, tab, targetId === tab.tabTargetId ? 'tab' : 'page');
        return out.reply(session, id, method, { sessionId: attached.id });
      }
      case 'Target.attachToBrowserTarget': {
        const browser = this.core.sessions.openBrowser(session.client, session);
        out.emit(session, 'Target.attachedToTarget', { sessionId: browser.id, targetInfo: browserTargetInfo(), waitingForDebugger: false });
        return out.reply(session, id, method, { sessionId: browser.id });
      }
      case 'Target.detachFromTarget':
        return this.detach(session, id, params);
      case 'Target.createTarget': {
        const { url, background } = parseParams(CreateTargetParams, params, method);
        this.core.checkUrl(url || 'about:blank');
        // A grouped client's new tab goes into its group, where it (alone) sees it.
        const group = session.client.group;
        link.send(
          { type: 'createTab', id: 0, url: url || 'about:blank', active: background !== true, ...(group ? { group } : {}) },
          { kind: 'createTarget', session, messageId: id },
        );
        return;
      }
      case 'Target.closeTarget': {
        const tab = this.core.requireTab(parseParams(TargetIdParams, params, method).targetId, session.client);
        const result: Protocol.Target.CloseTargetResponse = { success: true };
        return link.send({ type: 'closeTab', id: 0, tabId: tab.tabId }, { kind: 'tabOp', session, messageId: id, tabId: tab.tabId, result: { ...result } });
      }
      case 'Target.activateTarget': {
        const tab = this.core.requireTab(parseParams(TargetIdParams, params, method).targetId, session.client);
        return link.send({ type: 'activateTab', id: 0, tabId: tab.tabId }, { kind: 'tabOp', session, messageId: id, tabId: tab.tabId, result: {} });
      }
      case 'Target.getBrowserContexts':
        return out.reply(session, id, method, { browserContextIds: [], defaultBrowserContextId: DEFAULT_BROWSER_CONTEXT_ID });
      case 'Target.createBrowserContext':
      case 'Target.disposeBrowserContext':
        throw new CdpFailure(CdpErrorCode.serverError, this.core.link.words.oneContext);
      // Cookie calls are browser-level in CDP; the Network domain of any
      // shared tab reaches the same cookie jar, scoped to the shared sites.
      case 'Storage.getCookies':
      case 'Storage.clearCookies':
        return runCookieCommand(this.core, session, id, method, {}, this.core.anyTab(session.client));
      case 'Storage.setCookies': {
        const { cookies } = parseParams(CookiesParams, params, method);
        return runCookieCommand(this.core, session, id, method, { cookies }, this.core.anyTab(session.client));
      }
      default:
        throw new CdpFailure(CdpErrorCode.methodNotFound, `'${method}' wasn't found: the clawd-browser relay has no real browser target, only the shared tabs`);
    }
  }

  /** Commands on a synthetic tab target (Puppeteer attaches pages through these). */
  tabCommand(session: TabSession, id: number, method: string, params: unknown): void {
    const out = this.core.out;
    switch (method) {
      case 'Target.setAutoAttach': {
        const { autoAttach, filter } = parseParams(AutoAttachParams, params, method);
        session.autoAttach = autoAttach ? { filter } : undefined;
        const hasPage = [...session.client.sessions.values()].some((s) => s.parent === session && s.kind === 'page');
        if (autoAttach && filterAccepts(filter, 'page') && !hasPage) this.attach(session, session.tab, 'page');
        return out.reply(session, id, method, {});
      }
      case 'Runtime.runIfWaitingForDebugger':
        return out.reply(session, id, method, {});
      case 'Target.getTargetInfo':
        return out.reply(session, id, method, { targetInfo: session.tab.tabTargetInfo() });
      case 'Target.detachFromTarget':
        return this.detach(session, id, params);
      default:
        throw new CdpFailure(CdpErrorCode.methodNotFound, `'${method}' wasn't found on a tab target`);
    }
  }

  /** Target.detachFromTarget, on whichever session a client sends it. */
  detach(from: Session, id: number, params: unknown): void {
    const { sessionId, targetId } = parseParams(DetachParams, params, 'Target.detachFromTarget');
    const client = from.client;
    const target =
      sessionId !== undefined ? client.sessions.get(sessionId) : [...client.sessions.values()].find((s) => s.kind !== 'browser' && targetIdOf(s) === targetId);
    if (!target || (target.kind === 'browser' && target.id === ''))
      throw new CdpFailure(CdpErrorCode.invalidParams, `No session with given id: ${sessionId ?? targetId ?? '(none given)'}`);
    if (target.parent) {
      this.core.out.emit(target.parent, 'Target.detachedFromTarget', {
        sessionId: target.id,
        ...(target.kind !== 'browser' ? { targetId: targetIdOf(target) } : {}),
      });
    }
    this.core.closeSession(target, { undo: true });
    this.core.out.reply(from, id, 'Target.detachFromTarget', {});
  }

  // ---- tabs coming and going ----------------------------------------------

  /** A tab was shared: discovering clients hear of it, auto-attaching ones attach. */
  tabAdded(tab: SharedTabRecord): void {
    for (const session of [...this.core.sessions.browserSessions()]) {
      if (!sees(session.client, tab)) continue;
      if (session.discover) this.announceCreated(session, tab);
      if (session.autoAttach) this.autoAttachTab(session, tab);
    }
  }

  tabChanged(tab: SharedTabRecord): void {
    for (const session of this.core.sessions.browserSessions()) {
      if (!session.discover || !sees(session.client, tab)) continue;
      if (filterAccepts(session.discover.filter, 'tab')) this.core.out.emit(session, 'Target.targetInfoChanged', { targetInfo: tab.tabTargetInfo() });
      if (filterAccepts(session.discover.filter, 'page')) this.core.out.emit(session, 'Target.targetInfoChanged', { targetInfo: tab.pageTargetInfo() });
    }
  }

  /** Chrome reports a crash to the browser target too; discovering clients expect it there. */
  tabCrashed(tab: SharedTabRecord): void {
    for (const session of this.core.sessions.browserSessions()) {
      if (session.discover && sees(session.client, tab) && filterAccepts(session.discover.filter, 'page'))
        this.core.out.emit(session, 'Target.targetCrashed', { targetId: tab.targetId, status: 'crashed', errorCode: 0 });
    }
  }

  /** A tab left the relay: every session on it is detached, discovering clients told. */
  tabRemoved(tab: SharedTabRecord): void {
    const { sessions, out } = this.core;
    const order: Array<TargetSession['kind']> = ['child', 'page', 'tab'];
    const onTab = sessions.onTab(tab.tabId).sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    for (const session of onTab) {
      if (session.closed) continue;
      if (session.parent && !session.parent.closed)
        out.emit(session.parent, 'Target.detachedFromTarget', { sessionId: session.id, targetId: targetIdOf(session) });
      this.core.closeSession(session, { undo: false });
    }
    sessions.forgetTab(tab.tabId);
    for (const session of sessions.browserSessions()) {
      if (!session.discover || !sees(session.client, tab)) continue;
      if (filterAccepts(session.discover.filter, 'page')) out.emit(session, 'Target.targetDestroyed', { targetId: tab.targetId });
      if (filterAccepts(session.discover.filter, 'tab')) out.emit(session, 'Target.targetDestroyed', { targetId: tab.tabTargetId });
    }
  }

  // ---- helpers --------------------------------------------------------------

  /** Creates a tab or page session under `parent` and tells the client. */
  private attach(parent: Session, tab: SharedTabRecord, kind: 'tab' | 'page'): Session {
    const session = kind === 'tab' ? this.core.sessions.openTab(parent, tab) : this.core.sessions.openPage(parent, tab);
    this.core.out.emit(parent, 'Target.attachedToTarget', {
      sessionId: session.id,
      targetInfo: kind === 'tab' ? tab.tabTargetInfo() : tab.pageTargetInfo(),
      waitingForDebugger: false,
    });
    return session;
  }

  private autoAttachTab(browserSession: BrowserSession, tab: SharedTabRecord): void {
    const filter = browserSession.autoAttach?.filter;
    const kind = filterAccepts(filter, 'tab') ? 'tab' : filterAccepts(filter, 'page') ? 'page' : undefined;
    if (!kind) return;
    const already = [...browserSession.client.sessions.values()].some((s) => s.parent === browserSession && s.kind === kind && s.tab === tab);
    if (!already) this.attach(browserSession, tab, kind);
  }

  private announceCreated(browserSession: BrowserSession, tab: SharedTabRecord): void {
    const filter = browserSession.discover?.filter;
    if (filterAccepts(filter, 'tab')) this.core.out.emit(browserSession, 'Target.targetCreated', { targetInfo: tab.tabTargetInfo() });
    if (filterAccepts(filter, 'page')) this.core.out.emit(browserSession, 'Target.targetCreated', { targetInfo: tab.pageTargetInfo() });
  }
}

function browserTargetInfo(): Protocol.Target.TargetInfo {
  return { targetId: BROWSER_TARGET_ID, type: 'browser', title: '', url: '', attached: true, canAccessOpener: false };
}
