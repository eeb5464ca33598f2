import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { extensionServiceWorkerTarget, waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../e2e/relay-env.js';

/**
 * Faults in a row (`npm run test:stress`; STRESS_ROUNDS, 20 by default, and
 * `.ci/run` runs a reduced count): the relay restarted, and the extension's
 * service worker stopped, again and again, with a tab shared and a
 * Playwright client connected. Every time the tab comes back shared, once
 * (no duplicate sessions or pages), the page is driven, and the relay's
 * process holds no more timers or sockets than after the first round.
 */

const ROUNDS = Number(process.env.STRESS_ROUNDS ?? 20);

let env: RelayEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** Handles this process holds, by kind (the relay runs in it). */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

describe(`faults, ${ROUNDS} in a row`, () => {
  it(`${ROUNDS} relay restarts: the tab comes back shared every time, once, and is driven`, async () => {
    env = await startRelayEnv();
    const url = env.fixtures.url('index.html?stress=restart');
    const { pageTargetId } = await env.share(url);
    let baseline: Record<string, number> | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      const browser = await chromium.connectOverCDP(env.cdpUrl());
      const pages = browser.contexts()[0].pages();
      expect(pages.map((page) => page.url()), `round ${round}`).toEqual([url]);
      await pages[0].click('#btn');
      expect(await pages[0].textContent('#count')).toBe(String(round));
      const gone = new Promise<void>((resolve) => browser.once('disconnected', () => resolve()));
      await env.restartRelay(200);
      await gone;
      await waitFor(() => env!.isShared(pageTargetId), { timeoutMs: 20_000, message: `round ${round}: the tab was not re-announced` });
      expect(env.relay.bridge.sharedTabs().map((tab) => tab.targetId)).toEqual([pageTargetId]);
      expect(env.relay.bridge.clientCount).toBe(0);
      if (round === 1) baseline = handles();
    }
    const after = handles();
    for (const kind of ['Timeout', 'TCPSocketWrap', 'TCPServerWrap']) expect(after[kind] ?? 0, kind).toBeLessThanOrEqual((baseline![kind] ?? 0) + 2);
    console.log(`relay restarts: ${ROUNDS} survived; handles after round 1 ${JSON.stringify(baseline)}, after round ${ROUNDS} ${JSON.stringify(after)}`);
  }, 60_000 + ROUNDS * 10_000);

  it(`${ROUNDS} service-worker stops: the client stays attached, the tab shared, commands wait and then run`, async () => {
    env = await startRelayEnv();
    const cdp = env.browser.cdp;
    const { pageTargetId } = await env.share(env.fixtures.url('index.html?stress=worker'));
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = browser.contexts()[0].pages()[0];
      let closed = false;
      page.on('close', () => (closed = true));
      let baseline: Record<string, number> | undefined;
      for (let round = 1; round <= ROUNDS; round++) {
        const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
        await cdp.send('ServiceWorker.enable', {}, sessionId);
        await cdp.send('ServiceWorker.stopAllWorkers', {}, sessionId);
        await cdp.send('Target.detachFromTarget', { sessionId });
        await waitFor(() => env!.relay.bridge.extensionState === 'reconnecting', { timeoutMs: 10_000, message: `round ${round}: the relay never saw the worker go` });
        // A command sent while the worker is down waits for it.
        const pending = page.evaluate(() => document.title);
        const options = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `chrome-extension://${EXTENSION_ID}/options.html` });
        await extensionServiceWorkerTarget(cdp, EXTENSION_ID, 15_000);
        await waitFor(() => env!.relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: `round ${round}: the worker did not reconnect` });
        expect(await pending).toBe('Fixture Home');
        await cdp.send('Target.closeTarget', { targetId: options.targetId });
        await page.click('#btn');
        expect(await page.textContent('#count')).toBe(String(round));
        expect(env.relay.bridge.sharedTabs().map((tab) => tab.targetId)).toEqual([pageTargetId]);
        expect(browser.contexts()[0].pages()).toHaveLength(1);
        expect(env.relay.bridge.clientCount).toBe(1);
        if (round === 1) baseline = handles();
      }
      expect(closed).toBe(false);
      const after = handles();
      for (const kind of ['Timeout', 'TCPSocketWrap', 'TCPServerWrap']) expect(after[kind] ?? 0, kind).toBeLessThanOrEqual((baseline![kind] ?? 0) + 2);
      console.log(`service-worker stops: ${ROUNDS} survived; handles after round 1 ${JSON.stringify(baseline)}, after round ${ROUNDS} ${JSON.stringify(after)}`);
    } finally {
      await browser.close();
    }
  }, 60_000 + ROUNDS * 10_000);
});
