import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { extensionServiceWorkerTarget, setExtensionStorage, waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';
import { rmSync } from 'node:fs';
import { startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { createLogger } from '../../relay/src/log.js';
import { freshHome } from '../harness/control-env.js';
import { freePortPair } from '../harness/ports.js';

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

/** A raw CDP client of the relay: commands by id, every message it receives kept in order. */
async function rawClient(url: string) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const messages: Array<{ id?: number; method?: string; params?: any; result?: any; error?: { message: string } }> = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  let nextId = 1;
  return {
    messages,
    send(method: string, params: object = {}, sessionId?: string): number {
      const id = nextId++;
      socket.send(JSON.stringify({ id, method, params, sessionId }));
      return id;
    },
    async answer(id: number, timeoutMs = 15_000) {
      await waitFor(() => messages.some((message) => message.id === id), { timeoutMs, intervalMs: 10, message: `no answer to command ${id}` });
      return messages.find((message) => message.id === id)!;
    },
    close: () => socket.close(),
  };
}

/** Handles this process holds, by kind (the relay runs in it). */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

describe(`faults, ${ROUNDS} in a row`, () => {
  it(
    `${ROUNDS} relay restarts: the tab comes back shared every time, once, and is driven`,
    async () => {
      env = await startRelayEnv();
      const url = env.fixtures.url('index.html?stress=restart');
      const { pageTargetId } = await env.share(url);
      let baseline: Record<string, number> | undefined;
      for (let round = 1; round <= ROUNDS; round++) {
        const browser = await chromium.connectOverCDP(env.cdpUrl());
        const pages = browser.contexts()[0].pages();
        expect(
          pages.map((page) => page.url()),
          `round ${round}`,
        ).toEqual([url]);
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
    },
    60_000 + ROUNDS * 10_000,
  );

  it(
    `${ROUNDS} service-worker stops: the client stays attached, the tab shared, commands wait and then run`,
    async () => {
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
          // The fault: Chrome stops the extension's worker. It may pass over a stop that comes while the worker
          // is busy starting or handling an event (seen once in a clean-clone run: the worker never went), so
          // the stop is asked again until it takes; what is tested is what follows a stop, not Chrome's stop.
          let stopped = false;
          for (let attempt = 1; attempt <= 3 && !stopped; attempt++) {
            const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
            await cdp.send('ServiceWorker.enable', {}, sessionId);
            await cdp.send('ServiceWorker.stopAllWorkers', {}, sessionId);
            await cdp.send('Target.detachFromTarget', { sessionId });
            stopped = await waitFor(() => env!.relay.bridge.extensionState === 'reconnecting', { timeoutMs: 4_000, intervalMs: 10 }).then(
              () => true,
              () => false,
            );
          }
          expect(stopped, `round ${round}: the relay never saw the worker go`).toBe(true);
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
        console.log(
          `service-worker stops: ${ROUNDS} survived; handles after round 1 ${JSON.stringify(baseline)}, after round ${ROUNDS} ${JSON.stringify(after)}`,
        );
      } finally {
        await browser.close();
      }
    },
    60_000 + ROUNDS * 10_000,
  );

  // Playwright creates its utility world (Page.createIsolatedWorld) without reading the answer, and finds
  // elements only in it: that command lost in a worker stop left page.click waiting for its element until it
  // timed out (the round above, about once in 20 one-round runs under load). The old worker may stop before
  // Chrome runs the command, or after, with its executionContextCreated then handed to the next worker, or lost.
  it(
    `${ROUNDS} service-worker stops with Page.createIsolatedWorld in flight: it is answered, and its context reported`,
    async () => {
      env = await startRelayEnv();
      const cdp = env.browser.cdp;
      const bridge = env.relay.bridge;
      const { pageTargetId } = await env.share(env.fixtures.url('index.html?stress=world'));
      // Counted, not polled: a worker Chrome wakes to hand it an event can be back before a poll sees it gone.
      let disconnects = 0;
      const extensionDisconnected = bridge.extensionDisconnected.bind(bridge);
      bridge.extensionDisconnected = () => {
        disconnects++;
        return extensionDisconnected();
      };
      const client = await rawClient(env.cdpUrl());
      try {
        const session = (await client.answer(client.send('Target.attachToTarget', { targetId: pageTargetId, flatten: true }))).result.sessionId as string;
        expect((await client.answer(client.send('Runtime.enable', {}, session))).error).toBeUndefined();
        const frameId = (await client.answer(client.send('Page.getFrameTree', {}, session))).result.frameTree.frame.id as string;
        for (let round = 1; round <= ROUNDS; round++) {
          const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
          await cdp.send('ServiceWorker.enable', {}, sessionId);
          const worldName = `fault-world-${round}`;
          const before = disconnects;
          const id = client.send('Page.createIsolatedWorld', { frameId, worldName, grantUniveralAccess: true }, session);
          // 0 to 4 ms apart: the worker stops before Chrome runs the command, or just after.
          await new Promise((resolve) => setTimeout(resolve, (round % 3) * 2));
          await cdp.send('ServiceWorker.stopAllWorkers', {}, sessionId);
          await cdp.send('Target.detachFromTarget', { sessionId });
          await waitFor(() => disconnects > before, { timeoutMs: 10_000, intervalMs: 10, message: `round ${round}: the relay never saw the worker go` });
          if (bridge.extensionState !== 'connected') {
            const options = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `chrome-extension://${EXTENSION_ID}/options.html` });
            await waitFor(() => bridge.extensionState === 'connected', { timeoutMs: 15_000, message: `round ${round}: the worker did not reconnect` });
            await cdp.send('Target.closeTarget', { targetId: options.targetId });
          }
          const answer = await client.answer(id);
          expect(answer.error, `round ${round}`).toBeUndefined();
          const created = client.messages.filter(
            (message) => message.method === 'Runtime.executionContextCreated' && message.params.context.name === worldName,
          );
          expect(
            created.map((message) => message.params.context.id),
            `round ${round}`,
          ).toEqual([answer.result.executionContextId]);
        }
        const byRelay = client.messages.filter(
          (message) => message.method === 'Runtime.executionContextCreated' && message.params.context.uniqueId.startsWith('clawd-relay.'),
        );
        console.log(
          `createIsolatedWorld in flight: ${ROUNDS} answered and reported; ${byRelay.length} of the reports made by the relay (Chrome's went with the old worker)`,
        );
      } finally {
        client.close();
      }
    },
    60_000 + ROUNDS * 10_000,
  );

  it('the extension away past the grace period: the client is told, commands fail at once with why; once it is back, the tab is shared and driven again', async () => {
    env = await startRelayEnv({ reconnectGraceMs: 1_000 });
    const cdp = env.browser.cdp;
    const { pageTargetId } = await env.share(env.fixtures.url('index.html?stress=grace'));
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    const page = browser.contexts()[0].pages()[0];
    // The worker cannot reach the relay (as while asleep, or paired elsewhere) for longer than the grace.
    const pairing = { relayUrl: `ws://127.0.0.1:${env.relay.port}`, key: env.extensionKey, via: 'manual' };
    await setExtensionStorage(cdp, EXTENSION_ID, 'local', { pairing: { ...pairing, relayUrl: 'ws://127.0.0.1:9' } });
    await waitFor(() => env!.relay.bridge.extensionState === 'absent', { timeoutMs: 15_000, message: 'the grace period never ended' });
    await waitFor(() => page.isClosed(), { message: 'the client was not told the tab left' });
    const started = performance.now();
    const refused = await fetch(`http://127.0.0.1:${env.relay.port}/json/new?token=${env.token}&url=about:blank`, { method: 'PUT' });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/extension is not connected/);
    expect(performance.now() - started).toBeLessThan(1_000);
    await browser.close();
    // Back: it reconnects and re-announces the tab it still debugs.
    await setExtensionStorage(cdp, EXTENSION_ID, 'local', { pairing });
    await waitFor(() => env!.isShared(pageTargetId), { timeoutMs: 20_000, message: 'the tab did not come back' });
    const again = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const revived = again
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().includes('stress=grace'))!;
      await revived.click('#btn');
      expect(await revived.textContent('#count')).toBe('1');
    } finally {
      await again.close();
    }
  }, 90_000);

  it("the extension's socket cut mid-command: that command fails at once, cleanly; the next one runs", async () => {
    env = await startRelayEnv();
    const cdp = env.browser.cdp;
    const { pageTargetId } = await env.share(env.fixtures.url('index.html?stress=cut'));
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = browser.contexts()[0].pages()[0];
      // Its outcome is taken at once, so a rejection is never left unhandled meanwhile.
      const slow = page
        .evaluate(() => new Promise((resolve) => setTimeout(() => resolve('late'), 3_000)))
        .then(
          () => 'answered',
          (error: Error) => error.message,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
      await cdp.send('ServiceWorker.enable', {}, sessionId);
      const cut = performance.now();
      await cdp.send('ServiceWorker.stopAllWorkers', {}, sessionId);
      await cdp.send('Target.detachFromTarget', { sessionId });
      expect(await slow).not.toBe('answered');
      expect(performance.now() - cut).toBeLessThan(2_500);
      const options = await cdp.send<{ targetId: string }>('Target.createTarget', { url: `chrome-extension://${EXTENSION_ID}/options.html` });
      await waitFor(() => env!.relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: 'the worker did not reconnect' });
      await cdp.send('Target.closeTarget', { targetId: options.targetId });
      expect(await page.evaluate(() => 6 * 7)).toBe(42);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('the managed browser killed under a client: a clear error, and start brings it back', async () => {
    const home = freshHome({ headless: true, noSandbox: true, controlUrl: `http://127.0.0.1:${(await freePortPair()).control}` });
    const server = await startServer({ home, logger: createLogger('silent') });
    try {
      const client = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token });
      const { targetId } = await client.openTab('about:blank');
      const { pid } = await client.status();
      process.kill(pid!, 'SIGKILL');
      await waitFor(async () => !(await client.status()).running, { message: 'the browser did not die' });
      const started = performance.now();
      const error = await client.navigate('about:blank#after', targetId).then(
        () => undefined,
        (caught: Error) => caught,
      );
      // The next call says the tab is gone: either the browser was found dead and started again
      // (no such tab), or the call met it dying (closed); never a hang, never a silent success.
      expect(error?.message).toMatch(/No tab with targetId .* in profile clawd|has been closed/);
      expect(performance.now() - started).toBeLessThan(35_000);
      await client.start();
      const tab = await client.openTab('about:blank#back');
      expect(tab.url).toBe('about:blank#back');
    } finally {
      await server.close();
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 90_000);
});
