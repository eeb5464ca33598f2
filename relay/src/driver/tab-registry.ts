import type { Browser, Page } from 'playwright-core';
import type { Tab } from '../api/responses.js';
import { AmbiguousError, NotFoundError } from '../errors.js';
import type { BrowserSecrets } from './secrets/browser-secrets.js';
import { DriverTab } from './driver-tab.js';
import { AgentTabs } from './agent-tabs.js';
import { currentAgent } from '../runtime/agent-context.js';

/**
 * A profile's tabs as the driver knows them: a DriverTab per Playwright Page,
 * made when the driver first sees the page and dropped when it closes (or
 * its browser goes), and which tab a request means, the last used one when
 * it names none.
 */

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

export class TabRegistry {
  private readonly byPage = new Map<Page, DriverTab>();
  /** The targetId of the tab a request without one means. */
  private lastUsed: string | undefined;
  /** The tab made last (an open's tab before it is first used). */
  private lastMade: DriverTab | undefined;
  /** Each agent's own tabs and last used one (agent-tabs.ts). */
  readonly agents = new AgentTabs();

  constructor(
    private readonly profileName: string,
    /** The profile's browser, connected. */
    private readonly browser: () => Promise<Browser>,
    /** Called once for each tab made: what else the driver hears of it (downloads, the URL policy). */
    private readonly onNewTab: (tab: DriverTab) => void,
    /** The secrets typed into the browser: every tab redacts them all. */
    private readonly secrets: BrowserSecrets,
  ) {}

  /** A browser just connected: its tabs, now and to come, are known from their first moment. */
  watch(browser: Browser): void {
    browser.on('disconnected', () => this.forget(browser));
    for (const context of browser.contexts()) {
      context.pages().forEach((page) => this.tabOf(page));
      context.on('page', (page) => this.tabOf(page));
    }
  }

  /**
   * The page's DriverTab, made when the driver first sees the page: its
   * console, dialogs and downloads are heard from then on, and popups and
   * tabs a page opens are held to the URL policy from their first request.
   */
  tabOf(page: Page): DriverTab {
    const known = this.byPage.get(page);
    if (known) return known;
    const tab = new DriverTab(page, this.secrets);
    this.onNewTab(tab);
    if (page.isClosed()) return tab;
    this.byPage.set(page, tab);
    this.lastMade = tab;
    // Known early, so that what the URL guard refuses while the tab loads is told to the tab it belongs to.
    void tab.targetId().catch(() => {});
    page.once('close', () => {
      this.byPage.delete(page);
      if (tab.knownTargetId) this.agents.closed(tab.knownTargetId);
      tab.dispose();
    });
    return tab;
  }

  /**
   * The tab whose main frame (target) has this id, among tabs whose ids are
   * known already: never asks the browser, so it answers while a new tab is
   * still starting (the URL guard calls it with requests paused).
   */
  withKnownTargetId(targetId: string): DriverTab | undefined {
    for (const tab of this.byPage.values()) if (tab.knownTargetId === targetId) return tab;
    return undefined;
  }

  /** The tab the agent last drove (else the newest tab), if its id is known; never asks the browser. */
  lastDriven(): DriverTab | undefined {
    const driven = this.lastUsed === undefined ? undefined : this.withKnownTargetId(this.lastUsed);
    return driven ?? (this.lastMade && !this.lastMade.page.isClosed() ? this.lastMade : undefined);
  }

  /** The browser's open pages. */
  async pages(): Promise<Page[]> {
    const browser = await this.browser();
    return browser
      .contexts()
      .flatMap((context) => context.pages())
      .filter((page) => !page.isClosed());
  }

  /**
   * The tab a request means: a targetId or a unique prefix of one (404 when
   * none matches, 409 when several do), else the last used tab, else the first.
   */
  async find(targetId?: string): Promise<DriverTab> {
    const tabs = (await this.pages()).map((page) => this.tabOf(page));
    if (targetId !== undefined) {
      const ids = await Promise.all(tabs.map((tab) => tab.targetId()));
      return tabs[resolveTargetId(ids, targetId, this.profileName)];
    }
    const agent = currentAgent();
    if (agent !== undefined) {
      const ids = await Promise.all(tabs.map((tab) => tab.targetId()));
      const mine = this.agents.defaultFor(agent, ids, this.unownedDefault(ids));
      if (mine !== undefined) return tabs[ids.indexOf(mine)];
      throw new NotFoundError(
        `Agent ${agent} has no tab of its own in profile ${this.profileName}: open one (another agent's tab is reached only by its targetId)`,
        { next: 'open-tab' },
      );
    }
    if (this.lastUsed) {
      for (const tab of tabs) if ((await tab.targetId()) === this.lastUsed) return tab;
    }
    if (!tabs.length) throw new NotFoundError(`Profile ${this.profileName} has no open tab: open one first`, { next: 'open-tab' });
    return tabs[0];
  }

  /** Whether a request without targetId has a tab to mean (an agent's own, or any). */
  async hasDefault(): Promise<boolean> {
    const agent = currentAgent();
    const pages = await this.pages();
    if (agent === undefined) return pages.length > 0;
    const ids = await Promise.all(pages.map((page) => this.tabOf(page).targetId()));
    return this.agents.defaultFor(agent, ids, this.unownedDefault(ids)) !== undefined;
  }

  /** The tab no agent owns that a request without targetId would mean: the last used if it is such, else the first such. */
  private unownedDefault(ids: string[]): string | undefined {
    const unowned = ids.filter((id) => this.agents.ownerOf(id) === undefined);
    return this.lastUsed !== undefined && unowned.includes(this.lastUsed) ? this.lastUsed : unowned[0];
  }

  /** The tab, described, made the one a request without targetId means (for an agent: its own, or one it focused). */
  async use(tab: DriverTab, options: { focused?: boolean } = {}): Promise<Tab> {
    const targetId = await tab.targetId();
    this.lastUsed = targetId;
    const agent = currentAgent();
    if (agent !== undefined) this.agents.used(agent, targetId, !tab.used, options.focused);
    tab.used = true;
    return this.describe(tab);
  }

  async describe(tab: DriverTab): Promise<Tab> {
    const targetId = await tab.targetId();
    const agent = this.agents.ownerOf(targetId);
    return { targetId, url: tab.page.url(), title: await tab.page.title().catch(() => ''), type: 'page', ...(agent ? { agent } : {}) };
  }

  /** No tab is the last used any more (or, given a targetId, not that one: it closed). */
  forgetLastUsed(targetId?: string): void {
    if (targetId === undefined || this.lastUsed === targetId) this.lastUsed = undefined;
  }

  /** A browser gone takes its tabs with it. */
  private forget(browser: Browser): void {
    for (const [page, tab] of this.byPage) {
      if (page.context().browser() !== browser) continue;
      this.byPage.delete(page);
      tab.dispose();
    }
  }
}
