/**
 * What keeping this server's own origins out of a shared or lent tab's
 * reach costs the tab's page loads (relay/src/bridge/own-origins.ts), for
 * each way it could be held: network conditions by rule (its ports offline,
 * applied in Chromium's network stack: what the relay does), and request
 * interception (CDP's `Fetch` for its ports: its fallback for a browser
 * without conditions by rule, which passes each of the page's requests
 * through Chromium's interceptor, matching or not). Measured at the floor:
 * one Chromium over its pipe, Network enabled as Playwright has it, a page
 * of N images from a local site that answers each after DELAY ms, loaded
 * ROUNDS times each way, in turn.
 * `npm run bench:own-origins` runs it (BENCH_IMAGES, BENCH_DELAY_MS, BENCH_ROUNDS).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium } from '../tests/harness/chromium.js';
import { median, percentile } from './cdp-rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SHAPES = process.env.BENCH_IMAGES
  ? [{ images: Number(process.env.BENCH_IMAGES), delayMs: Number(process.env.BENCH_DELAY_MS ?? 30) }]
  : [
      { images: 20, delayMs: 50 },
      { images: 60, delayMs: 30 },
      { images: 150, delayMs: 0 },
    ];
const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');

async function main(): Promise<void> {
  let delayMs = 0;
  let images = 0;
  const site = createServer((request, response) => {
    if (request.url?.startsWith('/page')) {
      response.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      return void response.end(`<title>page</title>${Array.from({ length: images }, (_, index) => `<img src="/image/${index}?${Math.random()}">`).join('')}`);
    }
    setTimeout(() => response.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(GIF), delayMs);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const { targetId } = await browser.cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    await browser.cdp.send('Page.enable', {}, sessionId);
    await browser.cdp.send('Network.enable', {}, sessionId);
    const load = async () => {
      const started = performance.now();
      const loaded = browser.cdp.waitForEvent('Page.loadEventFired', (_params: unknown, session?: string) => session === sessionId);
      await browser.cdp.send('Page.navigate', { url: `${origin}/page?${Math.random()}` }, sessionId);
      await loaded;
      return performance.now() - started;
    };
    // The relay's own: its two ports (nothing here matches them).
    const ports = [18791, 18792];
    const ways = {
      none: async () => {
        await browser.cdp.send('Fetch.disable', {}, sessionId);
        await browser.cdp.send('Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [] }, sessionId);
      },
      conditions: () =>
        browser.cdp.send(
          'Network.emulateNetworkConditionsByRule',
          {
            matchedNetworkConditions: ports.map((port) => ({
              urlPattern: `*://*:${port}/*`,
              offline: true,
              latency: 0,
              downloadThroughput: -1,
              uploadThroughput: -1,
            })),
          },
          sessionId,
        ),
      interception: () =>
        browser.cdp.send('Fetch.enable', { patterns: ports.map((port) => ({ urlPattern: `*://*:${port}/*`, requestStage: 'Request' })) }, sessionId),
    };
    for (const shape of SHAPES) {
      ({ images, delayMs } = shape);
      const times: Record<keyof typeof ways, number[]> = { none: [], conditions: [], interception: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const way of Object.keys(ways) as Array<keyof typeof ways>) {
          await ways.none();
          await ways[way]();
          if (round === 0) await load();
          times[way].push(await load());
        }
      }
      const said = (way: keyof typeof ways) =>
        `${way} ${median(times[way]).toFixed(0)} ms (p90 ${percentile(
          [...times[way]].sort((a, b) => a - b),
          90,
        ).toFixed(0)}, ${(median(times[way]) / median(times.none)).toFixed(2)}×)`;
      console.log(`${images} images at ${delayMs} ms each, ${ROUNDS} loads each: ${said('none')}, ${said('conditions')}, ${said('interception')}`);
    }
  } finally {
    await browser.close();
    site.close();
  }
}

await main();
