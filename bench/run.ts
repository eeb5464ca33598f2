/**
 * `npm run bench`: the extension relay against direct CDP to the same
 * Chromium, in one run. Chromium is started as a plain process (nothing else
 * attached to the extension's service worker) with both a pipe (to click the
 * toolbar button) and --remote-debugging-port (the direct path). The relay
 * runs as its own process, `clawd-browser serve`, as users run it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { EXTENSION_ID } from '../protocol/constants.js';
import { extensionServiceWorkerTarget, type LaunchedChromium, launchChromium, openTab, pageTargets, setExtensionStorage, triggerExtensionAction, waitFor } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { measureMcpTokens, reportMcpTokens } from './mcp-tokens.js';
import { measureThirdPartySnapshots, reportThirdPartySnapshots } from './third-party-snapshots.js';
import { RawCdp } from './raw-cdp.js';
import { measureRuntime, reportRuntime } from './runtime.js';
import { measureSessions, reportSessions } from './sessions.js';

process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK = '1';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2500);
const PIPELINED = Number(process.env.BENCH_PIPELINED ?? 5000);
const IN_FLIGHT = 100;
const SCREENSHOTS = Number(process.env.BENCH_SCREENSHOTS ?? 5);
const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 7);
const ROUNDS = 5;

type Path = 'direct' | 'relay';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const now = () => performance.now();

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-'));
  const token = randomBytes(32).toString('hex');
  const extensionKey = randomBytes(32).toString('hex');
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'extension-key'), `${extensionKey}\n`, { mode: 0o600 });
  const { relay: relayPort } = await freePortPair();
  // RELAY_NODE_ARGS="--cpu-prof" profiles the relay process alone.
  const nodeArgs = (process.env.RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const relay: ChildProcess = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/clawd-browser.js'), 'serve', '--port', String(relayPort - 1), '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const fixtures = await startFixtureServer();
  const browser = await launchChromium({ extensionDir: join(ROOT, 'dist/extension'), remoteDebuggingPort: 0 });
  const relayUrl = `ws://127.0.0.1:${relayPort}/cdp?token=${token}`;
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${relayPort}/json/version?token=${token}`).catch(() => undefined))?.ok === true, {
      timeoutMs: 15_000,
      message: 'relay did not start',
    });
    await setExtensionStorage(browser.cdp, EXTENSION_ID, 'local', { pairing: { relayUrl: `ws://127.0.0.1:${relayPort}`, key: extensionKey, via: 'manual' } });
    // Connected means the worker has run and registered its toolbar listener.
    await waitFor(
      async () => ((await (await fetch(`http://127.0.0.1:${relayPort}/status?token=${token}`)).json()) as { extension: string }).extension === 'connected',
      { timeoutMs: 15_000, message: 'extension did not connect' },
    );

    // One shared tab, and no other page, so both paths see the same browser.
    const { pageTargetId, tabTargetId } = await openTab(browser.cdp, fixtures.url('index.html'));
    for (const page of await pageTargets(browser.cdp)) {
      if (page.targetId !== pageTargetId) await browser.cdp.send('Target.closeTarget', { targetId: page.targetId });
    }
    await triggerExtensionAction(browser.cdp, EXTENSION_ID, tabTargetId);
    await waitFor(
      async () => ((await (await fetch(`http://127.0.0.1:${relayPort}/json/list?token=${token}`)).json()) as unknown[]).length === 1,
      { timeoutMs: 15_000, message: 'tab not shared' },
    );

    const clients: Record<Path, RawCdp> = {
      direct: await RawCdp.connect(browser.wsEndpoint!),
      relay: await RawCdp.connect(relayUrl),
    };
    const sessions: Record<Path, string> = {
      direct: await clients.direct.attach(pageTargetId),
      relay: await clients.relay.attach(pageTargetId),
    };
    const evaluate = (path: Path) =>
      clients[path].send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessions[path]);

    // Warm up both paths.
    for (let i = 0; i < 300; i++) {
      await evaluate('direct');
      await evaluate('relay');
    }

    // 1. Sequential round trips, interleaved in rounds so drift hits both paths.
    const latency: Record<Path, number[]> = { direct: [], relay: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        for (let i = 0; i < SEQUENTIAL / ROUNDS; i++) {
          const start = now();
          await evaluate(path);
          latency[path].push(now() - start);
        }
      }
    }

    // 2. Pipelined: IN_FLIGHT commands outstanding at all times.
    const throughput: Record<Path, number[]> = { direct: [], relay: [] };
    for (let round = 0; round < 3; round++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        let sent = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (sent < PIPELINED) {
              sent++;
              await evaluate(path);
            }
          }),
        );
        throughput[path].push(PIPELINED / ((now() - start) / 1000));
      }
    }

    // 3. A full-page screenshot of ~5 MB.
    await clients.direct.send('Page.navigate', { url: fixtures.url('big.html') }, sessions.direct);
    await waitFor(async () => (await evaluate('direct').then(() => clients.direct.send('Runtime.evaluate', { expression: 'document.body?.dataset.ready', returnByValue: true }, sessions.direct))).result.value === '1', {
      message: 'big.html never drew',
    });
    const { cssContentSize } = await clients.direct.send('Page.getLayoutMetrics', {}, sessions.direct);
    const clip = { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 };
    const screenshot: Record<Path, number[]> = { direct: [], relay: [] };
    let screenshotBytes = 0;
    for (let i = 0; i < SCREENSHOTS; i++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        const { data } = await clients[path].send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true }, sessions[path]);
        screenshot[path].push(now() - start);
        screenshotBytes = Buffer.from(data, 'base64').length;
      }
    }
    await clients.direct.send('Page.navigate', { url: fixtures.url('index.html') }, sessions.direct);
    clients.direct.close();
    clients.relay.close();

    // 4. Playwright connectOverCDP -> first evaluate.
    const connect: Record<Path, number[]> = { direct: [], relay: [] };
    const endpoints: Record<Path, string> = { direct: browser.wsEndpoint!, relay: relayUrl };
    for (let i = 0; i < CONNECTS; i++) {
      for (const path of ['direct', 'relay'] as Path[]) {
        const start = now();
        const client = await chromium.connectOverCDP(endpoints[path]);
        const page = client.contexts()[0].pages()[0];
        await page.evaluate(() => 1 + 1);
        connect[path].push(now() - start);
        await client.close();
      }
    }

    // 5. Last, the floor: chrome.debugger alone, timed inside the extension's
    // worker with no relay. Any extension relay pays at least this. (Attaching
    // to the worker is why it runs last.)
    const floor = await measureChromeDebugger(browser.cdp, pageTargetId, clip, fixtures.url('big.html'));

    const managedStart = await measureManagedStart(token, fixtures.url('many.html'));

    report({ latency, throughput, screenshot, connect, screenshotBytes, floor, managedStart });
  } finally {
    await browser.close();
    relay.kill('SIGTERM');
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/**
 * Issue 4's figure: `POST /start` -> first successful `GET /tabs` for a
 * managed profile, through `clawd-browser serve` as users run it, against a
 * plain Playwright `chromium.launch()` of the same binary (-> first page list).
 */
