/**
 * `npm run bench:endpoint`: what the guarded endpoint costs (issue 19). A
 * managed browser's CDP now goes through the relay's `/cdp?profile=` and a
 * pipe (bridge/browser-mux.ts) instead of the browser's own open port.
 * Measured from another process, as clients use it:
 * - the `clawd` profile through the endpoint, against the same Chromium
 *   binary launched with `--remote-debugging-port` and reached directly (the
 *   old door, and the floor): `Runtime.evaluate` round trips back to back,
 *   100 in flight, a full-page screenshot, `connectOverCDP` → first evaluate;
 * - task sessions back to back over HTTP: `POST /sessions`, the first
 *   `POST /tabs/open` on it, `DELETE`. `CLAWD_ROOT=<checkout>` runs the same
 *   against another build (the figures before the change).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumPath, HEADLESS_TEST_FLAGS } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { startServe } from './serve-process.js';
import { freePortPair } from '../tests/harness/ports.js';
import { RawCdp } from './raw-cdp.js';

const ROOT = process.env.CLAWD_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const PIPELINED = Number(process.env.BENCH_PIPELINED ?? 5000);
const IN_FLIGHT = 100;
const SCREENSHOTS = Number(process.env.BENCH_SCREENSHOTS ?? 5);
const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 7);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10);

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const percentile = (values: number[], p: number) => sorted(values)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const now = () => performance.now();

interface PathFigures {
  p50: number;
  p99: number;
  opsPerSecond: number;
  screenshotMs: number;
  connectMs: number;
}

/** The same measurements on one CDP URL (with headers when it needs them) and one page of it. */
async function measurePath(url: string, headers: Record<string, string>, pageUrl: string): Promise<PathFigures> {
  // An http URL (the old build's port) is Chrome's discovery: its /json/version names the socket.
  const socketUrl = url.startsWith('http')
    ? ((await (await fetch(`${url}/json/version`)).json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl
    : url;
  const cdp = await RawCdp.connect(socketUrl, headers);
  try {
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string; url: string }> }>('Target.getTargets');
    const target = targetInfos.find((info) => info.type === 'page' && info.url === pageUrl)!;
    const session = await cdp.attach(target.targetId);
    const rounds: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const start = now();
      await cdp.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, session);
      rounds.push(now() - start);
    }
    const pipelinedStart = now();
    let sent = 0;
    const worker = async () => {
      while (sent < PIPELINED) {
        sent++;
        await cdp.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, session);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const opsPerSecond = PIPELINED / ((now() - pipelinedStart) / 1000);
    const shots: number[] = [];
    for (let i = 0; i < SCREENSHOTS; i++) {
      const start = now();
      await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, session);
      shots.push(now() - start);
    }
    const connects: number[] = [];
    for (let i = 0; i < CONNECTS; i++) {
      const start = now();
      const browser = await chromium.connectOverCDP(url, { headers });
      const page = browser
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url() === pageUrl)!;
      await page.evaluate('1+1');
      connects.push(now() - start);
      await browser.close();
    }
    return { p50: percentile(rounds, 50), p99: percentile(rounds, 99), opsPerSecond, screenshotMs: percentile(shots, 50), connectMs: percentile(connects, 50) };
  } finally {
    cdp.close();
  }
}

export interface EndpointFigures {
  direct: PathFigures;
  endpoint: PathFigures;
  /** ms, from another process over HTTP: create, first page, teardown, and the three together. */
  sessions: { create: number; firstPage: number; teardown: number; total: number; totalP95: number };
}

export async function measureEndpoint(): Promise<EndpointFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-endpoint-'));
  const ports = await freePortPair();
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      controlUrl: `http://127.0.0.1:${ports.control}`,
      headless: true,
      noSandbox: true,
      urlPolicy: { mode: 'public-only', private: ['127.0.0.1'] },
    }),
  );
  const server = await startServe(home, ports.control, ROOT);
  const fixtures = await startFixtureServer();
  const direct = spawn(chromiumPath(), [...HEADLESS_TEST_FLAGS, '--remote-debugging-port=0', `--user-data-dir=${join(home, 'direct')}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const directUrl = await new Promise<string>((resolve) => {
      let text = '';
      direct.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match) resolve(match[1]);
      });
    });
    const token = server.token;
    const http = async (method: string, path: string, body?: object) => {
      const response = await fetch(`http://127.0.0.1:${ports.control}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const pageUrl = fixtures.url('big.html');
    await http('POST', '/tabs/open?profile=clawd', { url: pageUrl });
    const status = (await http('GET', '/?profile=clawd')) as { cdpUrl?: string; cdpPort?: number };
    // The build before the change reports the browser's own port.
    const endpointUrl = status.cdpUrl ?? `http://127.0.0.1:${status.cdpPort}`;
    const directBrowser = await chromium.connectOverCDP(directUrl);
    await directBrowser.contexts()[0].pages()[0].goto(pageUrl);
    await directBrowser.close();

    const directFigures = await measurePath(directUrl, {}, pageUrl);
    const endpointFigures = await measurePath(endpointUrl, status.cdpUrl ? { authorization: `Bearer ${token}` } : {}, pageUrl);

    const create: number[] = [];
    const firstPage: number[] = [];
    const teardown: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const t0 = now();
      const session = (await http('POST', '/sessions', { credential_mode: 'clean' })) as { id: string; profile: string };
      const t1 = now();
      await http('POST', `/tabs/open?profile=${session.profile}`, { url: fixtures.url('index.html') });
      const t2 = now();
      await http('DELETE', `/sessions/${session.id}`);
      const t3 = now();
      create.push(t1 - t0);
      firstPage.push(t2 - t1);
      teardown.push(t3 - t2);
      total.push(t2 - t0);
    }
    return {
      direct: directFigures,
      endpoint: endpointFigures,
      sessions: {
        create: percentile(create, 50),
        firstPage: percentile(firstPage, 50),
        teardown: percentile(teardown, 50),
        total: percentile(total, 50),
        totalP95: percentile(total, 95),
      },
    };
  } finally {
    direct.kill('SIGKILL');
    await server.stop();
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export function reportEndpoint(figures: EndpointFigures): void {
  const { direct, endpoint, sessions } = figures;
  const row = (name: string, a: number, b: number, digits: number, unit: string) =>
    console.log(`| ${name} | ${a.toFixed(digits)} ${unit} | ${b.toFixed(digits)} ${unit} | ${(b / a).toFixed(2)} |`);
  console.log('| metric | direct port (old door) | /cdp?profile=clawd | ratio |');
  console.log('| --- | ---: | ---: | ---: |');
  row(`Runtime.evaluate p50, ${SEQUENTIAL} sequential`, direct.p50, endpoint.p50, 3, 'ms');
  row('Runtime.evaluate p99', direct.p99, endpoint.p99, 3, 'ms');
  row(`pipelined, ${IN_FLIGHT} in flight`, direct.opsPerSecond, endpoint.opsPerSecond, 0, 'ops/s');
  row('full-page PNG screenshot', direct.screenshotMs, endpoint.screenshotMs, 1, 'ms');
  row('connectOverCDP → first evaluate', direct.connectMs, endpoint.connectMs, 1, 'ms');
  console.log(
    `\nTask sessions, ${SESSIONS} back to back over HTTP (median ms): create ${sessions.create.toFixed(0)}, first page ${sessions.firstPage.toFixed(0)}, ` +
      `create → first page ${sessions.total.toFixed(0)} (p95 ${sessions.totalP95.toFixed(0)}), teardown ${sessions.teardown.toFixed(0)}`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportEndpoint(await measureEndpoint());
}
