import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BadRequestError, UnavailableError } from '../errors.js';
import { abortable } from '../runtime/operation.js';
import type { UrlPolicy } from '../runtime/url-policy.js';
import type { Profile } from '../profiles/profile-registry.js';
import type { Action, SnapshotOptions, TextOptions } from '../api/schemas.js';
import type { TabScreencast } from './film/screencast.js';
import { ariaSnapshot } from '../snapshot/ai-snapshot.js';
import { outlineAnswer } from './outline-answer.js';
import { whilePainted } from './tab-painting.js';
import { prepareBrowser } from '../snapshot/snapshot-engine.js';
import { takePageText } from '../snapshot/page-text.js';
import { type BrowserEndpoint, isPersonsBrowser } from './browser-endpoint.js';
import type { ActionResult, Capture, EndpointState, ConsoleMessage, DownloadRecord, PageTextResponse, Screenshot, Snapshot, Tab } from '../api/responses.js';
import type { RequestOf } from '../api/schemas.js';
import { ACTION_TIMEOUT_MS } from '../api/limits.js';
import type { UploadPolicy } from './acts/uploads.js';
import type { DriverTab } from './driver-tab.js';
import { type DownloadHold, DownloadSaver } from './network/download-saver.js';
import { consequenceOf } from './acts/act-consequence.js';
import type { ConfirmRule, Consequence } from '../runtime/consequential-acts.js';
import { checkNavigation, guardTab } from './network/url-policy-guard.js';
import { BrowserUrlGuard } from './network/browser-url-guard.js';
import { type EgressWitness, navigateTab } from './tab-navigation.js';
import { TabRegistry } from './tab-registry.js';
import { ProfileToolbox } from './toolbox/profile-toolbox.js';
import { ProfileVision } from './screen/profile-vision.js';
import { type ActSecrets, ProfileActs } from './acts/profile-acts.js';
import type { TabHost } from './tab-host.js';
import { ProfilePageTools } from './page-tools/profile-page-tools.js';
import { ScriptRecorder } from './script-recorder.js';
import { ProfileFilm } from './film/profile-film.js';
import { screenshotOf, thumbnailOf } from './page-captures.js';
import { BrowserSecrets } from './secrets/browser-secrets.js';
import { VirtualAuthenticators } from './secrets/virtual-authenticators.js';

export { resolveTargetId } from './tab-registry.js';

/**
 * One profile's browser, driven through Playwright over CDP, whatever kind of
 * profile it is. Keeps the connection between requests and the registry of
 * its tabs (tab-registry.ts: a DriverTab per page, and the profile's last
 * used tab, what a request without targetId means).
 */

export type { ActSecrets } from './acts/profile-acts.js';

/** What the driver may do, from config.json (read when asked, so edits apply on the next request). */
export interface DriverPolicy {
  /** Schemes the URL gate allows beyond http, https and about:blank. */
  allowedUrlSchemes: string[];
  uploads: UploadPolicy;
  /** Which URLs tabs may be sent to (runtime/url-policy.ts); undefined: any the gate allows. */
  urlPolicy?: UrlPolicy;
  /** Asked before a download is kept (download-saver.ts): a confirm rule may hold it for a person's yes. */
  holdDownload?: DownloadHold;
}

export class ProfileDriver {
  private browser: Browser | undefined;
  /** The URL policy at the browser level, where the driver holds the browser (not the extension profile). */
  private browserGuard: BrowserUrlGuard | undefined;
  private connecting: Promise<Browser> | undefined;
  /** A blank page opened ahead of need (a task session's spare): the first openTab navigates it rather than start a renderer. */
  private warmPage: Page | undefined;
  private readonly registry: TabRegistry;
  private readonly downloadSaver: DownloadSaver;
  /** Emulation, network routes, init scripts and storage (profile-toolbox.ts). */
  readonly toolbox: ProfileToolbox;
  /** Labelled screenshots and computer use (profile-vision.ts). */
  readonly vision: ProfileVision;
  /** The tools pages offer agents, WebMCP (page-tools/profile-page-tools.ts). */
  readonly pageTools: ProfilePageTools;
  /** What its tabs did, for `GET /script` (script-recorder.ts). */
  readonly script = new ScriptRecorder();
  /** Its film, when one is made (profile-film.ts). */
  readonly film: ProfileFilm;
  /** The secrets typed into this browser, and what they refuse while it lives (browser-secrets.ts). */
  readonly secrets = new BrowserSecrets();
  /** Passkeys its tabs' virtual authenticators hold, once it holds any (virtual-authenticators.ts). */
  readonly passkeys = new VirtualAuthenticators();
  /** Acts, hooks and live-view input on its tabs (acts/profile-acts.ts). */
  private readonly acts: ProfileActs;
  /** Read at each use, so config edits apply at once. */
  private readonly urlPolicy = () => this.policy().urlPolicy;

