import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Browser, BrowserContext, Dialog, Download, ElementHandle, FileChooser, Page } from 'playwright-core';
import { AmbiguousError, BadRequestError, ClawdError, ForbiddenError, NotFoundError, TimeoutError, UnavailableError } from '../errors.js';
import { abortable } from '../runtime/operation.js';
import { policyActive, type UrlPolicy, urlPolicyProblem } from '../runtime/url-policy.js';
import type { Profile } from '../profiles/profile-registry.js';
import type { z } from 'zod';
import { MAX_WAIT_MS, type Action, schemas, type SnapshotOptions } from '../api/schemas.js';
import { TabScreencast } from './screencast.js';
import { withAftermath } from './aftermath.js';
import { ariaSnapshot, resolveRef, takeAiSnapshot } from '../snapshot/ai-snapshot.js';
import { prepareBrowser } from '../snapshot/snapshot-engine.js';
import type { BrowserEndpoint } from './browser-endpoint.js';
import type { ActionResult, Capture, EndpointState, RequestOf, ConsoleMessage, DownloadRecord, Screenshot, Snapshot, Tab } from '../api/responses.js';
import { navigationProblem } from '../../../protocol/url-gate.js';
import { ACTION_TIMEOUT_MS, performAction, stopLoading } from './page-actions.js';
import { type InlineFile, inlineUploads, readUploads, type UploadPolicy } from './uploads.js';

/**
 * One profile's browser, driven through Playwright over CDP, whatever kind of
 * profile it is. Keeps the connection between requests, a console buffer per
 * page, and the profile's last used tab (what a request without targetId means).
 */

/** What the driver may do, from config.json (read when asked, so edits apply on the next request). */
export interface DriverPolicy {
  /** Schemes the URL gate allows beyond http, https and about:blank. */
  allowedUrlSchemes: string[];
  uploads: UploadPolicy;
  /** Which URLs tabs may be sent to (runtime/url-policy.ts); undefined: any the gate allows. */
  urlPolicy?: UrlPolicy;
}

const resolveHost = async (host: string) => (await lookup(host, { all: true })).map((entry) => entry.address);

const CONSOLE_LIMIT = 1000;
/** A thumbnail is worth little after this long. */
const THUMBNAIL_TIMEOUT_MS = 2_000;
/** Severity order for `GET /console?level=`: that level and worse. */
const LEVELS = ['debug', 'log', 'info', 'warning', 'error'] as const;

function levelOf(type: string): string {
  if (type === 'warn') return 'warning';
  if (type === 'trace' || type === 'verbose') return 'debug';
  return LEVELS.includes(type as (typeof LEVELS)[number]) ? type : 'log';
}

/**
 * Spec §6: a targetId may be given as a unique prefix (case-insensitive, as
 * Chrome's ids are upper-case hex). Returns the index of the tab meant.
 */
export function resolveTargetId(ids: string[], wanted: string, profileName: string): number {
  const upper = wanted.toUpperCase();
  const exact = ids.findIndex((id) => id.toUpperCase() === upper);
  if (exact >= 0) return exact;
  const matching = ids.flatMap((id, index) => (id.toUpperCase().startsWith(upper) ? [index] : []));
  if (!matching.length) throw new NotFoundError(`No tab with targetId ${JSON.stringify(wanted)} in profile ${profileName}`, { next: 'list-tabs' });
  if (matching.length > 1)
    throw new AmbiguousError(`targetId prefix ${JSON.stringify(wanted)} matches ${matching.length} tabs: ${matching.map((i) => ids[i]).join(', ')}`);
  return matching[0];
}

export class ProfileDriver {
  private browser: Browser | undefined;
  private connecting: Promise<Browser> | undefined;
  private lastUsed: string | undefined;
  private readonly targetIds = new WeakMap<Page, string>();
  private readonly consoles = new WeakMap<Page, ConsoleMessage[]>();
  /** Dialogs and downloads since the tab's last action: reported with the next action's result. */
  private readonly pageEvents = new WeakMap<Page, string[]>();
  /** The answer armed for each tab's next dialog (POST /hooks/dialog). */
  private readonly dialogAnswers = new WeakMap<Page, { accept: boolean; promptText?: string; timer: NodeJS.Timeout }>();
  private readonly casts = new WeakMap<Page, TabScreencast>();
  /** Tabs whose navigations the URL policy checks. */
  private readonly policed = new WeakSet<Page>();
  /** The last navigation the URL policy refused, per tab, to say why a goto failed. */
  private readonly blocked = new WeakMap<Page, string>();
  private readonly savedDownloads: DownloadRecord[] = [];

