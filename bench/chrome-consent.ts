/**
 * The `chrome` profile (a person's own Chrome attached through its
 * remote-debugging consent) against direct CDP to the same Chromium, as
 * people run it: `clawd-browser serve` as its own process, Chromium with
 * --remote-debugging-port on a folder of its own (it writes
 * DevToolsActivePort, as a person's Chrome does; headless, it asks nobody).
 *   - attach: `POST /chrome/attach` → attached;
 *   - lend: the picker's request (made by the picker page itself, in that
 *     Chromium) → the tab listed at /json/list?profile=chrome;
 *   - Runtime.evaluate round trips, sequential and pipelined; a 5 MB
 *     screenshot; connectOverCDP → first evaluate: direct and through the relay.
 * `npm run bench:chrome` runs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { launchChromium, openTab, pageTargets, waitFor } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { RawCdp } from './raw-cdp.js';
import { median, percentile } from './relay.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2500);
const PIPELINED = Number(process.env.BENCH_PIPELINED ?? 5000);
const IN_FLIGHT = 100;
const SCREENSHOTS = Number(process.env.BENCH_SCREENSHOTS ?? 5);
const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 7);
const ATTACHES = Number(process.env.BENCH_ATTACHES ?? 5);
const LENDS = Number(process.env.BENCH_LENDS ?? 10);

type Path = 'direct' | 'relay';
const now = () => performance.now();
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-chrome-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'clawd-bench-person-'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  const { control, relay: relayPort } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, chrome: { userDataDir } }));
  const serve: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), 'serve', '--log-level', 'warn'], { env: { ...process.env, CLAWD_HOME: home }, stdio: ['ignore', 'ignore', 'inherit'] });
  const fixtures = await startFixtureServer();
  const person = await launchChromium({ userDataDir, remoteDebuggingPort: 0 });
  const api = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${control}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  const relayUrl = `ws://127.0.0.1:${relayPort}/cdp?profile=chrome&token=${token}`;
  const lentIds = async () => ((await (await fetch(`http://127.0.0.1:${relayPort}/json/list?profile=chrome&token=${token}`)).json()) as Array<{ id: string }>).map((tab) => tab.id);
  try {
    await waitFor(async () => (await api('/chrome').catch(() => undefined))?.ok === true, { timeoutMs: 15_000, message: 'serve did not start' });

    // Attach, and let go again, ATTACHES times.
    const attach: number[] = [];
    for (let i = 0; i < ATTACHES; i++) {
      const start = now();
      const status = (await (await api('/chrome/attach', { method: 'POST', body: '{}' })).json()) as { state: string };
      if (status.state !== 'attached') throw new Error(`not attached: ${JSON.stringify(status)}`);
      attach.push(now() - start);
      if (i < ATTACHES - 1) await api('/chrome/detach', { method: 'POST' });
    }

    // The picker, opened in the person's Chromium; its own page lends and takes back a tab.
    const { pageTargetId } = await openTab(person.cdp, fixtures.url('index.html'));
    await api('/chrome/picker/open', { method: 'POST' });
    let picker: string | undefined;
    await waitFor(async () => (picker = (await pageTargets(person.cdp)).find((target) => target.url.endsWith('/chrome/picker'))?.targetId) !== undefined, { message: 'no picker' });
    const { sessionId: pickerSession } = await person.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: picker!, flatten: true });
    const inPicker = (lent: boolean) =>
      person.cdp.send('Runtime.evaluate', { expression: `fetch('/chrome/picker/lend', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ targetId: ${JSON.stringify(pageTargetId)}, lent: ${lent} }) }).then((r) => r.status)`, awaitPromise: true, returnByValue: true }, pickerSession);
    const lend: number[] = [];
    for (let i = 0; i < LENDS; i++) {
      const start = now();
      await inPicker(true);
      await waitFor(async () => (await lentIds()).includes(pageTargetId), { intervalMs: 1, message: 'not lent' });
      lend.push(now() - start);
      if (i < LENDS - 1) {
        await inPicker(false);
        await waitFor(async () => !(await lentIds()).includes(pageTargetId), { intervalMs: 1, message: 'not taken back' });
      }
    }

    const clients: Record<Path, RawCdp> = { direct: await RawCdp.connect(person.wsEndpoint!), relay: await RawCdp.connect(relayUrl) };
    const sessions: Record<Path, string> = { direct: await clients.direct.attach(pageTargetId), relay: await clients.relay.attach(pageTargetId) };
    const evaluate = (path: Path) => clients[path].send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessions[path]);
    for (let i = 0; i < 300; i++) {
      await evaluate('direct');
      await evaluate('relay');
    }
    const latency: Record<Path, number[]> = { direct: [], relay: [] };
    for (let round = 0; round < 5; round++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        for (let i = 0; i < SEQUENTIAL / 5; i++) {
          const start = now();
          await evaluate(path);
          latency[path].push(now() - start);
        }
      }
    }
    const throughput: Record<Path, number[]> = { direct: [], relay: [] };
    for (let round = 0; round < 3; round++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        let sent = 0;
        await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
          while (sent < PIPELINED) {
            sent++;
            await evaluate(path);
          }
        }));
        throughput[path].push(PIPELINED / ((now() - start) / 1000));
      }
    }

    await clients.direct.send('Page.navigate', { url: fixtures.url('big.html') }, sessions.direct);
    await waitFor(async () => (await clients.direct.send('Runtime.evaluate', { expression: 'document.body?.dataset.ready', returnByValue: true }, sessions.direct)).result.value === '1', { message: 'big.html never drew' });
    const { cssContentSize } = await clients.direct.send('Page.getLayoutMetrics', {}, sessions.direct);
    const clip = { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 };
    const screenshot: Record<Path, number[]> = { direct: [], relay: [] };
    let bytes = 0;
    for (let i = 0; i < SCREENSHOTS; i++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        const { data } = await clients[path].send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true }, sessions[path]);
        screenshot[path].push(now() - start);
        bytes = Buffer.from(data, 'base64').length;
      }
    }
    clients.direct.close();
    clients.relay.close();

    const connect: Record<Path, number[]> = { direct: [], relay: [] };
    const endpoints: Record<Path, string> = { direct: person.wsEndpoint!, relay: relayUrl };
    for (let i = 0; i < CONNECTS; i++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        const client = await chromium.connectOverCDP(endpoints[path]);
        const page = client.contexts()[0].pages().find((each) => each.url().includes('big.html'))!;
        await page.evaluate(() => 1 + 1);
        connect[path].push(now() - start);
        await client.close();
      }
    }

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const line = (path: Path) => {
      const l = sorted(latency[path]);
      return `p50 ${ms(percentile(l, 50))}, p99 ${ms(percentile(l, 99))}; pipelined ${median(throughput[path]).toFixed(0)} ops/s; ${(bytes / 1e6).toFixed(1)} MB screenshot ${ms(median(screenshot[path]))}; connectOverCDP → first evaluate ${ms(median(connect[path]))}`;
    };
    console.log(`chrome profile (${SEQUENTIAL} sequential, ${PIPELINED} pipelined with ${IN_FLIGHT} in flight, medians of rounds):`);
    console.log(`  POST /chrome/attach → attached: p50 ${ms(percentile(sorted(attach), 50))} (${ATTACHES} attaches; a person's Chrome adds the time they take to answer)`);
    console.log(`  the picker's lend → at /json/list?profile=chrome: p50 ${ms(percentile(sorted(lend), 50))}, max ${ms(Math.max(...lend))} (${LENDS} lends)`);
    console.log(`  Runtime.evaluate direct:  ${line('direct')}`);
    console.log(`  Runtime.evaluate relay:   ${line('relay')}`);
    const ratio = (record: Record<Path, number[]>) => (median(record.relay) / median(record.direct)).toFixed(2);
    console.log(`  relay ÷ direct: p50 ${(percentile(sorted(latency.relay), 50) / percentile(sorted(latency.direct), 50)).toFixed(2)}×, pipelined ${ratio(throughput)}×, screenshot ${ratio(screenshot)}×, connect ${ratio(connect)}×`);
  } finally {
    await person.close();
    serve.kill('SIGTERM');
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

await main();