  constructor(
    readonly profile: Profile,
    readonly endpoint: BrowserEndpoint,
    /** Where Playwright-observed downloads are saved ($CLAWD_HOME/downloads/<profile>). */
    downloadsDir: string,
    private readonly policy: () => DriverPolicy,
  ) {
    this.downloadSaver = new DownloadSaver(downloadsDir, profile.name, () => this.policy().holdDownload);
    this.registry = new TabRegistry(
      profile.name,
      () => this.start(),
      (tab) => {
        this.downloadSaver.watch(tab);
        void this.guard(tab).catch(() => {});
        this.toolbox.onTab(tab);
        this.passkeys.onTab(tab);
      },
      this.secrets,
    );
    this.toolbox = new ProfileToolbox({
      profile,
      tab: (targetId) => this.tab(targetId),
      allTabs: () => this.allTabs(),
      context: () => this.context(),
      policy: () => this.policy(),
      tabOf: (page) => this.registry.tabOf(page),
      secrets: this.secrets,
      passkeys: this.passkeys,
    });
    this.film = new ProfileFilm(profile.name, () => this.registry.find(undefined));
    const tabHost: TabHost = {
      tab: (targetId) => this.tab(targetId),
      guard: (tab) => this.guard(tab),
      use: (tab) => this.use(tab),
      describePopup: (popup) => this.describePopup(popup),
    };
    this.vision = new ProfileVision(tabHost);
    this.pageTools = new ProfilePageTools(tabHost);
    this.acts = new ProfileActs(tabHost, {
      secrets: this.secrets,
      passkeys: this.passkeys,
      script: this.script,
      uploads: () => this.policy().uploads,
      egress: this.egress,
    });
  }

  /** `GET /downloads`: what this profile's tabs downloaded, newest last. */
  downloads(): { downloads: DownloadRecord[] } {
    return { downloads: [...this.downloadSaver.list(), ...(this.endpoint.downloads?.() ?? [])] };
  }

  get connected(): boolean {
    return this.browser?.isConnected() ?? false;
  }

  /** Connects (starting the browser if it is ours to start); idempotent and shared by concurrent callers. */
  async start(): Promise<Browser> {
    if (this.browser?.isConnected()) {
      // Connected to the relay, and the browser behind it may still have gone (the person's Chrome quit): it says why.
      await this.endpoint.ready?.();
      return this.browser;
    }
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Browser> {
    // playwright-core is loaded on first use: it is most of the server's memory (about 80 MiB)
    // and a relay serving only raw CDP clients never needs it. Loading it (about 0.4 s, once)
    // overlaps with the browser starting.
    const loading = import('playwright-core');
    loading.catch(() => {});
    const { url, headers } = await this.endpoint.connect();
    const { chromium } = await loading;
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(url, { headers, timeout: ACTION_TIMEOUT_MS });
    } catch (error) {
      throw new UnavailableError(`Cannot connect to the ${this.profile.name} browser at ${url.split('?')[0]}: ${(error as Error).message.split('\n')[0]}`);
    }
    await prepareBrowser(browser);
    browser.on('disconnected', () => {
      if (this.browser === browser) this.browser = undefined;
      this.toolbox.browserGone();
    });
    this.registry.watch(browser);
    // Where the driver holds the browser, the URL policy sees every request of every target there;
    // a person's own browser (extension, chrome) is reached through the relay's bridge, with no browser target, so its tabs are guarded one by one.
    this.browserGuard = isPersonsBrowser(this.profile.driver)
      ? undefined
      : new BrowserUrlGuard(
          browser,
          this.urlPolicy,
          (targetId) => this.registry.withKnownTargetId(targetId),
          () => this.registry.lastDriven(),
        );
    await this.browserGuard?.sync();
    this.browser = browser;
    return browser;
  }

