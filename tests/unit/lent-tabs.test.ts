import type { Protocol } from 'devtools-protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DevToolsSocket } from '../../relay/src/attach/devtools-socket.js';
import { LentTabs } from '../../relay/src/attach/lent-tabs.js';
import { createLogger } from '../../relay/src/log.js';

/**
 * The lent tabs as the wire's extension side (attach/lent-tabs.ts): Chrome's
 * messages in, the relay's wire frames out. The person's Chrome is played by
 * a small table of targets answering the few commands clawd-browser sends
 * itself; what a client sends is forwarded (or refused) and recorded. The
 * real browser is driven in e2e/chrome-consent.test.ts.
 */

const OWN_PORT = 18791;

class Chrome {
  readonly targets = new Map<string, Protocol.Target.TargetInfo>();
  readonly forwarded: Array<{ method: string; sessionId?: string }> = [];
  add(targetId: string, url: string, extra: Partial<Protocol.Target.TargetInfo> = {}): void {
    this.targets.set(targetId, { targetId, type: 'page', title: targetId, url, attached: false, canAccessOpener: false, ...extra });
  }
  async command(method: string, params: { targetId?: string; url?: string } = {}): Promise<unknown> {
    if (method === 'Target.getTargetInfo') {
      const info = this.targets.get(params.targetId!);
      if (!info) throw new Error('No target with given id found');
      return { targetInfo: info };
    }
    if (method === 'Target.attachToTarget') return { sessionId: `S-${params.targetId}` };
    if (method === 'Target.createTarget') {
      this.add('NEW', params.url!);
      return { targetId: 'NEW' };
    }
    return {};
  }
  forward(method: string, _params: object | undefined, sessionId: string | undefined, then: (answer: { id: number; payload: string }) => void): number {
    this.forwarded.push({ method, sessionId });
    queueMicrotask(() => then({ id: 1, payload: '{"ok":true}' }));
    return 1;
  }
}

let chrome: Chrome;
let frames: Array<{ header: Record<string, unknown>; payload: string }>;
let lent: LentTabs;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
const event = (method: string, params: object, sessionId?: string) => lent.onChromeEvent({ method, sessionId, payload: JSON.stringify(params) });
const types = () => frames.map((frame) => frame.header.type);

beforeEach(() => {
  chrome = new Chrome();
  frames = [];
  lent = new LentTabs({
    socket: chrome as unknown as DevToolsSocket,
    toRelay: (frame) => {
      const newline = frame.indexOf('\n');
      frames.push({ header: JSON.parse(frame.slice(0, newline)), payload: frame.slice(newline + 1) });
    },
    ownPorts: () => [OWN_PORT, OWN_PORT + 1],
    log: createLogger('silent'),
  });
  chrome.add('SHOP', 'https://shop.example/');
  chrome.add('BANK', 'https://bank.example/');
});

describe('lending', () => {
  it('announces a lent tab, and never a page clawd-browser or the browser owns', async () => {
    const tab = await lent.lend('SHOP');
    expect(frames.at(-1)).toMatchObject({ header: { type: 'tabShared', tab: { tabId: tab.tabId, targetId: 'SHOP', url: 'https://shop.example/' } } });
    chrome.add('PICKER', `http://127.0.0.1:${OWN_PORT}/chrome/picker`);
    chrome.add('SETTINGS', 'chrome://settings/');
    await expect(lent.lend('PICKER')).rejects.toThrow(/clawd-browser's own pages/);
    await expect(lent.lend('SETTINGS')).rejects.toThrow(/does not share chrome: pages/);
    await expect(lent.lend('GONE')).rejects.toThrow(/No tab GONE/);
    expect(types().filter((type) => type === 'tabShared')).toHaveLength(1);
  });

  it('runs commands on lent tabs only, never beyond a tab', async () => {
    const { tabId } = await lent.lend('SHOP');
    lent.fromRelay(
      JSON.stringify([
        { type: 'cdp', id: 1, tabId, method: 'Runtime.evaluate', params: { expression: '1' } },
        { type: 'cdp', id: 2, tabId: 99, method: 'Runtime.evaluate' },
        { type: 'cdp', id: 3, tabId, method: 'Browser.close' },
        { type: 'cdp', id: 4, tabId, method: 'Target.getTargets' },
        { type: 'cdp', id: 5, tabId, sessionId: 'S-BANK', method: 'Runtime.evaluate' },
        { type: 'cdp', id: 6, tabId, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true, waitForDebuggerOnStart: false } },
      ]),
    );
    await settle();
    const answers = Object.fromEntries(frames.filter((frame) => frame.header.id !== undefined).map((frame) => [frame.header.id, frame]));
    expect(answers[1]).toEqual({ header: { type: 'result', id: 1 }, payload: '{"ok":true}' });
    expect(JSON.parse(answers[2].payload).message).toBe('tab 99 is not lent');
    expect(JSON.parse(answers[3].payload).message).toBe('Browser.close reaches beyond a lent tab');
    expect(JSON.parse(answers[4].payload).message).toBe('Target.getTargets reaches beyond a lent tab');
    expect(JSON.parse(answers[5].payload).message).toBe('session S-BANK is not under a lent tab');
    expect(answers[6].header.type).toBe('result');
    expect(chrome.forwarded).toEqual([
      { method: 'Runtime.evaluate', sessionId: 'S-SHOP' },
      { method: 'Target.setAutoAttach', sessionId: 'S-SHOP' },
    ]);
  });

  it("forwards a lent tab's events and its children's, and nothing of other sessions", async () => {
    const { tabId } = await lent.lend('SHOP');
    event('Target.attachedToTarget', { sessionId: 'CHILD', targetInfo: { targetId: 'F', type: 'iframe' } }, 'S-SHOP');
    event('Runtime.consoleAPICalled', { type: 'log' }, 'CHILD');
    event('Runtime.consoleAPICalled', { type: 'log' }, 'S-BANK');
    expect(frames.slice(1).map((frame) => frame.header)).toEqual([
      { type: 'event', tabId, method: 'Target.attachedToTarget' },
      { type: 'event', tabId, method: 'Runtime.consoleAPICalled', sessionId: 'CHILD' },
    ]);
    lent.fromRelay(JSON.stringify({ type: 'cdp', id: 7, tabId, sessionId: 'CHILD', method: 'Runtime.enable' }));
    expect(chrome.forwarded.at(-1)).toEqual({ method: 'Runtime.enable', sessionId: 'CHILD' });
  });
});

