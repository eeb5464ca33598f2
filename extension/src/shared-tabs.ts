import type { SharedTab } from '../../protocol/wire';
import { tabUrlProblem } from '../../protocol/url-gate';
import { showBadge } from './badge';

/**
 * The tabs the user shared: chrome.debugger attachments, mirrored to
 * chrome.storage.session so a restarted service worker picks them up again
 * (the debugger attachment itself outlives the worker).
 */

const STORAGE_KEY = 'sharedTabs';
const DEBUGGER_PROTOCOL = '1.3';

export interface SharingEvents {
  /** The name of the consent tab group the tab is in, if any (tab-groups.ts). */
  groupOf(tabId: number): Promise<string | undefined>;
  shared(tab: SharedTab): void;
  updated(tab: SharedTab): void;
  unshared(tabId: number, reason: string): void;
}

export class SharedTabs {
  private readonly tabs = new Map<number, SharedTab>();
  /** Shared tabs where the person demonstrates (REC) or marks elements for a note (NOTE). */
  private readonly teaching = new Map<number, 'recording' | 'marking'>();
  /** Tabs being attached right now: a second click or onCreated must not race. */
  private readonly attaching = new Set<number>();
  /**
   * Shared tabs showing a page Chrome will not let an extension debug
   * (chrome://, the Web Store), or one clawd-browser will not share
   * (extension pages, local files). Sharing resumes when they navigate away.
   */
  /** Why each is suspended (the badge's tooltip). */
  private readonly suspended = new Map<number, string>();
  /**
   * Tabs whose click was refused, and the page it was refused on. Chrome
   * clears a tab's badge when a navigation commits, and a click on a tab
   * still loading lands before its commit: the '!' is put back until the
   * tab leaves that page.
   */
  private readonly refused = new Map<number, { why: string; url: string | undefined }>();
  private linkOpen = false;

  constructor(private readonly events: SharingEvents) {}

  list(): SharedTab[] {
    return [...this.tabs.values()];
  }
  has(tabId: number): boolean {
    return this.tabs.has(tabId) || this.attaching.has(tabId) || this.suspended.has(tabId);
  }
  isSuspended(tabId: number): boolean {
    return this.suspended.has(tabId);
  }
  get(tabId: number): SharedTab | undefined {
    return this.tabs.get(tabId);
  }

  /** Re-adopts the tabs a previous worker shared, if the debugger is still on them. */
  async restore(): Promise<void> {
    const stored = ((await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] ?? []) as SharedTab[];
    if (!stored.length) return;
    const attached = new Set((await chrome.debugger.getTargets()).filter((t) => t.attached && t.tabId).map((t) => t.tabId));
    for (const tab of stored) {
      if (attached.has(tab.tabId)) this.tabs.set(tab.tabId, tab);
    }
    await this.persist();
    await this.refreshBadges();
  }

  /**
   * Attaches the debugger and announces the tab. On failure the badge is the
   * caller's to set: a click shows the error, a re-attach shows suspension.
   */
  async share(tabId: number, openerTabId?: number): Promise<SharedTab> {
    const existing = this.tabs.get(tabId);
    if (existing) return existing;
    // Our own pages (options), other extensions', browser pages and local
    // files are never lent: the debugger on them is far more than a web page.
    const current = await chrome.tabs.get(tabId);
    const problem = tabUrlProblem(current.url || current.pendingUrl);
    if (problem) throw new Error(problem);
    this.attaching.add(tabId);
    await showBadge(tabId, { kind: 'connecting', why: 'attaching…' });
    try {
      await chrome.debugger.attach({ tabId }, DEBUGGER_PROTOCOL);
      const tab: SharedTab = await this.describe(tabId);
      const landed = tabUrlProblem(tab.url);
      if (landed) throw new Error(landed);
      const opener = openerTabId === undefined ? undefined : this.tabs.get(openerTabId);
      if (opener) {
        tab.openerTargetId = opener.targetId;
        // A popup belongs to its opener's client group from its first moment, before it is moved into that group.
        if (tab.group === undefined && opener.group !== undefined) tab.group = opener.group;
      }
      this.tabs.set(tabId, tab);
      this.refused.delete(tabId);
      await this.persist();
      this.events.shared(tab);
      // A navigation that committed while we attached (a new tab's first page, or a popup's
      // that outlasted its wait in popup-first-page.ts) fired its onUpdated before the tab was
      // ours to update: catch up now, or the relay lists a stale URL.
      const now = await chrome.tabs.get(tabId).catch(() => undefined);
      const moved = now?.url && now.url !== tab.url ? now.url : undefined;
      const problem = moved && tabUrlProblem(moved);
      if (problem) {
        this.suspend(tabId, problem);
        return tab;
      }
      if (moved || (now?.title && now.title !== tab.title)) await this.updateInfo(tabId, { url: moved, title: now?.title || undefined });
      await this.badgeFor(tabId);
      return tab;
    } catch (error) {
      await chrome.debugger.detach({ tabId }).catch(() => {});
      await showBadge(tabId, { kind: 'off' });
      throw new Error(`cannot share this tab: ${(error as Error).message}`, { cause: error });
    } finally {
      this.attaching.delete(tabId);
    }
  }

