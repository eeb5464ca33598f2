import { describe, expect, it } from 'vitest';
import { MAX_RETRY_MS, retryDelayMs } from '../../extension/src/logic/backoff.js';
import { cdpError, workerStopping } from '../../extension/src/logic/cdp-error.js';
import { commandProblem, downloadOwner, landedOn } from '../../extension/src/logic/ownership.js';
import { normaliseExtensionKey, normaliseRelayUrl } from '../../extension/src/logic/relay-address.js';
import { StartupHold } from '../../extension/src/logic/startup-hold.js';
import type { SharedTab } from '../../protocol/wire.js';

/** The extension's decisions, without chrome.*: background.ts only wires them to Chrome's events. */

const TAB: SharedTab = { tabId: 7, targetId: 'T7', url: 'https://shop.example/cart', title: 'Cart' };
const lookup = (tabId: number) => (tabId === 7 ? TAB : undefined);

describe('what the extension obeys', () => {
  it('runs known commands on shared tabs only', () => {
    expect(commandProblem({ type: 'cdp', id: 1, tabId: 7, method: 'Runtime.evaluate' }, lookup)).toBeUndefined();
    expect(commandProblem({ type: 'cdp', id: 1, tabId: 8, method: 'Runtime.evaluate' }, lookup)).toMatch(/tab 8 is not shared/);
    expect(commandProblem({ type: 'cdp', id: 1, tabId: 7 }, lookup)).toMatch(/without a method/);
    expect(commandProblem({ type: 'closeTab', id: 2, tabId: 8 }, lookup)).toMatch(/not shared/);
    expect(commandProblem({ type: 'activateTab', id: 2, tabId: 7 }, lookup)).toBeUndefined();
    expect(commandProblem({ type: 'installExtension', id: 3 }, lookup)).toMatch(/unknown command type "installExtension"/);
    expect(commandProblem({ type: 'cdp', tabId: 7, method: 'x' }, lookup)).toMatch(/numeric id/);
    expect(commandProblem(null, lookup)).toMatch(/numeric id/);
  });

  it('opens tabs only at URLs the gate allows, and never its own pages', () => {
    expect(commandProblem({ type: 'createTab', id: 1, url: 'https://example.com/', active: true }, lookup)).toBeUndefined();
    expect(commandProblem({ type: 'createTab', id: 1, url: 'about:blank', active: true }, lookup)).toBeUndefined();
    for (const url of ['chrome-extension://opdopiaocmjejejdfeokihimdckpgibd/options.html', 'file:///etc/passwd', 'chrome://settings', 'javascript:1', 42])
      expect(commandProblem({ type: 'createTab', id: 1, url, active: true }, lookup)).toMatch(/will not open/);
  });

  it('refuses commands on a shared tab that now shows a page it must not share', () => {
    const moved = (tabId: number) => (tabId === 7 ? { ...TAB, url: 'chrome-extension://opdopiaocmjejejdfeokihimdckpgibd/options.html' } : undefined);
    expect(commandProblem({ type: 'cdp', id: 1, tabId: 7, method: 'Runtime.evaluate' }, moved)).toMatch(/does not share chrome-extension:/);
  });

  it('reads where a tab landed from its own events', () => {
    expect(landedOn('Page.frameNavigated', { frame: { url: 'file:///x' } })).toBe('file:///x');
    expect(landedOn('Page.frameNavigated', { frame: { url: 'file:///x', parentId: 'P' } })).toBeUndefined();
    expect(landedOn('Runtime.executionContextCreated', { context: { origin: 'chrome-extension://abc' } })).toBe('chrome-extension://abc');
    expect(landedOn('Runtime.executionContextCreated', { context: { origin: '' } })).toBeUndefined();
    expect(landedOn('Network.requestWillBeSent', {})).toBeUndefined();
  });

  it('reports downloads only for shared tabs, by referrer or its origin', () => {
    expect(downloadOwner([TAB], 'https://shop.example/cart')).toBe(7);
    expect(downloadOwner([TAB], 'https://shop.example/')).toBe(7);
    expect(downloadOwner([TAB], 'https://bank.example/')).toBeUndefined();
    expect(downloadOwner([TAB], undefined)).toBeUndefined();
  });
});

describe('pairing input, backoff, errors', () => {
  it('normalises what users type as the relay address, and checks the key', () => {
    expect(normaliseRelayUrl('http://127.0.0.1:18792/')).toBe('ws://127.0.0.1:18792');
    expect(normaliseRelayUrl('127.0.0.1:18792/extension')).toBe('ws://127.0.0.1:18792');
    expect(() => normaliseRelayUrl('ftp://nope')).toThrow(/ws:\/\//);
    expect(normaliseExtensionKey(` ${'AB'.repeat(32)} `)).toBe('ab'.repeat(32));
    expect(() => normaliseExtensionKey('short')).toThrow(/64 hex digits/);
  });

  it('backs off from 1 s doubling to 30 s with ±20% jitter, and at once to the longest when slow', () => {
    expect(retryDelayMs(0, false, () => 0.5)).toBe(1000);
    expect(retryDelayMs(3, false, () => 0.5)).toBe(8000);
    expect(retryDelayMs(10, false, () => 0.5)).toBe(MAX_RETRY_MS);
    expect(retryDelayMs(0, true, () => 0.5)).toBe(MAX_RETRY_MS);
    expect(retryDelayMs(0, false, () => 0)).toBe(800);
    expect(retryDelayMs(0, false, () => 1)).toBeCloseTo(1200);
  });

  it("shapes chrome.debugger's errors as CDP errors", () => {
    expect(cdpError(new Error('{"code":-32601,"message":"nope"}'))).toEqual({ code: -32601, message: 'nope' });
    expect(cdpError(new Error('No tab with given id 5.'))).toEqual({ code: -32000, message: 'No tab with given id 5.' });
    expect(cdpError('plain')).toEqual({ code: -32000, message: 'plain' });
  });

  it('tells a worker Chrome is stopping ("No SW") from an answer of the tab', () => {
    expect(workerStopping(new Error('No SW'))).toBe(true);
    expect(workerStopping(new Error('{"code":-32000,"message":"No frame for given id found"}'))).toBe(false);
    expect(workerStopping(new Error('No tab with given id 5.'))).toBe(false);
  });
});

describe('a worker starting', () => {
  it('holds the debugger events Chrome hands it until its first hello, in order; then none', () => {
    const hold = new StartupHold<string>();
    expect(hold.holding).toBe(true);
    expect(hold.hold('Runtime.executionContextCreated', 100)).toBe(true);
    expect(hold.hold('Page.lifecycleEvent', 100)).toBe(true);
    expect(hold.release()).toEqual(['Runtime.executionContextCreated', 'Page.lifecycleEvent']);
    expect(hold.holding).toBe(false);
    expect(hold.hold('Page.frameNavigated', 100)).toBe(false);
    expect(hold.release()).toEqual([]);
  });

  it('holds at most so many events and bytes, dropping later ones', () => {
    const byCount = new StartupHold<number>(2, 1_000);
    for (const event of [1, 2, 3]) expect(byCount.hold(event, 10)).toBe(true);
    expect(byCount.release()).toEqual([1, 2]);
    const bySize = new StartupHold<number>(10, 25);
    for (const event of [1, 2, 3]) bySize.hold(event, 10);
    expect(bySize.release()).toEqual([1, 2]);
  });
});
