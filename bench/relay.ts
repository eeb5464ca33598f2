/**
 * The extension relay against direct CDP to the same Chromium, and against
 * chrome.debugger alone (the floor for any extension relay), as users run
 * it: `clawd-browser serve` as its own process; Chromium as a plain process
 * (nothing else attached to the extension's worker) with a pipe (to click
 * the toolbar button) and --remote-debugging-port (the direct path); the
 * extension paired through the native host, installed into Chromium's
 * user-data dir as `install-native-host` does.
 *   - sharing: toolbar click → the tab listed at the relay's /json/list;
 *   - Runtime.evaluate round trips, sequential and pipelined; a 5 MB
 *     screenshot; connectOverCDP → first evaluate;
 *   - the floor, timed inside the worker; then the worker's two transports
 *     on their own (worker-transport.ts).
 * `npm run bench` runs it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID } from '../protocol/constants.js';
import {
  extensionReady,
  extensionServiceWorkerTarget,
  type LaunchedChromium,
  launchChromium,
  openTab,
  pageTargets,
  waitFor,
} from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { CdpRounds, connectRounds, median, type Path, percentile, ROUND_COUNTS } from './cdp-rounds.js';
import { measureChromeDebugger, type Floor } from './chrome-debugger-floor.js';
import { measureWorkerTransports, type TransportFigures } from './worker-transport.js';

process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK = '1';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARES = Number(process.env.BENCH_SHARES ?? 10);

export interface RelayFigures {
  /** Sorted round-trip times, ms. */
  latency: Record<Path, number[]>;
  /** ops/s, one per round. */
  throughput: Record<Path, number[]>;
  screenshot: Record<Path, number[]>;
  screenshotBytes: number;
  connect: Record<Path, number[]>;
  /** Toolbar click → listed at /json/list, ms, sorted. */
  share: number[];
  /** Where the CPU went during one pipelined round on each path (shares of one core, by process). */
  pipelinedCpu: Record<Path, Record<string, number>>;
  floor: Floor;
  transports: TransportFigures;
}

const now = () => performance.now();