describe('taking a tab back when its page is never lent', () => {
  it("on its main frame's navigation or page world; an extension's content-script world is not the page's", async () => {
    const { tabId } = await lent.lend('SHOP');
    event(
      'Runtime.executionContextCreated',
      {
        context: {
          id: 2,
          origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
          name: 'Password manager',
          auxData: { isDefault: false, type: 'isolated', frameId: 'SHOP' },
        },
      },
      'S-SHOP',
    );
    event(
      'Runtime.executionContextCreated',
      { context: { id: 3, origin: 'https://ads.example', auxData: { isDefault: true, frameId: 'AN-IFRAME' } } },
      'S-SHOP',
    );
    expect(types().slice(1)).toEqual(['event', 'event']);
    event('Page.frameNavigated', { frame: { id: 'SHOP', url: `http://localhost:${OWN_PORT}/` } }, 'S-SHOP');
    expect(frames.at(-1)!.header).toMatchObject({ type: 'tabUnshared', tabId, reason: expect.stringMatching(/^suspended: clawd-browser's own pages/) });
    expect(lent.suspendedWhy('SHOP')).toMatch(/clawd-browser's own pages/);
    // It leaves: lent again (a new tab for the relay).
    chrome.add('SHOP', 'https://shop.example/back');
    event('Target.targetInfoChanged', { targetInfo: chrome.targets.get('SHOP') });
    await settle();
    expect(frames.at(-1)!.header).toMatchObject({ type: 'tabShared', tab: { targetId: 'SHOP', url: 'https://shop.example/back' } });
  });
});

describe('popups', () => {
  it('follow a lent tab once their first page is there; a tab the person opens does not', async () => {
    await lent.lend('SHOP');
    chrome.add('POPUP', '', { openerId: 'SHOP' });
    event('Target.targetCreated', { targetInfo: chrome.targets.get('POPUP') });
    chrome.add('MINE', 'https://mine.example/');
    event('Target.targetCreated', { targetInfo: chrome.targets.get('MINE') });
    await settle();
    expect(lent.isLent('POPUP')).toBe(false);
    chrome.add('POPUP', 'https://shop.example/pay', { openerId: 'SHOP' });
    event('Target.targetInfoChanged', { targetInfo: chrome.targets.get('POPUP') });
    await settle();
    expect(lent.isLent('POPUP')).toBe(true);
    expect(frames.at(-1)!.header).toMatchObject({ type: 'tabShared', tab: { targetId: 'POPUP', openerTargetId: 'SHOP' } });
    expect(lent.isLent('MINE')).toBe(false);
  });
});

describe('downloads', () => {
  it("are reported for a lent tab's page, not for the person's other tabs", async () => {
    const { tabId } = await lent.lend('SHOP');
    lent.onChromeEvent({
      method: 'Browser.downloadWillBegin',
      payload: JSON.stringify({ frameId: 'SHOP', guid: 'g1', url: 'https://shop.example/r.txt', suggestedFilename: 'r.txt' }),
    });
    lent.onChromeEvent({
      method: 'Browser.downloadWillBegin',
      payload: JSON.stringify({ frameId: 'BANK', guid: 'g2', url: 'https://bank.example/statement.pdf', suggestedFilename: 'statement.pdf' }),
    });
    for (const guid of ['g1', 'g2'])
      lent.onChromeEvent({
        method: 'Browser.downloadProgress',
        payload: JSON.stringify({ guid, totalBytes: 3, receivedBytes: 3, state: 'completed', filePath: `/home/p/Downloads/${guid}` }),
      });
    const downloads = frames.filter((frame) => frame.header.type === 'download').map((frame) => frame.header);
    expect(downloads).toEqual([
      {
        type: 'download',
        tabId,
        download: {
          id: 1,
          url: 'https://shop.example/r.txt',
          filename: '/home/p/Downloads/g1',
          suggestedFilename: 'r.txt',
          state: 'complete',
          bytesReceived: 3,
          totalBytes: 3,
        },
      },
    ]);
  });
});
