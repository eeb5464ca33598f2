import type { SharedTabs } from './shared-tabs';
import type { TabGroupConsent } from './tab-groups';

/**
 * Group mode's listeners (the person's side of tab-groups.ts): a tab that
 * enters a clawd group (dragged in) is shared, one that leaves it (dragged
 * out, ungrouped, its group closed) is unshared at once, one moved between
 * "clawd:<name>" groups passes from one client group to the other, and a
 * group the person titles "clawd" or "clawd:<name>" becomes consent (as
 * does, whatever its title, the group a click made; another group titled
 * otherwise stops being).
 * Registered at the worker's top level, as Chrome needs to wake it for them.
 */
export function watchGroupConsent(groups: TabGroupConsent, shared: SharedTabs, ready: Promise<unknown>): void {
  async function onGroupChanged(tabId: number, groupId: number): Promise<void> {
    await ready;
    // Our own grouping (after a click, or for a grouped client's new tab) is not the person's consent changing.
    if (groups.mode !== 'group' || groups.isAdopting(tabId)) return;
    const name = await groups.consentName(groupId);
    const current = shared.get(tabId);
    if (name === null) {
      if (current) await shared.unshare(tabId, 'the tab left the clawd group', { detach: true });
      return;
    }
    if (current && current.group === name) return;
    // Moved between clawd groups: the clients of the group it left lose it, those of the one it joined get it.
    if (current) await shared.unshare(tabId, 'the tab moved to another clawd group', { detach: true });
    if (shared.has(tabId)) return;
    await shared.share(tabId).catch(async (error: Error) => {
      // Refused (a page that is never shared): it does not stay in the group that means shared.
      await groups.release(tabId);
      await shared.refuse(tabId, error.message);
    });
  }

  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.groupId !== undefined) void onGroupChanged(tabId, change.groupId);
  });
  chrome.tabGroups.onRemoved.addListener((group) => void groups.forget(group.id));
  chrome.tabGroups.onUpdated.addListener((group) => {
    void (async () => {
      await ready;
      if (groups.mode !== 'group') return;
      for (const tab of await chrome.tabs.query({ groupId: group.id })) if (tab.id !== undefined) await onGroupChanged(tab.id, group.id);
    })();
  });
}