export async function measureRelay(): Promise<RelayFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  const { control, relay: relayPort } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}` }));
  // RELAY_NODE_ARGS="--cpu-prof" profiles the relay process alone.
  const nodeArgs = (process.env.RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const cli = join(ROOT, 'bin/clawd-browser.js');
  const relay: ChildProcess = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const userDataDir = mkdtempSync(join(tmpdir(), 'clawd-bench-chromium-'));
  execFileSync(process.execPath, [cli, 'install-native-host', '--browser', 'chromium', '--user-data-dir', userDataDir], {
    env: { ...process.env, CLAWD_HOME: home },
  });
  const fixtures = await startFixtureServer();
  const browser = await launchChromium({ userDataDir, extensionDir: join(ROOT, 'dist/extension'), remoteDebuggingPort: 0 });
  const relayUrl = `ws://127.0.0.1:${relayPort}/cdp?token=${token}`;
  const json = async <T>(path: string) =>
    (await (await fetch(`http://127.0.0.1:${relayPort}${path}${path.includes('?') ? '&' : '?'}token=${token}`)).json()) as T;
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${relayPort}/json/version?token=${token}`).catch(() => undefined))?.ok === true, {
      timeoutMs: 15_000,
      message: 'relay did not start',
    });
    await extensionReady(browser.cdp, EXTENSION_ID);
    const share = await measureSharing(browser, fixtures.url('index.html'), async (id) =>
      (await json<Array<{ id: string }>>('/json/list')).some((t) => t.id === id),
    );

    // One shared tab, and no other page, so both paths see the same browser.
    const { pageTargetId, tabTargetId } = await openTab(browser.cdp, fixtures.url('index.html'));
    for (const page of await pageTargets(browser.cdp)) {
      if (page.targetId !== pageTargetId) await browser.cdp.send('Target.closeTarget', { targetId: page.targetId });
    }
    await click(browser, pageTargetId, tabTargetId);
    await waitFor(async () => (await json<unknown[]>('/json/list')).length === 1, { timeoutMs: 15_000, message: 'tab not shared' });

    // The same rounds as chrome-consent.ts, on the shared tab: direct and through the relay.
    const endpoints: Record<Path, string> = { direct: browser.wsEndpoint!, relay: relayUrl };
    const rounds = await CdpRounds.open(endpoints, pageTargetId);
    const latency = await rounds.sequential(ROUND_COUNTS.sequential);
    // BENCH_PROFILE_WORKER=file.cpuprofile: the extension worker's CPU profile over the pipelined rounds.
    const stopProfiling = process.env.BENCH_PROFILE_WORKER ? await profileWorker(browser, process.env.BENCH_PROFILE_WORKER) : undefined;
    const { throughput, cpu: pipelinedCpu } = await rounds.pipelined(ROUND_COUNTS.pipelined, ROUND_COUNTS.inFlight, processName);
    await stopProfiling?.();
    const { screenshot, bytes: screenshotBytes, clip } = await rounds.screenshots(fixtures.url('big.html'), ROUND_COUNTS.screenshots);
    await rounds.navigate(fixtures.url('index.html'));
    rounds.close();
    const connect = await connectRounds(endpoints, ROUND_COUNTS.connects, (pages) => pages[0]);

    // Last, what runs inside the worker (attaching to it is why it comes last).
    const floor = await measureChromeDebugger(browser.cdp, pageTargetId, clip, fixtures.url('big.html'), ROUND_COUNTS);
    const transports = await measureWorkerTransports(browser.cdp, userDataDir, ROUND_COUNTS);
    return { latency, throughput, screenshot, screenshotBytes, connect, share: [...share].sort((a, b) => a - b), pipelinedCpu, floor, transports };
  } finally {
    await browser.close();
    relay.kill('SIGTERM');
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** Starts the V8 profiler in the extension's worker; the returned function stops it and writes the profile. */
async function profileWorker(browser: LaunchedChromium, file: string): Promise<() => Promise<void>> {
  const worker = await extensionServiceWorkerTarget(browser.cdp, EXTENSION_ID, 10_000);
  const { sessionId } = await browser.cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  await browser.cdp.send('Profiler.enable', {}, sessionId);
  await browser.cdp.send('Profiler.start', {}, sessionId);
  return async () => {
    const { profile } = await browser.cdp.send('Profiler.stop', {}, sessionId);
    writeFileSync(file, JSON.stringify(profile));
    await browser.cdp.send('Target.detachFromTarget', { sessionId });
  };
}

/** Which part of the path a process is, for the CPU split (Chromium's processes by their --type). */
function processName(cmdline: string, pid: number): string | undefined {
  if (pid === process.pid) return 'the client (this process)';
  if (cmdline.includes('clawd-browser.js serve')) return 'the relay (clawd-browser serve)';
  if (!/chrom/.test(cmdline.split(' ')[0])) return undefined;
  if (cmdline.includes('--extension-process')) return 'Chromium: the extension worker';
  if (cmdline.includes('--type=renderer')) return 'Chromium: the page';
  if (cmdline.includes('network.mojom.NetworkService')) return 'Chromium: network service';
  if (!cmdline.includes('--type=')) return 'Chromium: browser process';
  return 'Chromium: other';
}

/** A person's click on the toolbar button of a tab: the tab is brought to the front first. */
async function click(browser: LaunchedChromium, pageTargetId: string, tabTargetId: string): Promise<number> {
  await browser.cdp.send('Target.activateTarget', { targetId: pageTargetId });
  const clicked = now();
  await browser.cdp.send('Extensions.triggerAction', { id: EXTENSION_ID, targetId: tabTargetId });
  return clicked;
}

/**
 * Toolbar click → the tab listed at /json/list, after pairing (the first
 * click pairs through the native host and starts the link; not counted).
 */
async function measureSharing(browser: LaunchedChromium, url: string, listed: (targetId: string) => Promise<boolean>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i <= SHARES; i++) {
    const { pageTargetId, tabTargetId } = await openTab(browser.cdp, url);
    // Loaded, as a page a person shares is.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const clicked = await click(browser, pageTargetId, tabTargetId);
    await waitFor(() => listed(pageTargetId), { intervalMs: 2, timeoutMs: 15_000, message: 'the clicked tab was never listed' });
    if (i > 0) times.push(now() - clicked);
    await browser.cdp.send('Target.closeTarget', { targetId: pageTargetId });
  }
  return times;
}

/** chrome.debugger alone plus the two socket hops, each measured alone: what no relay over them can beat. */
export function relayMinimum(figures: RelayFigures): { p50: number; p99: number } {
  const { floor, transports } = figures;
  return { p50: floor.p50 + transports.webSocket.p50 + transports.clientHop.p50, p99: floor.p99 + transports.webSocket.p99 + transports.clientHop.p99 };
}

export function reportRelay(figures: RelayFigures): void {
  const d = figures.latency.direct;
  const r = figures.latency.relay;
  const { floor, transports } = figures;
  const rows: Array<[string, number, number, number | undefined]> = [
    [`Runtime.evaluate p50 (ms, n=${d.length})`, percentile(d, 50), percentile(r, 50), floor.p50],
    ['Runtime.evaluate p99 (ms)', percentile(d, 99), percentile(r, 99), floor.p99],
    [`pipelined (ops/s, ${ROUND_COUNTS.inFlight} in flight)`, median(figures.throughput.direct), median(figures.throughput.relay), floor.throughput],
    [
      `full-page screenshot ${(figures.screenshotBytes / 1e6).toFixed(1)} MB PNG (ms)`,
      median(figures.screenshot.direct),
      median(figures.screenshot.relay),
      floor.screenshot,
    ],
    ['connectOverCDP → first evaluate (ms)', median(figures.connect.direct), median(figures.connect.relay), undefined],
  ];
  console.log('\nthe extension relay vs direct CDP (same Chromium, same tab), and chrome.debugger alone inside the worker (the floor)\n');
  console.log(`${'metric'.padEnd(46)} ${'direct'.padStart(9)} ${'relay'.padStart(9)} ${'floor'.padStart(9)}  relay ÷ floor`);
  for (const [metric, direct, relay, under] of rows) {
    console.log(
      `${metric.padEnd(46)} ${direct.toFixed(3).padStart(9)} ${relay.toFixed(3).padStart(9)} ${(under?.toFixed(3) ?? '').padStart(9)}  ${under ? (relay / under).toFixed(2) : ''}`,
    );
  }
  console.log('\nwhere the CPU goes during a pipelined round (shares of one core; the machine has 2):');
  const names = [...new Set([...Object.keys(figures.pipelinedCpu.direct), ...Object.keys(figures.pipelinedCpu.relay)])].sort();
  for (const name of names)
    console.log(
      `${name.padEnd(46)} direct ${((figures.pipelinedCpu.direct[name] ?? 0) * 100).toFixed(0).padStart(3)}%   relay ${((figures.pipelinedCpu.relay[name] ?? 0) * 100).toFixed(0).padStart(3)}%`,
    );
  console.log(
    `toolbar click → listed at /json/list (native-host pairing): p50 ${percentile(figures.share, 50).toFixed(0)} ms, max ${figures.share.at(-1)!.toFixed(0)} ms (n=${figures.share.length})`,
  );
  console.log('\ntransports on their own, an echo of a CDP-sized message (worker timers are coarsened to 0.1 ms):');
  for (const [name, t] of [
    ['worker: WebSocket to a Node echo server', transports.webSocket],
    ['worker: native messaging to a Node echo host', transports.nativeMessaging],
    ['a Node client: WebSocket to the echo server', transports.clientHop],
  ] as const) {
    console.log(`${name.padEnd(46)} p50 ${t.p50.toFixed(3)} ms   p99 ${t.p99.toFixed(3)} ms   pipelined ${t.throughput.toFixed(0)} msg/s`);
  }
  const least = relayMinimum(figures);
  console.log(
    `the least any relay over these two hops could answer in: p50 ${least.p50.toFixed(3)} ms, p99 ${least.p99.toFixed(3)} ms (chrome.debugger alone + the worker's WebSocket + the client's); the relay: ${percentile(r, 50).toFixed(3)} / ${percentile(r, 99).toFixed(3)} ms`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportRelay(await measureRelay());
}
