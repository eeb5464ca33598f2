import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { evaluateInWorker, setExtensionStorage, waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/**
 * Group mode (issue 22), with the real extension in a real Chromium: the
 * "clawd" tab group is the consent. Tabs are moved in and out of it with
 * chrome.tabs.group/ungroup, as a person dragging them does; what the relay
 * lists, and what a connected Playwright sees, follows the group.
 */

let env: RelayEnv;

beforeAll(async () => {
  env = await startRelayEnv();
  await setExtensionStorage(env.browser.cdp, EXTENSION_ID, 'local', { shareMode: 'group' });
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** Runs in the extension's worker with the tab id of a page target as `tabId`. */
function inWorker<T>(pageTargetId: string, body: string): Promise<T> {
  return evaluateInWorker<T>(
    env.browser.cdp,
    EXTENSION_ID,
    `(async () => { const tabId = (await chrome.debugger.getTargets()).find((t) => t.id === ${JSON.stringify(pageTargetId)}).tabId; ${body} })()`,
  );
}
const groupOf = (pageTargetId: string) =>
  inWorker<{ id: number; title?: string }>(
    pageTargetId,
    'const tab = await chrome.tabs.get(tabId); if (tab.groupId < 0) return { id: -1 }; const group = await chrome.tabGroups.get(tab.groupId); return { id: group.id, title: group.title };',
  );

describe('group mode: the clawd tab group is the consent', () => {
  it('a click puts the tab in the clawd group; a tab dragged in is shared, dragged out unshared at once', async () => {
    const first = await env.share(env.fixtures.url('index.html?first'));
    const group = await groupOf(first.pageTargetId);
    expect(group.title).toBe('clawd');

    const client = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const second = await env.openTab(env.fixtures.url('index.html?second'));
      expect(env.isShared(second.pageTargetId)).toBe(false);
      // Dragged into the group.
      const appeared = client.contexts()[0].waitForEvent('page');
      await inWorker(second.pageTargetId, `await chrome.tabs.group({ tabIds: [tabId], groupId: ${group.id} });`);
      await waitFor(() => env.isShared(second.pageTargetId), { message: 'a tab dragged into the group was not shared' });
      const page = await appeared;
      expect(page.url()).toContain('second');
      // Dragged out: unshared at once, and the client sees the page go.
      const gone = page.waitForEvent('close');
      await inWorker(second.pageTargetId, 'await chrome.tabs.ungroup(tabId);');
      await gone;
      expect(env.isShared(second.pageTargetId)).toBe(false);
      expect(env.isShared(first.pageTargetId)).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a popup of a shared tab joins its group and is shared; ungrouping the group unshares everything', async () => {
    const opener = await env.share(env.fixtures.url('popup.html'));
    const group = await groupOf(opener.pageTargetId);
    const client = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = client
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().includes('popup.html'))!;
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#open')]);
      await popup.waitForLoadState();
      const popupTarget = env.relay.bridge.sharedTabs().find((tab) => tab.url.includes('popup=1'))!;
      await waitFor(async () => (await groupOf(popupTarget.targetId)).id === group.id, { message: "the popup never joined its opener's group" });
    } finally {
      await client.close();
    }
    // The person ungroups the whole group: nothing in it stays shared.
    await inWorker(
      opener.pageTargetId,
      `const tabs = await chrome.tabs.query({ groupId: ${group.id} }); await chrome.tabs.ungroup(tabs.map((tab) => tab.id));`,
    );
    await waitFor(() => env.relay.bridge.sharedTabs().every((tab) => !tab.url.includes('popup')), { message: 'tabs of an ungrouped group are still shared' });
  }, 60_000);

  it('a second click stops sharing and takes the tab out of the group', async () => {
    const tab = await env.share(env.fixtures.url('index.html?third'));
    expect((await groupOf(tab.pageTargetId)).title).toBe('clawd');
    await env.click(tab.tabTargetId);
    await waitFor(() => !env.isShared(tab.pageTargetId), { message: 'a second click did not unshare' });
    await waitFor(async () => (await groupOf(tab.pageTargetId)).id === -1, { message: 'the unshared tab stayed in the group' });
  }, 30_000);
});

describe('a group per client: /cdp?group=<name> drives only the "clawd:<name>" tab group', () => {
  it("each client sees its own group's tabs, opens tabs into it, and cannot reach the other's; a client without a group sees all", async () => {
    const groupUrl = (name: string) => env.cdpUrl().replace('/cdp?', `/cdp?group=${name}&`);
    // The person makes a group for agent a and names it: its tab is shared, as a's.
    const mine = await env.openTab(env.fixtures.url('index.html?for-a'));
    await inWorker(mine.pageTargetId, "const id = await chrome.tabs.group({ tabIds: [tabId] }); await chrome.tabGroups.update(id, { title: 'clawd:a' });");
    await waitFor(() => env.relay.bridge.sharedTabs().some((tab) => tab.targetId === mine.pageTargetId && tab.group === 'a'), {
      message: "the tab named for a's group was not shared as a's",
    });

    const a = await chromium.connectOverCDP(groupUrl('a'));
    const b = await chromium.connectOverCDP(groupUrl('b'));
    const all = await chromium.connectOverCDP(env.cdpUrl());
    try {
      expect(
        a
          .contexts()[0]
          .pages()
          .map((page) => page.url()),
      ).toEqual([expect.stringContaining('for-a')]);
      expect(b.contexts()[0].pages()).toEqual([]);
      // b opens a tab: it goes into b's group, where only b (and the ungrouped client) see it.
      const opened = await b.contexts()[0].newPage();
      await opened.goto(env.fixtures.url('index.html?for-b'));
      const bShared = () => env.relay.bridge.sharedTabs().find((tab) => tab.url.includes('for-b'));
      await waitFor(() => bShared() !== undefined, { message: "b's tab was never listed with its URL" });
      const bTab = bShared()!;
      expect(bTab.group).toBe('b');
      expect((await groupOf(bTab.targetId)).title).toBe('clawd:b');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        a
          .contexts()[0]
          .pages()
          .map((page) => page.url()),
      ).toEqual([expect.stringContaining('for-a')]);
      await waitFor(
        () =>
          all
            .contexts()[0]
            .pages()
            .some((page) => page.url().includes('for-b')),
        { message: "the ungrouped client never saw b's tab" },
      );
      expect(
        all
          .contexts()[0]
          .pages()
          .some((page) => page.url().includes('for-a')),
      ).toBe(true);
      // a cannot attach to b's tab by its id: to a it does not exist.
      const session = await a.newBrowserCDPSession();
      await expect(session.send('Target.attachToTarget', { targetId: bTab.targetId, flatten: true })).rejects.toThrow(/No target with given id found/);
      const { targetInfos } = await session.send('Target.getTargets');
      expect(targetInfos.map((info) => info.targetId)).not.toContain(bTab.targetId);
      // A popup of a's tab is a's: shared into a's group, unseen by b.
      const aPage = a.contexts()[0].pages()[0];
      const [popup] = await Promise.all([
        a.contexts()[0].waitForEvent('page'),
        aPage.evaluate((url) => void window.open(url), env.fixtures.url('index.html?popup-of-a')),
      ]);
      await popup.waitForLoadState();
      // The relay hears the popup's URL when the extension reports its navigation, a moment after the page's load.
      const popupShared = () => env.relay.bridge.sharedTabs().find((tab) => tab.url.includes('popup-of-a'));
      await waitFor(() => popupShared() !== undefined, { message: 'the popup was never listed with its URL' });
      const popupTab = popupShared()!;
      expect(popupTab.group).toBe('a');
      await waitFor(async () => (await groupOf(popupTab.targetId)).title === 'clawd:a', { message: "the popup did not join a's group" });
      expect(
        b
          .contexts()[0]
          .pages()
          .map((page) => page.url()),
      ).toEqual([expect.stringContaining('for-b')]);
      // The person moves a's first tab into b's group: a sees it go, b gets it.
      const aClosed = aPage.waitForEvent('close');
      await inWorker(
        mine.pageTargetId,
        `const [b] = await chrome.tabGroups.query({ title: 'clawd:b' }); await chrome.tabs.group({ tabIds: [tabId], groupId: b.id });`,
      );
      await aClosed;
      await waitFor(
        () =>
          b
            .contexts()[0]
            .pages()
            .some((page) => page.url().includes('for-a')),
        { message: 'b never got the tab moved into its group' },
      );
      expect(env.relay.bridge.sharedTabs().find((tab) => tab.url.includes('for-a'))?.group).toBe('b');
      // A bad group name is refused at the door.
      await expect(chromium.connectOverCDP(groupUrl('no%20spaces'))).rejects.toThrow();
    } finally {
      await Promise.all([a.close(), b.close(), all.close()]);
    }
  }, 60_000);
});