  /** Sets cookies in the profile's browser (a task session's injection, before its first page). */
  async addCookies(
    cookies: Array<{ name: string; value: string; domain?: string; path?: string; expires?: number; httpOnly?: boolean; secure?: boolean; sameSite?: string }>,
  ): Promise<void> {
    if (!cookies.length) return;
    const browser = await this.start();
    const context = browser.contexts()[0] ?? (await browser.newContext());
    await context.addCookies(
      cookies.map((cookie) => ({
        name: cookie.name,
        value: cookie.value,
        domain: cookie.domain,
        path: cookie.path ?? '/',
        ...(cookie.expires !== undefined ? { expires: cookie.expires } : {}),
        httpOnly: cookie.httpOnly,
        secure: cookie.secure,
        ...(cookie.sameSite === 'Strict' || cookie.sameSite === 'Lax' || cookie.sameSite === 'None' ? { sameSite: cookie.sameSite } : {}),
      })),
    );
  }

  /** Every cookie of the profile's browser (a vault refresh reads them). */
  async cookies(): Promise<Awaited<ReturnType<BrowserContext['cookies']>>> {
    const browser = await this.start();
    return (await browser.contexts()[0]?.cookies()) ?? [];
  }

  /** Disconnects, and stops the browser if this server started it. */
  async stop(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    this.registry.forgetLastUsed();
    await browser?.close().catch(() => {});
    await this.endpoint.stop();
  }

  async status(): Promise<EndpointState & { connected: boolean }> {
    return { connected: this.connected, ...(await this.endpoint.describe()) };
  }

  /** The tabs, or, in a person's browser that lends none yet, an empty list with how to lend one. */
  async tabList(): Promise<{ tabs: Tab[]; hint?: string }> {
    const hint = await this.endpoint.nothingLent?.();
    return hint === undefined ? { tabs: await this.tabs() } : { tabs: [], hint };
  }

  async tabs(): Promise<Tab[]> {
    const pages = await this.registry.pages();
    return Promise.all(pages.map(async (page) => this.registry.describe(this.registry.tabOf(page))));
  }

  /** A page to work in: one blank tab when the browser has none (a CDP client joining it finds one). */
  async ensurePage(): Promise<void> {
    if (!(await this.registry.pages()).length) await (await this.context()).newPage();
  }

  /**
   * Connects and opens one blank page, its renderer started: what a spare
   * session holds so that its first page costs a navigation, not a launch.
   */
  async prewarm(): Promise<void> {
    this.warmPage = await (await this.context()).newPage();
    // Its target id too (a CDP attach of its own): the first openTab answers with it at no cost.
    await this.registry.tabOf(this.warmPage).targetId();
  }

  async openTab(url: string, signal?: AbortSignal): Promise<Tab> {
    await this.checkUrl(url);
    const context = await abortable(this.context(), signal);
    const tab = this.registry.tabOf(this.takeWarmPage() ?? (await context.newPage()));
    await this.film.follow(tab);
    // The profile's emulation, and its passkeys' authenticator, are on the tab before its first page loads.
    await this.toolbox.settle(tab);
    await this.passkeys.settle(tab);
    if (url && url !== 'about:blank') {
      await this.goto(tab, url, signal);
      // Chrome may drop the authenticator after it answered (virtual-authenticators.ts): once a page of the site is there, it is checked again.
      await this.passkeys.settle(tab);
    }
    const opened = await this.use(tab);
    this.script.add({ kind: 'open', tab: opened.targetId, url });
    return opened;
  }

  /** The warm page, once, if nobody has used or navigated it since (a CDP client may have). */
  private takeWarmPage(): Page | undefined {
    const page = this.warmPage;
    this.warmPage = undefined;
    if (!page || page.isClosed() || page.url() !== 'about:blank' || this.registry.tabOf(page).used) return undefined;
    return page;
  }