interface SnapshotFigures {
  ours: number[];
  playwright: number[];
  snapshotChars: number;
  ariaChars: number;
  htmlChars: number;
}

interface ManagedStartFigures {
  /** Playwright chromium.launch() of the same binary. */
  plainLaunch: number[];
  /** POST /start + GET /tabs through clawd-browser serve. */
  serveStart: number[];
  runs: number;
  snapshot: SnapshotFigures;
}

async function measureManagedStart(token: string, manyUrl: string): Promise<ManagedStartFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-managed-'));
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  const ports = await freePortPair();
  const cdpPort = (await freePortPair()).control;
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, noSandbox: true, profiles: { clawd: { cdpPort } } }));
  const server = spawn(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), 'serve', '--log-level', 'warn'], { env: { ...process.env, CLAWD_HOME: home }, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${ports.control}`;
  const call = (method: string, path: string) => fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const results: ManagedStartFigures = {
    plainLaunch: [],
    serveStart: [],
    runs: Number(process.env.BENCH_STARTS ?? 5),
    snapshot: { ours: [], playwright: [], snapshotChars: 0, ariaChars: 0, htmlChars: 0 },
  };
  try {
    await waitFor(async () => (await call('GET', '/').catch(() => undefined))?.ok === true, { timeoutMs: 15_000, message: 'serve did not start' });
    // The first start seeds the profile; measure warm starts like a user's second launch.
    await call('POST', '/start');
    await call('POST', '/stop');
    for (let i = 0; i < results.runs; i++) {
      let start = now();
      const started = await call('POST', '/start');
      const tabs = await call('GET', '/tabs');
      if (!started.ok || !tabs.ok) throw new Error(`managed start failed: ${started.status} ${tabs.status}`);
      results.serveStart.push(now() - start);
      await call('POST', '/stop');

      start = now();
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
      const context = await browser.newContext();
      context.pages();
      results.plainLaunch.push(now() - start);
      await browser.close();
    }

    // Issue 5: GET /snapshot (ai) of a 5,000-element page, as an agent pays for it, against
    // Playwright's own ariaSnapshot() of the same page in the same browser.
    const opened = (await (await fetch(`${base}/tabs/open`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: manyUrl }),
    })).json()) as { targetId: string };
    const playwright = await chromium.connectOverCDP(`http://127.0.0.1:${cdpPort}`);
    const page = playwright.contexts()[0].pages().find((p) => p.url() === manyUrl)!;
    results.snapshot.htmlChars = await page.evaluate(() => document.documentElement.outerHTML.length);
    for (let i = 0; i < 7; i++) {
      let start = now();
      const snapshot = (await (await call('GET', `/snapshot?targetId=${opened.targetId}`)).json()) as { text: string };
      results.snapshot.ours.push(now() - start);
      results.snapshot.snapshotChars = snapshot.text.length;
      start = now();
      const aria = await page.locator('body').ariaSnapshot();
      results.snapshot.playwright.push(now() - start);
      results.snapshot.ariaChars = aria.length;
    }
    await playwright.close();
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
  return results;
}

