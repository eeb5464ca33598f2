import type { Protocol } from 'devtools-protocol';
import { lendableUrlProblem } from '../../../protocol/url-gate.js';
import type { Platform } from '../config/platform.js';
import { ConflictError, UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { ASKING_MESSAGE, type AttachProblemKind, AttachFailure, whyNotDebuggable } from './attach-problems.js';
import { DevToolsSocket } from './devtools-socket.js';
import { LentTabs } from './lent-tabs.js';
import { browserHomes, describeHome, type HomeReport } from './user-data.js';

/**
 * clawd-browser attached to the person's own running Chrome (or Chromium,
 * Edge, Brave) through Chrome's remote-debugging consent: found by the
 * DevToolsActivePort in its user data folder, connected once (Chrome asks
 * the person), and held here, never handed to an agent. What a client of the
 * `chrome` profile reaches is only what the person lends (lent-tabs.ts),
 * through the relay's CdpBridge.
 *
 * An attach starts when asked (`POST /chrome/attach`, the picker) or when the
 * `chrome` profile is first used; it is not retried by itself after the
 * person declined or did not answer, so nobody is asked twice unbidden. When
 * the browser quits or restarts, every lent tab is taken back; the next
 * attach finds it again by its new DevToolsActivePort.
 */

export type AttachState = 'detached' | 'connecting' | 'asking' | 'attached' | 'failed';

export interface AttachStatus {
  state: AttachState;
  /** The browser attached to (or being attached). */
  browser?: { title: string; userDataDir: string; product?: string; profiles: string[] };
  problem?: { kind: AttachProblemKind; message: string; fix: string };
  lentTabs: number;
  /** Tabs not lent that another DevTools client (another tool) is attached to. */
  otherDebuggers?: number;
}

/** One of the person's tabs, as the picker lists it. */
export interface PersonTab {
  targetId: string;
  title: string;
  url: string;
  /** The site's icon where it may be shown (http(s) pages but clawd's own). */
  favicon?: string;
  lent: boolean;
  /** A client opened it (it is lent to that client from the start). */
  byAgent: boolean;
  /** Why it cannot be lent (clawd's own pages, browser pages, files), or why it is taken back for now. */
  notLendable?: string;
  suspended?: string;
  /** Another DevTools client (another tool) is attached to it. */
  otherDebugger: boolean;
}

/** What the attachment tells the relay: the wire's frames, and its link coming and going. */
export interface RelaySide {
  connected(): void;
  frame(frame: string): void;
  disconnected(): void;
}

export interface ChromeAttachmentOptions {
  /** config.json's chrome settings, read at each attach. */
  settings(): { userDataDir?: string; answerTimeoutSeconds: number };
  platform: Platform;
  /** The person's home folder (where the default user data folders are). */
  home: string;
  ownPorts(): readonly number[];
  log: Logger;
}

const PERSON_DECLINED = new Set<AttachProblemKind>(['refused', 'unanswered']);

export class ChromeAttachment {
  private state: AttachState = 'detached';
  private problem: AttachFailure | undefined;
  private home: HomeReport | undefined;
  private product: string | undefined;
  private socket: DevToolsSocket | undefined;
  private lent: LentTabs | undefined;
  private attaching: Promise<void> | undefined;
  private relay: RelaySide | undefined;
  /** Let go of on purpose (`detach`): nobody's use attaches again, only an explicit attach. */
  private letGo = false;

  constructor(private readonly options: ChromeAttachmentOptions) {}

  /** The relay's side of the wire (server/chrome-relay.ts), set once at start. */
  connectRelay(relay: RelaySide): void {
    this.relay = relay;
  }

  status(): AttachStatus {
    const status: AttachStatus = { state: this.state, lentTabs: this.lent?.list().length ?? 0 };
    if (this.lent?.otherDebuggers) status.otherDebuggers = this.lent.otherDebuggers;
    if (this.home)
      status.browser = {
        title: this.home.title,
        userDataDir: this.home.userDataDir,
        ...(this.product ? { product: this.product } : {}),
        profiles: this.home.profiles.filter((profile) => profile.open).map((profile) => profile.name),
      };
    if (this.problem) status.problem = { kind: this.problem.kind, message: this.problem.reason, fix: this.problem.fix };
    return status;
  }

  /** Attaches (or waits for the attach under way); resolves once attached or failed. */
  attach(): Promise<void> {
    this.letGo = false;
    if (this.state === 'attached') return Promise.resolve();
    this.attaching ??= this.connect().finally(() => (this.attaching = undefined));
    return this.attaching;
  }

  /**
   * For each use of the `chrome` profile: attached, or a 503 that says why
   * and what to do. Starts an attach unless the person declined one or let
   * go of the browser.
   */
  requireAttached({ start = true }: { start?: boolean } = {}): void {
    if (this.state === 'attached') return;
    if (this.letGo)
      throw new UnavailableError('clawd-browser let go of your browser: attach it again (`clawd-browser chrome attach`) to lend tabs', { attach: 'detached' });
    if (start && (this.state === 'detached' || (this.state === 'failed' && !PERSON_DECLINED.has(this.problem!.kind)))) void this.attach().catch(() => {});
    // The attach may have settled already (nothing to connect to is known without waiting).
    const now = this.status();
    if (now.state === 'attached') return;
    if (now.state === 'asking') throw new UnavailableError(ASKING_MESSAGE, { attach: 'asking' });
    if (now.state === 'failed') throw this.problem!;
    throw new UnavailableError('clawd-browser is attaching to your browser: try again in a moment', { attach: 'connecting' });
  }

  /**
   * requireAttached, after giving an attach up to `waitMs` to settle: a
   * browser that asks nobody (started with --remote-debugging-port) is
   * attached by then, and one that asks the person is `asking`.
   */
  async whenAttached(waitMs: number): Promise<void> {
    try {
      this.requireAttached();
      return;
    } catch (error) {
      if (!this.attaching) throw error;
    }
    let timer: NodeJS.Timeout | undefined;
    const asked = new Promise<void>((resolve) => {
      const poll = () => (this.state === 'asking' ? resolve() : (timer = setTimeout(poll, 50)));
      poll();
    });
    const waited = new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref());
    await Promise.race([this.attaching.catch(() => {}), asked, waited]);
    clearTimeout(timer);
    this.requireAttached({ start: false });
  }

  /** Lets go of the person's browser: every lent tab is taken back. */
  detach(): void {
    this.end('clawd-browser let go of your browser');
    this.state = 'detached';
    this.problem = undefined;
    this.letGo = true;
  }

  /** Routes a message of the relay's bridge to the lent tabs. */
  fromRelay(data: string): void {
    this.lent?.fromRelay(data);
  }

  /** Every tab of the person's browser, for the picker (the person's eyes only: never an agent's). */
  async personTabs(): Promise<PersonTab[]> {
    const { socket, lent } = this.attached();
    const { targetInfos } = await socket.command<Protocol.Target.GetTargetsResponse>('Target.getTargets');
    const ports = this.options.ownPorts();
    return targetInfos
      .filter((target) => target.type === 'page' && !target.subtype)
      .map((target) => {
        const isLent = lent.isLent(target.targetId);
        const notLendable = lendableUrlProblem(target.url, ports);
        const tab: PersonTab = {
          targetId: target.targetId,
          title: target.title,
          url: target.url,
          lent: isLent,
          byAgent: lent.byAgent(target.targetId),
          otherDebugger: target.attached && !isLent,
        };
        const suspended = lent.suspendedWhy(target.targetId);
        if (suspended) tab.suspended = suspended;
        if (notLendable) tab.notLendable = notLendable;
        else if (URL.canParse(target.url) && /^https?:$/.test(new URL(target.url).protocol)) tab.favicon = `${new URL(target.url).origin}/favicon.ico`;
        return tab;
      });
  }

  async lend(targetId: string): Promise<void> {
    await this.attached().lent.lend(targetId);
  }

  unlend(targetId: string): void {
    const { lent } = this.attached();
    if (!lent.isLent(targetId) && !lent.suspendedWhy(targetId)) throw new ConflictError(`Tab ${targetId} is not lent`);
    lent.unlend(targetId, 'the person took the tab back');
  }

  /**
   * Shows a page of clawd's in the person's browser (the picker), never
   * lent: the tab already showing one (`showing`) comes to the front, or a
   * new tab opens at `url()`. Asked again and again, it opens one tab.
   */
  async showPage(showing: (url: string) => boolean, url: () => string): Promise<void> {
    const { socket } = this.attached();
    const { targetInfos } = await socket.command<Protocol.Target.GetTargetsResponse>('Target.getTargets');
    const open = targetInfos.find((target) => target.type === 'page' && showing(target.url));
    if (open) await socket.command('Target.activateTarget', { targetId: open.targetId });
    else await socket.command('Target.createTarget', { url: url() });
  }

  private attached(): { socket: DevToolsSocket; lent: LentTabs } {
    this.requireAttached();
    return { socket: this.socket!, lent: this.lent! };
  }

  private async connect(): Promise<void> {
    const { log, platform, home } = this.options;
    const settings = this.options.settings();
    this.state = 'connecting';
    this.problem = undefined;
    this.product = undefined;
    try {
      const reports = browserHomes(settings.userDataDir, platform, home).map((each) => describeHome(each, platform));
      let socket: DevToolsSocket | undefined;
      let failure: AttachFailure | undefined;
      // A stale port file of one browser does not hide another that allows remote debugging.
      for (const report of reports.filter((each) => each.activePort)) {
        this.home = report;
        try {
          socket = await DevToolsSocket.open(report.activePort!, {
            onAsking: () => (this.state = 'asking'),
            answerTimeoutMs: settings.answerTimeoutSeconds * 1000,
          });
          break;
        } catch (error) {
          if (!(error instanceof AttachFailure)) throw error;
          failure = error;
          if (PERSON_DECLINED.has(error.kind)) break;
        }
      }
      if (!socket) {
        if (failure) throw failure;
        const why = whyNotDebuggable(reports);
        this.home = why.home;
        throw why.failure;
      }
      await this.adopt(socket);
      log.info(`attached to ${this.home!.title} (${this.home!.userDataDir})`);
    } catch (error) {
      this.state = 'failed';
      this.problem = error instanceof AttachFailure ? error : AttachFailure.of('lost', { detail: (error as Error).message });
      log.warn(`attaching to your browser: ${this.problem.message}`);
      throw this.problem;
    }
  }

  /** The connection is open: the relay's bridge gets its extension side, and learns which browser this is. */
  private async adopt(socket: DevToolsSocket): Promise<void> {
    const relay = this.relay;
    if (!relay) throw new Error('the relay is not ready');
    const lent = new LentTabs({ socket, toRelay: (frame) => relay.frame(frame), ownPorts: this.options.ownPorts, log: this.options.log });
    socket.onEvent = (message) => lent.onChromeEvent(message);
    socket.onClose = (reason) => {
      if (this.socket !== socket) return;
      this.end(reason);
      this.state = 'failed';
      this.problem = AttachFailure.of('lost', { detail: reason });
      this.options.log.warn(`your browser's DevTools connection ended: ${reason}`);
    };
    const version = await socket.command<Protocol.Browser.GetVersionResponse>('Browser.getVersion');
    await socket.command('Target.setDiscoverTargets', { discover: true });
    // Download events for the lent tabs' downloads (lent-tabs.ts); where and how files are saved stays the person's.
    await socket
      .command('Browser.setDownloadBehavior', { behavior: 'default', eventsEnabled: true })
      .catch((error: Error) => this.options.log.warn(`attached Chrome: downloads will not be reported: ${error.message}`));
    this.socket = socket;
    this.lent = lent;
    this.product = version.product;
    this.state = 'attached';
    relay.connected();
    lent.hello({ userAgent: version.userAgent, product: version.product });
  }

  private end(reason: string): void {
    const { socket, lent } = this;
    this.socket = undefined;
    this.lent = undefined;
    lent?.endAll(reason);
    if (lent) this.relay?.disconnected();
    socket?.close();
  }
}
