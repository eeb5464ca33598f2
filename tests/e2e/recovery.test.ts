import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { extensionServiceWorkerTarget, waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/** What survives: the relay restarting, and the extension's service worker being stopped. */

let env: RelayEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('recovery', () => {
  it('after a relay restart the extension reconnects and re-announces the tab, with no click', async () => {
    env = await startRelayEnv();
    const url = env.fixtures.url('index.html?restart=1');
    const { pageTargetId } = await env.share(url);
    const before = await chromium.connectOverCDP(env.cdpUrl());
    const page = before.contexts()[0].pages()[0];
    await page.click('#btn');
    const disconnected = new Promise<void>((resolve) => before.once('disconnected', () => resolve()));

    await env.restartRelay(500);
    await disconnected; // clients of the old relay are told, not left hanging
    await waitFor(() => env!.isShared(pageTargetId), { timeoutMs: 20_000, message: 'the tab was not re-announced after the relay restart' });

    const after = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const [again] = after.contexts()[0].pages();
      expect(again.url()).toBe(url);
      // Same tab, same document: the click before the restart is still counted.
      expect(await again.textContent('#count')).toBe('1');
      await again.click('#btn');
      expect(await again.textContent('#count')).toBe('2');
    } finally {
      await after.close();
    }
  });

  it('reports a renderer crash to clients, the other tabs keep working, and once reloaded the tab is driven again', async () => {
    env = await startRelayEnv();
    const cdp = env.browser.cdp;
    const crashUrl = env.fixtures.url('index.html?crash=1');
    // Another site, so another renderer process (site isolation): what one tab's crash must not touch.
    const otherUrl = env.fixtures.crossOriginUrl('index.html?other=1');
    const { pageTargetId } = await env.share(crashUrl);
    const other = await env.share(otherUrl);
    const first = await chromium.connectOverCDP(env.cdpUrl());
    const pages = first.contexts()[0].pages();
    const page = pages.find((candidate) => candidate.url() === crashUrl)!;
    const otherPage = pages.find((candidate) => candidate.url() === otherUrl)!;
    const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
    void cdp.send('Page.crash', {}, sessionId).catch(() => {}); // never answered: the renderer is gone
    await crashed;
    expect(env.isShared(pageTargetId)).toBe(true);
    // The other tab, on the same client, is driven as before.
    await otherPage.click('#btn');
    expect(await otherPage.textContent('#count')).toBe('1');
    expect(env.isShared(other.pageTargetId)).toBe(true);
    await first.close();

    await cdp.send('Page.reload', {}, sessionId);
    await cdp.send('Target.detachFromTarget', { sessionId });
    const second = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const again = second
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url() === crashUrl)!;
      await waitFor(async () => (await again.evaluate(() => document.readyState).catch(() => '')) === 'complete', { message: 'reloaded tab not usable' });
      await again.click('#btn');
      expect(await again.textContent('#count')).toBe('1');
    } finally {
      await second.close();
    }
  });

  it('keeps the tab shared and the client attached while the service worker is stopped and restarted', async () => {
    env = await startRelayEnv();
    const cdp = env.browser.cdp;
    const url = env.fixtures.url('index.html?worker=1');
    const { pageTargetId } = await env.share(url);
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = browser.contexts()[0].pages()[0];
      let closed = false;
      page.on('close', () => (closed = true));
      expect(await page.evaluate(() => 1 + 1)).toBe(2);

      // Stop every service worker, the extension's included (as Chrome does to idle workers).
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
      await cdp.send('ServiceWorker.enable', {}, sessionId);
      await cdp.send('ServiceWorker.stopAllWorkers', {}, sessionId);
      await cdp.send('Target.detachFromTarget', { sessionId });
      await waitFor(() => env!.relay.bridge.extensionState === 'reconnecting', { timeoutMs: 10_000, message: 'the relay never saw the worker go' });
      expect(env.isShared(pageTargetId)).toBe(true);

      // A command sent while the worker is down waits for it instead of failing.
      const pending = page.evaluate(() => document.title);
      // Something wakes the worker: here an extension page (Chrome's alarm would, within 30 s).
      const options = await cdp.send('Target.createTarget', { url: `chrome-extension://${EXTENSION_ID}/options.html` });
      await extensionServiceWorkerTarget(cdp, EXTENSION_ID, 15_000);
      await waitFor(() => env!.relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: 'the worker did not reconnect' });
      expect(await pending).toBe('Fixture Home');
      await cdp.send('Target.closeTarget', { targetId: options.targetId });

      // The same Page object keeps working: the debugger attachment outlived the worker.
      await page.click('#btn');
      expect(await page.textContent('#count')).toBe('1');
      expect(closed).toBe(false);
      expect(env.relay.bridge.sharedTabs().map((t) => t.targetId)).toEqual([pageTargetId]);
    } finally {
      await browser.close();
    }
  });
});