  constructor(
    readonly profile: Profile,
    readonly endpoint: BrowserEndpoint,
    /** Where Playwright-observed downloads are saved ($CLAWD_HOME/downloads/<profile>). */
    private readonly downloadsDir: string,
    private readonly policy: () => DriverPolicy,
  ) {}

  /** `GET /downloads`: what this profile's tabs downloaded, newest last. */
  downloads(): { downloads: DownloadRecord[] } {
    return { downloads: [...this.savedDownloads, ...(this.endpoint.downloads?.() ?? [])] };
  }

  get connected(): boolean {
    return this.browser?.isConnected() ?? false;
  }

  /** Connects (starting the browser if it is ours to start); idempotent and shared by concurrent callers. */
  async start(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
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
    });
    for (const context of browser.contexts()) {
      context.pages().forEach((page) => this.watch(page));
      context.on('page', (page) => this.watch(page));
    }
    this.browser = browser;
    return browser;
  }

  /** Sets cookies in the profile's browser (a task session's injection, before its first page). */
  async addCookies(cookies: Array<{ name: string; value: string; domain?: string; path?: string; expires?: number; httpOnly?: boolean; secure?: boolean; sameSite?: string }>): Promise<void> {
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
    this.lastUsed = undefined;
    await browser?.close().catch(() => {});
    await this.endpoint.stop();
  }

  async status(): Promise<EndpointState & { connected: boolean }> {
    return { connected: this.connected, ...(await this.endpoint.describe()) };
  }

  async tabs(): Promise<Tab[]> {
    const pages = await this.pages();
    return Promise.all(pages.map(async (page) => this.describe(page)));
  }

  async openTab(url: string, signal?: AbortSignal): Promise<Tab> {
    await this.checkUrl(url);
    const browser = await abortable(this.start(), signal);
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = await context.newPage();
    this.watch(page);
    if (url && url !== 'about:blank') await this.goto(page, url, signal);
    return this.use(page);
  }

  async focusTab(targetId: string): Promise<Tab> {
    const page = await this.page(targetId);
    await page.bringToFront();
    return this.use(page);
  }

  async closeTab(targetId: string): Promise<Tab> {
    const page = await this.page(targetId);
    const info = await this.describe(page);
    await page.close();
    if (this.lastUsed === info.targetId) this.lastUsed = undefined;
    return info;
  }

  async navigate(url: string, targetId?: string, signal?: AbortSignal): Promise<Tab> {
    await this.checkUrl(url);
    // Navigating a browser with no tab at all opens one: there is nothing else it could mean.
    if (targetId === undefined && !(await this.pages()).length) return this.openTab(url, signal);
    const page = await this.page(targetId);
    await this.goto(page, url, signal);
    return this.use(page);
  }

  async screenshot(options: RequestOf<'screenshot'>): Promise<Screenshot> {
    const page = await this.page(options.targetId);
    const type = options.type ?? 'png';
    const shot = { type, quality: type === 'jpeg' ? options.quality : undefined, scale: options.scale, timeout: ACTION_TIMEOUT_MS };
    let data: Buffer;
    if (options.ref) {
      data = await (await this.resolve(page, options.ref)).screenshot(shot);
    } else if (options.element) {
      const element = page.locator(options.element).first();
      if (!(await element.count())) throw new NotFoundError(`No element matches ${JSON.stringify(options.element)}`);
      data = await element.screenshot(shot);
    } else {
      data = await page.screenshot({ ...shot, fullPage: options.fullPage ?? false });
    }
    const tab = await this.use(page);
    return { targetId: tab.targetId, type, mimeType: `image/${type}`, data: data.toString('base64') };
  }

  async pdf(targetId?: string): Promise<Capture> {
    const page = await this.page(targetId);
    const data = await page.pdf();
    const tab = await this.use(page);
    return { targetId: tab.targetId, mimeType: 'application/pdf', data: data.toString('base64') };
  }

  async console(options: { targetId?: string; level?: string }): Promise<{ targetId: string; messages: ConsoleMessage[] }> {
    const page = await this.page(options.targetId);
    const min = options.level ? LEVELS.indexOf(options.level as (typeof LEVELS)[number]) : 0;
    if (min < 0) throw new BadRequestError(`Unknown level ${JSON.stringify(options.level)}: one of ${LEVELS.join(', ')}`);
    const messages = (this.consoles.get(page) ?? []).filter((entry) => LEVELS.indexOf(entry.level as (typeof LEVELS)[number]) >= min);
    const tab = await this.use(page);
    return { targetId: tab.targetId, messages };
  }

  /** `GET /snapshot`: the ai outline (refs valid until the next snapshot of the tab) or the raw AX tree. */
  async snapshot(options: SnapshotOptions): Promise<Snapshot> {
    const { targetId, format, limit, ref, selector, ...shaping } = options;
    if (ref && selector) throw new BadRequestError('Give ref or selector to scope a snapshot, not both');
    const page = await this.page(targetId);
    const tab = await this.use(page);
    if (format === 'aria') return { targetId: tab.targetId, format: 'aria', ...(await ariaSnapshot(page, { limit })) };
    const scope = ref ? { ref } : selector ? { selector } : undefined;
    return { targetId: tab.targetId, url: tab.url, title: tab.title, format: 'ai', ...(await takeAiSnapshot(page, { limit, scope, ...shaping })) };
  }

  /** `POST /act`. */
  async act(action: Action, signal?: AbortSignal): Promise<ActionResult> {
    const page = await this.page(action.targetId);
    await this.enforceUrlPolicy(page);
    const targetId = await this.targetIdOf(page);
    const { result, events: opened } = await withAftermath(
      page,
      () => performAction(page, action, (ref) => this.resolve(page, ref), signal),
      async (popup) => `${await this.targetIdOf(popup)} ${popup.url()}`,
      signal,
    ).catch((error: unknown) => {
      throw withoutSecrets(error, action);
    });
    const events = [...this.takeEvents(page), ...opened];
    const happened = events.length ? { events } : {};
    if (page.isClosed()) return { targetId, kind: action.kind, ...result, ...happened };
    const tab = await this.use(page);
    return { targetId, kind: action.kind, url: tab.url, title: tab.title, ...result, ...happened };
  }

  /**
   * `POST /hooks/file-chooser`: set files on an input directly (inputRef /
   * element), or arm for the next file chooser, clicking `ref` to open it.
   */
  async fileChooser(options: { targetId?: string; paths?: string[]; files?: InlineFile[]; ref?: string; inputRef?: string; element?: string; timeoutMs?: number }, signal?: AbortSignal) {
    const fromPaths = options.paths ? await readUploads(options.paths, this.policy().uploads) : [];
    const files = [...fromPaths, ...inlineUploads(options.files ?? [], fromPaths)];
    const page = await this.page(options.targetId);
    const targetId = (await this.use(page)).targetId;
    const uploaded = files.map((file) => file.name);
    if (options.inputRef || options.element) {
      const input = options.inputRef ? await this.resolve(page, options.inputRef) : await this.elementBySelector(page, options.element!);
      await input.setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
      return { targetId, uploaded };
    }
    const timeout = options.timeoutMs ?? MAX_WAIT_MS;
    if (!options.ref) {
      // Armed alone, the hook outlives the request: the agent's next click opens the chooser,
      // and the files go in then (or the hook lapses after `timeout`).
      nextFileChooser(page, timeout).then((opened) => opened.setFiles(files), () => {}).catch(() => {});
      return { targetId, armed: true, timeoutMs: timeout, files: uploaded };
    }
    // Waiting on a click, it goes with the request: a bad ref answers before anything is armed,
    // and a failed click or a caller gone disarms it.
    const button = await this.resolve(page, options.ref);
    const disarm = new AbortController();
    const chooser = nextFileChooser(page, timeout, signal ? AbortSignal.any([signal, disarm.signal]) : disarm.signal);
    chooser.catch(() => {});
    try {
      await button.click({ timeout: ACTION_TIMEOUT_MS });
    } catch (error) {
      disarm.abort(error);
      throw error;
    }
    let opened: FileChooser;
    try {
      opened = await chooser;
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new TimeoutError(`No file chooser opened within ${timeout} ms after clicking ${options.ref}`);
    }
    await opened.setFiles(files, { timeout: ACTION_TIMEOUT_MS });
    return { targetId, uploaded };
  }

  /** `GET /screencast`: the tab's live view, shared by its viewers (screencast.ts). */
  async screencast(targetId?: string): Promise<{ targetId: string; cast: TabScreencast }> {
    const page = await this.page(targetId);
    let cast = this.casts.get(page);
    if (!cast) this.casts.set(page, (cast = new TabScreencast(page)));
    return { targetId: await this.targetIdOf(page), cast };
  }

  /**
   * A small JPEG of the tab (CSS pixels), for thumbnails; undefined when the
   * tab paints nothing in time (a background tab may not paint at all).
   */
  async thumbnail(targetId?: string): Promise<Buffer | undefined> {
    const page = await this.page(targetId);
    return page.screenshot({ type: 'jpeg', quality: 50, scale: 'css', timeout: THUMBNAIL_TIMEOUT_MS }).catch(() => undefined);
  }

  /** `POST /screencast/input`: a person's click, scroll or keys from the live view, sent to the tab as input events. */
  async viewInput(input: z.output<typeof schemas.viewInput>): Promise<{ targetId: string; kind: string; url: string }> {
    const page = await this.page(input.targetId);
    const size = page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
    const at = () => {
      if (input.x === undefined || input.y === undefined) throw new BadRequestError(`${input.type} needs x and y (fractions of the view)`);
      return { x: input.x * size.width, y: input.y * size.height };
    };
    switch (input.type) {
      case 'click': {
        const { x, y } = at();
        await page.mouse.click(x, y, { button: input.button });
        break;
      }
      case 'move': {
        const { x, y } = at();
        await page.mouse.move(x, y);
        break;
      }
      case 'scroll':
        if (input.x !== undefined && input.y !== undefined) await page.mouse.move(at().x, at().y);
        await page.mouse.wheel(input.deltaX ?? 0, input.deltaY ?? 0);
        break;
      case 'type':
        await page.keyboard.type(input.text ?? '');
        break;
      case 'press':
        if (!input.key) throw new BadRequestError('press needs key');
        await page.keyboard.press(input.key);
        break;
    }
    return { targetId: await this.targetIdOf(page), kind: input.type, url: page.url() };
  }

  /**
   * `POST /hooks/dialog`: the next alert/confirm/prompt on the tab is
   * accepted (with promptText) or dismissed. Unarmed dialogs are dismissed
   * (Playwright's default), so a page never hangs on one.
   */
  async armDialog(options: { targetId?: string; accept: boolean; promptText?: string; timeoutMs?: number }) {
    const page = await this.page(options.targetId);
    const targetId = (await this.use(page)).targetId;
    const timeout = options.timeoutMs ?? MAX_WAIT_MS;
    clearTimeout(this.dialogAnswers.get(page)?.timer);
    const timer = setTimeout(() => this.dialogAnswers.delete(page), timeout);
    this.dialogAnswers.set(page, { accept: options.accept, promptText: options.promptText, timer });
    return { targetId, armed: true, accept: options.accept, timeoutMs: timeout };
  }

  private async checkUrl(url: string): Promise<void> {
    const policy = this.policy();
    // The policy first: its refusals are 403s that name the rule, whatever the URL gate would say.
    const refused = await urlPolicyProblem(url, policy.urlPolicy, resolveHost);
    if (refused) throw new ForbiddenError(`Navigation refused: ${refused}`);
    const problem = navigationProblem(url, policy.allowedUrlSchemes);
    if (problem) throw new BadRequestError(`Navigation refused: ${problem}`);
  }

  /**
   * With a URL policy, every document request of the profile's tabs is
   * checked as it starts, through the tab's own CDP `Fetch` session (which,
   * unlike Playwright's routes, also sees each redirect hop): redirects and a
   * page's own `location =` included. A refused one fails before it leaves
   * the browser, and is reported with the tab's next action.
   */
  private async enforceUrlPolicy(page: Page): Promise<void> {
    if (this.policed.has(page) || !policyActive(this.policy().urlPolicy)) return;
    this.policed.add(page);
    const session = await page.context().newCDPSession(page);
    session.on('Fetch.requestPaused', (event) => {
      void (async () => {
        const problem = await urlPolicyProblem(event.request.url, this.policy().urlPolicy, resolveHost);
        if (!problem) return session.send('Fetch.continueRequest', { requestId: event.requestId });
        this.blocked.set(page, problem);
        this.noteEvent(page, `navigation to ${event.request.url.split(/[?#]/)[0]} refused: ${problem}`);
        // 204 No Content: the navigation does not happen and the page stays as it was (a failed
        // request would commit an error page in its place).
        return session.send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 204, body: '' });
      })().catch(() => {});
    });
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
  }

  /** A ref from this tab's last snapshot; a 404 (RefNotFoundError, with which ref and why) when it is unknown or stale. */
  private resolve(page: Page, ref: string): Promise<ElementHandle> {
    return resolveRef(page, ref);
  }

  private async elementBySelector(page: Page, selector: string): Promise<ElementHandle> {
    const element = await page.$(selector);
    if (!element) throw new NotFoundError(`No element matches ${JSON.stringify(selector)}`);
    return element;
  }

  /**
   * The page a request means: a targetId or a unique prefix of one (404 when
   * none matches, 409 when several do), else the last used tab, else the first.
   */
  async page(targetId?: string): Promise<Page> {
    const pages = await this.pages();
    if (targetId !== undefined) {
      const ids = await Promise.all(pages.map((page) => this.targetIdOf(page)));
      return pages[resolveTargetId(ids, targetId, this.profile.name)];
    }
    if (this.lastUsed) {
      for (const page of pages) if ((await this.targetIdOf(page)) === this.lastUsed) return page;
    }
    if (!pages.length) throw new NotFoundError(`Profile ${this.profile.name} has no open tab: open one first`, { next: 'open-tab' });
    return pages[0];
  }

  private async pages(): Promise<Page[]> {
    const browser = await this.start();
    return browser.contexts().flatMap((context) => context.pages()).filter((page) => !page.isClosed());
  }

  /**
   * Navigates. On abort (the caller went, or the action timeout passed) the
   * navigation is stopped in the browser, as the Stop button would.
   */
  private async goto(page: Page, url: string, signal?: AbortSignal): Promise<void> {
    await this.enforceUrlPolicy(page);
    this.blocked.delete(page);
    const refused = () => {
      const blocked = this.blocked.get(page);
      this.blocked.delete(page);
      return blocked && new ForbiddenError(`Navigation refused: ${blocked}`);
    };
    try {
      await abortable(page.goto(url, { timeout: ACTION_TIMEOUT_MS }), signal);
    } catch (error) {
      if (signal?.aborted) {
        await stopLoading(page);
        throw error;
      }
      const blocked = refused();
      if (blocked) throw blocked;
      const message = (error as Error).message.split('\n')[0];
      if ((error as Error).name === 'TimeoutError') throw new TimeoutError(`Navigating to ${url} timed out: ${message}`);
      if (/Cannot navigate to invalid URL|invalid url/i.test(message)) throw new BadRequestError(`Invalid URL ${JSON.stringify(url)}`);
      throw new UnavailableError(`Navigating to ${url} failed: ${message}`);
    }
    // A redirect the policy stopped ends the navigation without an error.
    const blocked = refused();
    if (blocked) throw blocked;
  }

  private async use(page: Page): Promise<Tab> {
    const info = await this.describe(page);
    this.lastUsed = info.targetId;
    return info;
  }

  private async describe(page: Page): Promise<Tab> {
    return { targetId: await this.targetIdOf(page), url: page.url(), title: await page.title().catch(() => ''), type: 'page' };
  }

  /** Playwright does not expose target ids; one CDP call per page asks, then it is cached. */
  private async targetIdOf(page: Page): Promise<string> {
    const known = this.targetIds.get(page);
    if (known) return known;
    const session = await page.context().newCDPSession(page);
    try {
      const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      this.targetIds.set(page, targetInfo.targetId);
      return targetInfo.targetId;
    } finally {
      await session.detach().catch(() => {});
    }
  }

  private watch(page: Page): void {
    if (this.consoles.has(page)) return;
    const buffer: ConsoleMessage[] = [];
    this.consoles.set(page, buffer);
    page.on('console', (message) => {
      const location = message.location();
      buffer.push({ level: levelOf(message.type()), text: message.text(), timestamp: Date.now(), url: location.url || undefined, line: location.lineNumber });
      if (buffer.length > CONSOLE_LIMIT) buffer.splice(0, buffer.length - CONSOLE_LIMIT);
    });
    page.on('pageerror', (error) => {
      buffer.push({ level: 'error', text: `Uncaught ${error.name}: ${error.message}`, timestamp: Date.now() });
    });
    // Popups and tabs a page opens are held to the URL policy from their first request.
    void this.enforceUrlPolicy(page).catch(() => {});
    page.on('download', (download) => {
      this.noteEvent(page, `download started: ${download.suggestedFilename()} (GET /downloads says where it is)`);
      void this.save(page, download);
    });
    // One listener answers every dialog: the armed answer, or dismissed, so a page never hangs on one.
    page.on('dialog', (dialog: Dialog) => {
      const armed = this.dialogAnswers.get(page);
      this.dialogAnswers.delete(page);
      clearTimeout(armed?.timer);
      const accepted = armed?.accept === true;
      this.noteEvent(page, `${dialog.type()} dialog ${JSON.stringify(dialog.message().slice(0, 200))} ${accepted ? 'accepted' : 'dismissed'}${armed ? ' (as armed)' : ' (no answer was armed)'}`);
      void (accepted ? dialog.accept(armed?.promptText) : dialog.dismiss()).catch(() => {});
    });
  }

  private noteEvent(page: Page, event: string): void {
    let events = this.pageEvents.get(page);
    if (!events) this.pageEvents.set(page, (events = []));
    events.push(event);
    if (events.length > 20) events.shift();
  }

  /** What happened on the tab since the last call (dialogs, downloads), for an action's result. */
  private takeEvents(page: Page): string[] {
    const events = this.pageEvents.get(page) ?? [];
    this.pageEvents.delete(page);
    return events;
  }

  /** Keeps a download under the profile's downloads folder, by its suggested name. */
  private async save(page: Page, download: Download): Promise<void> {
    const record: DownloadRecord = { targetId: this.targetIds.get(page), url: download.url(), state: 'in_progress' };
    this.savedDownloads.push(record);
    if (this.savedDownloads.length > 200) this.savedDownloads.shift();
    try {
      mkdirSync(this.downloadsDir, { recursive: true });
      record.path = uniquePath(this.downloadsDir, basename(download.suggestedFilename()) || 'download');
      await download.saveAs(record.path);
      record.state = 'complete';
    } catch (error) {
      record.state = 'failed';
      record.error = (error as Error).message.split('\n')[0];
    }
  }
}