interface Floor {
  p50: number;
  throughput: number;
  screenshot: number;
}

async function measureChromeDebugger(cdp: LaunchedChromium['cdp'], pageTargetId: string, clip: object, bigUrl: string): Promise<Floor> {
  const worker = await extensionServiceWorkerTarget(cdp, EXTENSION_ID, 10_000);
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  const contextId = await new Promise<number>((resolve) => {
    cdp.on('Runtime.executionContextCreated', (params: { context: { id: number } }, from?: string) => {
      if (from === sessionId) resolve(params.context.id);
    });
    void cdp.send('Runtime.enable', {}, sessionId);
  });
  const run = async (expression: string) => {
    const answer = await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, contextId }, sessionId);
    if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? 'evaluation failed');
    return JSON.parse(answer.result.value);
  };
  try {
    const source = `(async () => {
      const targets = await chrome.debugger.getTargets();
      const tabId = targets.find((t) => t.id === ${JSON.stringify(pageTargetId)}).tabId;
      const target = { tabId };
      const evaluate = () => chrome.debugger.sendCommand(target, 'Runtime.evaluate', { expression: '1+1', returnByValue: true });
      for (let i = 0; i < 300; i++) await evaluate();
      const samples = [];
      for (let i = 0; i < ${SEQUENTIAL}; i++) { const start = performance.now(); await evaluate(); samples.push(performance.now() - start); }
      samples.sort((a, b) => a - b);
      const rates = [];
      for (let round = 0; round < 3; round++) {
        let sent = 0;
        const start = performance.now();
        await Promise.all(Array.from({ length: ${IN_FLIGHT} }, async () => { while (sent < ${PIPELINED}) { sent++; await evaluate(); } }));
        rates.push(${PIPELINED} / ((performance.now() - start) / 1000));
      }
      rates.sort((a, b) => a - b);
      await chrome.debugger.sendCommand(target, 'Page.navigate', { url: ${JSON.stringify(bigUrl)} });
      for (let i = 0; i < 100; i++) {
        const { result } = await chrome.debugger.sendCommand(target, 'Runtime.evaluate', { expression: 'document.body && document.body.dataset.ready', returnByValue: true });
        if (result.value === '1') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const shots = [];
      for (let i = 0; i < ${SCREENSHOTS}; i++) {
        const start = performance.now();
        await chrome.debugger.sendCommand(target, 'Page.captureScreenshot', { format: 'png', clip: ${JSON.stringify(clip)}, captureBeyondViewport: true });
        shots.push(performance.now() - start);
      }
      shots.sort((a, b) => a - b);
      return JSON.stringify({ p50: samples[Math.floor(samples.length / 2)], throughput: rates[1], screenshot: shots[Math.floor(shots.length / 2)] });
    })()`;
    return await run(source);
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId });
  }
}

