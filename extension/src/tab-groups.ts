import { GROUP_NAME } from '../../protocol/wire';

/**
 * Group mode (issue 22; chosen on the options page): a "clawd" tab group is
 * the consent. The toolbar click puts the tab in its window's clawd group
 * (made when there is none); a tab the person drags into that group is
 * shared, one dragged out is unshared at once, and ungrouping or closing
 * the group unshares all of it. Tabs a shared tab opens join its group.
 * In the default mode ('tab') a click shares that one tab and groups play
 * no part.
 */

export type ShareMode = 'tab' | 'group';

/** Where the options page stores the mode (chrome.storage.local). */
export const SHARE_MODE_KEY = 'shareMode';
/** Our groups' ids, in chrome.storage.session: a restarted worker still knows them. */
const GROUPS_KEY = 'clawdGroups';
export const GROUP_TITLE = 'clawd';
/** "clawd", or "clawd:<name>" for the group of the clients that name it (`/cdp?group=<name>`). */
const GROUP_TITLE_PATTERN = new RegExp(`^clawd(?::(${GROUP_NAME.source.slice(1, -1)}))?$`);

export class TabGroupConsent {
  mode: ShareMode = 'tab';
  private readonly groups = new Set<number>();
  /** Tabs being put in a group by us: the group change Chrome reports meanwhile is ours, not the person's. */
  private readonly adopting = new Set<number>();

  async restore(): Promise<void> {
    this.mode = shareModeOf((await chrome.storage.local.get(SHARE_MODE_KEY))[SHARE_MODE_KEY]);
    for (const id of ((await chrome.storage.session.get(GROUPS_KEY))[GROUPS_KEY] ?? []) as number[]) this.groups.add(id);
  }

  /** The options page (or storage edited elsewhere) changed the mode. */
  setMode(mode: unknown): void {
    this.mode = shareModeOf(mode);
  }

  /**
   * Whether a group is consent, and for whom: null when it is not (no
   * group, or a group of the person's own), undefined for a "clawd" group
   * (every client of the relay sees its tabs), a name for "clawd:<name>"
   * (only clients of `/cdp?group=<name>` do).
   */
  async consentName(groupId: number | undefined): Promise<string | undefined | null> {
    if (groupId === undefined || groupId < 0) return null;
    const group = await chrome.tabGroups.get(groupId).catch(() => undefined);
    const named = GROUP_TITLE_PATTERN.exec(group?.title ?? '');
    if (named) return named[1];
    return this.groups.has(groupId) ? undefined : null;
  }

  /** The name of the consent group a tab is in (undefined: none, or the plain "clawd" one). */
  async nameOf(tabId: number): Promise<string | undefined> {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    return (await this.consentName(tab?.groupId)) ?? undefined;
  }

  /** Puts a tab a grouped client opened in that client's "clawd:<name>" group, made when its window has none. */
  async adoptNamed(tabId: number, name: string): Promise<void> {
    const tab = await chrome.tabs.get(tabId);
    const title = `${GROUP_TITLE}:${name}`;
    const [existing] = await chrome.tabGroups.query({ windowId: tab.windowId, title });
    await this.group(tab, existing?.id, title);
  }

  /** Puts a tab just shared in its window's clawd group, or in `groupId` (its opener's). */
  async adopt(tabId: number, groupId?: number): Promise<void> {
    const tab = await chrome.tabs.get(tabId);
    if ((await this.consentName(tab.groupId)) !== null) return;
    const into = groupId !== undefined && (await this.consentName(groupId)) !== null ? groupId : await this.groupIn(tab.windowId);
    await this.group(tab, into, GROUP_TITLE);
  }

  /** Puts the tab in group `into`, or in a new one of ours titled `title` in its window. */
  private async group(tab: chrome.tabs.Tab, into: number | undefined, title: string): Promise<void> {
    const tabId = tab.id!;
    this.adopting.add(tabId);
    try {
      const joined = await chrome.tabs.group({
        tabIds: [tabId],
        ...(into === undefined ? { createProperties: { windowId: tab.windowId } } : { groupId: into }),
      });
      if (into !== undefined) return;
      this.groups.add(joined);
      await this.persist();
      await chrome.tabGroups.update(joined, { title, color: 'orange' });
    } finally {
      this.adopting.delete(tabId);
    }
  }

  /** We are putting this tab in a group right now. */
  isAdopting(tabId: number): boolean {
    return this.adopting.has(tabId);
  }

  /** Takes a tab out of our group (it was unshared by a click, or refused). */
  async release(tabId: number): Promise<void> {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (tab && (await this.consentName(tab.groupId)) !== null) await chrome.tabs.ungroup(tabId).catch(() => {});
  }

  /** A group went (closed, or its last tab left): forgotten. */
  async forget(groupId: number): Promise<void> {
    if (this.groups.delete(groupId)) await this.persist();
  }

  private async groupIn(windowId: number): Promise<number | undefined> {
    for (const id of this.groups) {
      const group = await chrome.tabGroups.get(id).catch(() => undefined);
      if (!group) {
        await this.forget(id);
        continue;
      }
      if (group.windowId === windowId) return id;
    }
    return undefined;
  }

  private persist(): Promise<void> {
    return chrome.storage.session.set({ [GROUPS_KEY]: [...this.groups] });
  }
}

/** A stored mode, whatever was stored: 'group' only when it says so. */
export function shareModeOf(stored: unknown): ShareMode {
  return stored === 'group' ? 'group' : 'tab';
}