/**
 * An action's error without what the action typed: Playwright's messages and
 * call logs repeat the text of fill/type (`fill("hunter2")`), and errors are
 * logged and returned. Only the first line is kept (the call log is noise to
 * an agent), and every typed value in it is masked.
 */
function withoutSecrets(error: unknown, action: Action): unknown {
  // Our own errors never quote what was typed, and keep their type and details.
  if (!(error instanceof Error) || error instanceof ClawdError) return error;
  const typed: string[] = [];
  if (action.kind === 'type') typed.push(action.text);
  if (action.kind === 'fill') for (const field of action.fields) if (typeof field.value === 'string') typed.push(field.value);
  let message = error.message.split('\n')[0];
  for (const text of typed.filter((value) => value.length > 0)) message = message.split(text).join('••••');
  if (!typed.length && message === error.message) return error;
  const clean = new (error.constructor as new (message: string) => Error)(message);
  clean.name = error.name;
  clean.stack = `${clean.name}: ${message}`;
  return clean;
}

/** report.txt, then report (1).txt, … */
function uniquePath(dir: string, name: string): string {
  const extension = extname(name);
  const stem = name.slice(0, name.length - extension.length);
  let candidate = join(dir, name);
  for (let n = 1; existsSync(candidate); n++) candidate = join(dir, `${stem} (${n})${extension}`);
  return candidate;
}

/**
 * The tab's next file chooser, or a rejection after `timeoutMs`, on abort or
 * when the tab closes; the listeners and the timer go either way.
 */
function nextFileChooser(page: Page, timeoutMs: number, signal?: AbortSignal): Promise<FileChooser> {
  return new Promise<FileChooser>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      page.off('filechooser', onChooser);
      page.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const onChooser = (chooser: FileChooser) => {
      done();
      resolve(chooser);
    };
    const onAbort = () => {
      done();
      reject(signal!.reason);
    };
    const onClose = () => {
      done();
      reject(new NotFoundError('The tab closed before a file chooser opened'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new TimeoutError(`No file chooser opened within ${timeoutMs} ms`));
    }, timeoutMs);
    if (signal?.aborted) return onAbort();
    page.on('filechooser', onChooser);
    page.once('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