  /** The tab a request means (recording-service.ts keeps its network log and traces on it). */
  tabFor(targetId?: string): Promise<DriverTab> {
    return this.tab(targetId);
  }

  /** The tab a page is (made when the driver first sees it). */
  tabOf(page: Page): DriverTab {
    return this.registry.tabOf(page);
  }

  /** Every open tab. */
  async allTabs(): Promise<DriverTab[]> {
    return (await this.registry.pages()).map((page) => this.registry.tabOf(page));
  }

  /** The browser context the profile's tabs live in (a trace records it whole). */
  async context(): Promise<BrowserContext> {
    const browser = await this.start();
    return browser.contexts()[0] ?? (await browser.newContext());
  }

  async focusTab(targetId: string): Promise<Tab> {
    const tab = await this.tab(targetId);
    await tab.page.bringToFront();
    // Pointed at on purpose: an agent's requests without targetId mean it from now on, whoever's it is.
    return this.registry.use(tab, { focused: true });
  }

  async closeTab(targetId: string): Promise<Tab> {
    const tab = await this.tab(targetId);
    const info = await this.registry.describe(tab);
    await tab.page.close();
    this.registry.forgetLastUsed(info.targetId);
    this.script.add({ kind: 'close', tab: info.targetId });
    return info;
  }

  async navigate(url: string, targetId?: string, signal?: AbortSignal): Promise<Tab> {
    await this.checkUrl(url);
    // Navigating with no tab to mean (none at all, or none of the agent's own) opens one: there is nothing else it could mean.
    if (targetId === undefined && !(await this.registry.hasDefault())) return this.openTab(url, signal);
    const tab = await this.tab(targetId);
    await this.goto(tab, url, signal);
    const went = await this.use(tab);
    this.script.add({ kind: 'goto', tab: went.targetId, url });
    return went;
  }

  async screenshot(options: RequestOf<'screenshot'>): Promise<Screenshot> {
    const tab = await this.tab(options.targetId);
    const shot = await whilePainted(tab.page, () => screenshotOf(tab, options));
    return { targetId: (await this.use(tab)).targetId, ...shot };
  }

  async pdf(targetId?: string): Promise<Capture> {
    const tab = await this.tab(targetId);
    const data = await tab.page.pdf();
    return { targetId: (await this.use(tab)).targetId, mimeType: 'application/pdf', data: data.toString('base64') };
  }

  async console(options: { targetId?: string; level?: string }): Promise<{ targetId: string; messages: ConsoleMessage[] }> {
    const tab = await this.tab(options.targetId);
    // A page may log what was typed in any form (reversed, in part): a browser that holds a secret answers no console read.
    if (tab.secrets.holding)
      throw tab.secrets.heldError('its console messages are not read (a page may log what was typed, in a form no redaction recognises)');
    const messages = tab.secrets.redactDeep(tab.console.atLeast(options.level));
    return { targetId: (await this.use(tab)).targetId, messages };
  }

  /** `GET /snapshot`: the ai outline (refs valid until the next snapshot of the tab) or the raw AX tree. */
  async snapshot(options: SnapshotOptions): Promise<Snapshot> {
    const { targetId, format, limit, ref, selector, ...shaping } = options;
    if (ref && selector) throw new BadRequestError('Give ref or selector to scope a snapshot, not both');
    const tab = await this.tab(targetId);
    const info = await this.use(tab);
    if (format === 'aria')
      return tab.secrets.redactDeep({ targetId: info.targetId, format: 'aria', ...(await ariaSnapshot(tab.page, { limit, hidden: shaping.hidden === true })) });
    const scope = ref ? { ref } : selector ? { selector } : undefined;
    const offered = await tab.pageTools.count();
    // Its text with how many of its first lines are clawd's notes: where a rendering's fence begins (outline-answer.ts).
    const snapshot = await outlineAnswer(tab.snapshots, { limit, scope, ...shaping }, offered);
    return tab.secrets.redactDeep({ targetId: info.targetId, url: info.url, title: info.title, format: 'ai', pageTools: offered, ...snapshot });
  }