  /** Stops sharing. `detach` is false when Chrome already detached the debugger. */
  async unshare(tabId: number, reason: string, { detach }: { detach: boolean }): Promise<void> {
    if (this.suspended.delete(tabId)) return showBadge(tabId, { kind: 'off' });
    this.teaching.delete(tabId);
    if (!this.tabs.delete(tabId)) return;
    await this.persist();
    this.events.unshared(tabId, reason);
    if (detach) await chrome.debugger.detach({ tabId }).catch(() => {});
    await showBadge(tabId, { kind: 'off' });
  }

  /**
   * Chrome detached the debugger but the tab lives on (e.g. it navigated to a
   * page that cannot be debugged, or its renderer was swapped). Clients are told
   * the old target went away, and the tab is attached and announced again.
   */
  async reattach(tabId: number): Promise<void> {
    const previous = this.tabs.get(tabId);
    if (!previous) return;
    this.tabs.delete(tabId);
    this.events.unshared(tabId, 'the debugger was detached by a navigation; re-attaching');
    try {
      const tab = await this.share(tabId);
      if (previous.openerTargetId && !tab.openerTargetId) tab.openerTargetId = previous.openerTargetId;
    } catch (error) {
      await this.persist();
      this.suspended.set(tabId, (error as Error).message);
      await this.showSuspended(tabId, (error as Error).message);
    }
  }

  /**
   * A shared tab reached a page that must not be shared (it navigated by
   * itself, or through history): detach at once and wait until it leaves.
   * The tab is dropped synchronously, so no command runs on it meanwhile.
   */
  suspend(tabId: number, why: string): void {
    if (!this.tabs.delete(tabId)) return;
    this.suspended.set(tabId, why);
    this.events.unshared(tabId, `suspended: ${why}`);
    void (async () => {
      await chrome.debugger.detach({ tabId }).catch(() => {});
      await this.persist();
      await this.showSuspended(tabId, why);
    })();
  }

  /** A suspended tab navigated: share it again if Chrome allows it now. */
  async resume(tabId: number): Promise<void> {
    if (!this.suspended.has(tabId) || this.attaching.has(tabId)) return;
    try {
      this.suspended.delete(tabId);
      await this.share(tabId);
    } catch (error) {
      this.suspended.set(tabId, (error as Error).message);
      await this.showSuspended(tabId, (error as Error).message);
    }
  }

  forgetClosed(tabId: number): void {
    this.suspended.delete(tabId);
    this.refused.delete(tabId);
  }

  /** A click did not share the tab: say why on its badge while it stays on that page. */
  async refuse(tabId: number, why: string): Promise<void> {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!tab) return;
    this.refused.set(tabId, { why, url: tab.url || tab.pendingUrl });
    await showBadge(tabId, { kind: 'error', why });
  }

  /** Chrome clears a tab's badge when it navigates; put ours back. */
  async refreshBadge(tabId: number, committedUrl?: string): Promise<void> {
    const refusal = this.refused.get(tabId);
    if (refusal && committedUrl !== undefined && committedUrl !== refusal.url) this.refused.delete(tabId);
    if (this.tabs.has(tabId)) await this.badgeFor(tabId);
    else if (this.suspended.has(tabId)) await this.showSuspended(tabId, this.suspended.get(tabId)!);
    else if (this.refused.has(tabId)) await showBadge(tabId, { kind: 'error', why: this.refused.get(tabId)!.why });
  }

  private showSuspended(tabId: number, why: string): Promise<void> {
    return showBadge(tabId, { kind: 'error', why: `${why}; sharing resumes when the tab leaves this page (click to stop)` });
  }

  async updateInfo(tabId: number, change: { url?: string; title?: string }): Promise<void> {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    if (change.url !== undefined) tab.url = change.url;
    if (change.title !== undefined) tab.title = change.title;
    await this.persist();
    this.events.updated(tab);
  }

  async setLinkOpen(open: boolean): Promise<void> {
    this.linkOpen = open;
    await this.refreshBadges();
  }

  private async refreshBadges(): Promise<void> {
    await Promise.all([...this.tabs.keys()].map((tabId) => this.badgeFor(tabId)));
  }

  private badgeFor(tabId: number): Promise<void> {
    const teaching = this.teaching.get(tabId);
    if (this.linkOpen && teaching) return showBadge(tabId, { kind: teaching });
    return showBadge(tabId, this.linkOpen ? { kind: 'on' } : { kind: 'connecting', why: 'shared; connecting to the clawd-browser relay…' });
  }

  /** What the person is teaching in a shared tab (teaching.ts), shown on its badge while it lasts. */
  async setTeaching(tabId: number, what: 'recording' | 'marking' | undefined): Promise<void> {
    if (this.teaching.get(tabId) === what) return;
    if (what) this.teaching.set(tabId, what);
    else this.teaching.delete(tabId);
    if (this.tabs.has(tabId)) await this.badgeFor(tabId);
  }

  private async describe(tabId: number): Promise<SharedTab> {
    const [targets, tab, group] = await Promise.all([chrome.debugger.getTargets(), chrome.tabs.get(tabId), this.events.groupOf(tabId)]);
    const target = targets.find((t) => t.tabId === tabId && t.type === 'page');
    if (!target) throw new Error('Chrome lists no page target for this tab');
    return { tabId, targetId: target.id, url: tab.url ?? target.url, title: tab.title ?? target.title, ...(group ? { group } : {}) };
  }

  private persist(): Promise<void> {
    return chrome.storage.session.set({ [STORAGE_KEY]: this.list() });
  }
}