function report(results: {
  latency: Record<Path, number[]>;
  throughput: Record<Path, number[]>;
  screenshot: Record<Path, number[]>;
  connect: Record<Path, number[]>;
  screenshotBytes: number;
  floor: Floor;
  managedStart: ManagedStartFigures;
}): void {
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const d = sorted(results.latency.direct);
  const r = sorted(results.latency.relay);
  const rows = [
    { metric: `Runtime.evaluate p50 (ms, n=${d.length})`, direct: percentile(d, 50), relay: percentile(r, 50), floor: results.floor.p50, target: '≤ 1.25', lowerIsBetter: true, limit: 1.25 },
    { metric: 'Runtime.evaluate p99 (ms)', direct: percentile(d, 99), relay: percentile(r, 99), floor: undefined, target: '', lowerIsBetter: true, limit: undefined },
    { metric: `pipelined throughput (ops/s, ${IN_FLIGHT} in flight)`, direct: median(results.throughput.direct), relay: median(results.throughput.relay), floor: results.floor.throughput, target: '≥ 0.8', lowerIsBetter: false, limit: 0.8 },
    { metric: `full-page screenshot ${(results.screenshotBytes / 1e6).toFixed(1)} MB PNG (ms, median)`, direct: median(results.screenshot.direct), relay: median(results.screenshot.relay), floor: results.floor.screenshot, target: '≤ 1.15', lowerIsBetter: true, limit: 1.15 },
    { metric: 'connectOverCDP → first evaluate (ms, median)', direct: median(results.connect.direct), relay: median(results.connect.relay), floor: undefined, target: '≤ 1.5', lowerIsBetter: true, limit: 1.5 },
  ];
  console.log('\nclawd-browser relay vs direct CDP (same Chromium, same tab)\n');
  console.log('The last column is chrome.debugger.sendCommand timed inside the extension worker, no relay:');
  console.log('the floor for any extension relay (worker timers are coarsened to 0.1 ms).\n');
  console.log(`${'metric'.padEnd(52)} ${'direct'.padStart(10)} ${'relay'.padStart(10)} ${'ratio'.padStart(7)}  ${'target'.padEnd(8)} chrome.debugger alone (floor)`);
  const summary: Record<string, unknown> = {};
  for (const row of rows) {
    const ratio = row.relay / row.direct;
    const met = row.limit === undefined ? '' : (row.lowerIsBetter ? ratio <= row.limit : ratio >= row.limit) ? ' ✓' : ' ✗';
    const floor = row.floor === undefined ? '' : `${row.floor.toFixed(3)} (${(row.floor / row.direct).toFixed(2)}x direct)`;
    console.log(`${row.metric.padEnd(52)} ${row.direct.toFixed(3).padStart(10)} ${row.relay.toFixed(3).padStart(10)} ${ratio.toFixed(2).padStart(7)}  ${(row.target + met).padEnd(8)} ${floor}`);
    summary[row.metric] = { direct: row.direct, relay: row.relay, ratio, chromeDebuggerAlone: row.floor };
  }
  const launch = median(results.managedStart.serveStart);
  const plain = median(results.managedStart.plainLaunch);
  console.log(`\nmanaged profile: POST /start -> first GET /tabs vs plain chromium.launch() (same binary, median of ${results.managedStart.runs})`);
  console.log(`${'chromium.launch()'.padEnd(52)} ${plain.toFixed(1).padStart(10)} ms`);
  console.log(`${'POST /start + GET /tabs (clawd-browser serve)'.padEnd(52)} ${launch.toFixed(1).padStart(10)} ms   ratio ${(launch / plain).toFixed(2)}  target ≤ 1.2${launch / plain <= 1.2 ? ' ✓' : ' ✗'}`);
  summary['managed start (ms, median)'] = { direct: plain, relay: launch, ratio: launch / plain };

  const snap = results.managedStart.snapshot;
  const ours = median(snap.ours);
  const theirs = median(snap.playwright);
  console.log(`\nsnapshot of a 5,000-element page (many.html, median of ${snap.ours.length}; the first, layout-heavy call included)`);
  console.log(`${"Playwright locator('body').ariaSnapshot()".padEnd(52)} ${theirs.toFixed(1).padStart(10)} ms   ${snap.ariaChars} chars`);
  console.log(`${'GET /snapshot (ai, refs) through the control API'.padEnd(52)} ${ours.toFixed(1).padStart(10)} ms   ${snap.snapshotChars} chars   ratio ${(ours / theirs).toFixed(2)}  target ≤ 1.0${ours / theirs <= 1 ? ' ✓' : ' ✗'}`);
  console.log(`${'page HTML'.padEnd(52)} ${''.padStart(10)}      ${snap.htmlChars} chars   snapshot/HTML ${(snap.snapshotChars / snap.htmlChars).toFixed(2)}`);
  summary['ai snapshot of many.html (ms, median)'] = { direct: theirs, relay: ours, ratio: ours / theirs, snapshotChars: snap.snapshotChars, htmlChars: snap.htmlChars };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/latest.json'), `${JSON.stringify(summary, null, 2)}\n`);
}

main()
  // Issue 9's figure, after the relay's: tokens an agent receives through MCP (mcp-tokens.ts).
  .then(async () => reportMcpTokens(await measureMcpTokens()))
  // The snapshot on pages nobody here wrote, against Playwright's AI snapshot (third-party-snapshots.ts).
  .then(async () => reportThirdPartySnapshots(await measureThirdPartySnapshots()))
  // Issue 10's: cancel latency and the live view (runtime.ts).
  .then(async () => reportRuntime(await measureRuntime()))
  // Issue 11's: task session create and teardown (sessions.ts).
  .then(async () => reportSessions(await measureSessions()))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