  /**
   * What an act would set off that config's `confirm` rules name (act-consequence.ts), and the tab's
   * viewport to place its target in; nothing when it sets off none.
   */
  async consequenceOf(action: Action, rules: ConfirmRule[]): Promise<{ consequence: Consequence; viewport: { width: number; height: number } } | undefined> {
    const tab = await this.tab(action.targetId);
    const consequence = await consequenceOf(tab, action, rules);
    if (!consequence) return undefined;
    const viewport = tab.page.viewportSize() ?? (await tab.page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
    return { consequence, viewport };
  }

  /** `GET /text`: the page's readable content as Markdown (snapshot/page-text.ts). */
  async text(options: TextOptions): Promise<PageTextResponse> {
    const { targetId: wanted, ...scope } = options;
    const tab = await this.tab(wanted);
    const { targetId, url, title } = await this.use(tab);
    return tab.secrets.redactDeep({ targetId, url, title, ...(await takePageText(tab.snapshots, tab.page, scope)) });
  }

  /** `POST /act` (acts/profile-acts.ts). */
  act(action: Action, signal?: AbortSignal, secrets: ActSecrets = {}): Promise<ActionResult> {
    return this.acts.act(action, signal, secrets);
  }

  /** `POST /hooks/file-chooser` (acts/profile-acts.ts). */
  fileChooser(options: Parameters<ProfileActs['fileChooser']>[0], signal?: AbortSignal) {
    return this.acts.fileChooser(options, signal);
  }

  /** `GET /screencast`: the tab's live view, shared by its viewers (screencast.ts). */
  async screencast(targetId?: string): Promise<{ targetId: string; cast: TabScreencast }> {
    const tab = await this.tab(targetId);
    return { targetId: await tab.targetId(), cast: tab.screencast() };
  }

  /** A small JPEG of the tab for thumbnails; undefined when it paints nothing in time (page-captures.ts). */
  async thumbnail(targetId?: string): Promise<Buffer | undefined> {
    return thumbnailOf(await this.page(targetId));
  }

  /** `POST /screencast/input` (acts/profile-acts.ts). */
  viewInput(...args: Parameters<ProfileActs['viewInput']>) {
    return this.acts.viewInput(...args);
  }

  /** `POST /hooks/dialog` (acts/profile-acts.ts). */
  armDialog(options: Parameters<ProfileActs['armDialog']>[0]) {
    return this.acts.armDialog(options);
  }

  /** A tab an action opened, as its events say it: its targetId and URL. */
  private async describePopup(popup: Page): Promise<string> {
    return `${await this.registry.tabOf(popup).targetId()} ${popup.url()}`;
  }

  /** The URL policy held before a tab acts or navigates: at the browser level where there is one, else on the tab. */
  private guard(tab: DriverTab): Promise<void> {
    return this.browserGuard ? this.browserGuard.sync() : guardTab(tab, this.urlPolicy, (page) => this.registry.tabOf(page));
  }

  private checkUrl(url: string): Promise<void> {
    const { urlPolicy, allowedUrlSchemes } = this.policy();
    return checkNavigation(url, urlPolicy, allowedUrlSchemes);
  }

  /**
   * The page a request means: a targetId or a unique prefix of one (404 when
   * none matches, 409 when several do), else the last used tab, else the first.
   */
  async page(targetId?: string): Promise<Page> {
    return (await this.tab(targetId)).page;
  }

  /** The tab a request means, as page() says (a film of the whole profile follows it). */
  private async tab(targetId?: string): Promise<DriverTab> {
    const tab = await this.registry.find(targetId);
    await this.film.follow(tab);
    return tab;
  }

  private use(tab: DriverTab): Promise<Tab> {
    return this.registry.use(tab);
  }

  private async goto(tab: DriverTab, url: string, signal?: AbortSignal): Promise<void> {
    // Heard before the page loads: Chromium tells a new listener of the main frame's tools only, not its frames'.
    await tab.pageTools.enabled().catch(() => {});
    return navigateTab(tab, url, (navigated) => this.guard(navigated), signal, this.egress);
  }

  /** Why this browser's egress proxy failed a connection (a managed browser's; none for others). */
  private readonly egress: EgressWitness = (host, since) => this.endpoint.egressFailure?.(host, since);
}
