/**
 * Agent-runtime figures (issue 10), on the managed and the extension profile:
 * - cancel latency: abort → the server has stopped (the action log says
 *   "aborted"), and → the browser is idle (a wait's probes stop; an aborted
 *   navigation's request is dropped by the browser);
 * - the live view: frames per second of an animating page, and end-to-end
 *   frame latency (capture in Chromium → bytes at the viewer).
 * The server runs in this process (tests/harness/control-env.ts: `serve`'s own
 * startServer, a real user Chromium with the real extension and a shared
 * tab). Run alone with `npm run bench:runtime`; `npm run bench` runs it too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { probeCount } from '../relay/src/snapshot/snapshot-engine.js';
import { startControlEnv } from '../tests/harness/control-env.js';

const ROUNDS = Number(process.env.BENCH_CANCEL_ROUNDS ?? 5);
const CAST_SECONDS = Number(process.env.BENCH_CAST_SECONDS ?? 5);

export interface RuntimeFigures {
  profile: string;
  waitServerMs: number;
  waitIdleMs: number;
  navigateServerMs: number;
  navigateIdleMs: number;
  fps: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  /** CPU (share of one core) of this process and every Chromium while a viewer watches, above the same page unwatched. */
  viewerCpu: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(predicate: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  while (!(await predicate())) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out: ${what}`);
    await sleep(2);
  }
  return performance.now();
}

export async function measureRuntime(): Promise<RuntimeFigures[]> {
  const env = await startControlEnv();
  const open = new Set<IncomingMessage>();
  const site = createServer((request, response) => {
    // Never answers: the navigation stays provisional until it is stopped.
    open.add(request);
    request.on('close', () => open.delete(request));
    void response;
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const never = `http://127.0.0.1:${(site.address() as AddressInfo).port}/never`;
  const figures: RuntimeFigures[] = [];
  try {
    for (const profile of ['clawd', 'extension']) {
      const client = env.client(profile);
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(env.fixtures.url('runtime.html'), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      const serverSaw = async (kind: string, since: number) =>
        (await client.actions({ limit: 5 })).actions.some((action) => action.kind === kind && action.outcome === 'aborted' && Date.parse(action.time) >= since);

      const wait = { server: [] as number[], idle: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const abort = new AbortController();
        const pending = client
          .withSignal(abort.signal)
          .wait({ text: 'never there', targetId })
          .catch(() => {});
        await until(async () => (await probeCount(page.mainFrame())) > 2, 'the wait probes');
        const since = Date.now() - 1;
        const aborted = performance.now();
        abort.abort();
        await pending;
        wait.server.push((await until(() => serverSaw('wait', since), 'the server logs the aborted wait')) - aborted);
        // Idle: the probe count no longer moves (checked over two poll periods).
        let last = await probeCount(page.mainFrame());
        let lastChange = performance.now();
        while (performance.now() - lastChange < 250) {
          await sleep(5);
          const now = await probeCount(page.mainFrame());
          if (now !== last) {
            last = now;
            lastChange = performance.now();
          }
        }
        wait.idle.push(Math.max(0, lastChange - aborted));
      }

      const navigate = { server: [] as number[], idle: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        await until(() => open.size === 0, 'no request open before the round');
        const abort = new AbortController();
        const pending = client
          .withSignal(abort.signal)
          .navigate(never, targetId)
          .catch(() => {});
        await until(() => open.size > 0, 'the never-ending request');
        const since = Date.now() - 1;
        const aborted = performance.now();
        abort.abort();
        await pending;
        const [server, idle] = await Promise.all([
          until(() => serverSaw('navigate', since), 'the server logs the aborted navigation'),
          until(() => open.size === 0, `the browser drops the request (${profile}, round ${round})`, 40_000),
        ]);
        navigate.server.push(server - aborted);
        navigate.idle.push(idle - aborted);
        // Back to a page that loads (the stopped navigation may still be settling: try again once).
        await client.navigate(env.fixtures.url('runtime.html'), targetId).catch(() => client.navigate(env.fixtures.url('runtime.html'), targetId));
      }

      // The live view of an animating page; first the same page unwatched, for what a viewer costs.
      await client.navigate(env.fixtures.url('animation.html'), targetId);
      const idleCpuStart = cpuSeconds();
      const idleStart = performance.now();
      await new Promise((resolve) => setTimeout(resolve, CAST_SECONDS * 1000));
      const idleCpu = (cpuSeconds() - idleCpuStart) / ((performance.now() - idleStart) / 1000);
      const castCpuStart = cpuSeconds();
      const controller = new AbortController();
      const response = await env.raw(`/screencast?profile=${profile}&targetId=${targetId}`, { signal: controller.signal });
      const reader = response.body!.getReader();
      const latencies: number[] = [];
      let frames = 0;
      let buffered = Buffer.alloc(0);
      const started = performance.now();
      while (performance.now() - started < CAST_SECONDS * 1000) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered = Buffer.concat([buffered, Buffer.from(value)]);
        for (;;) {
          const header = buffered.indexOf('\r\n\r\n');
          if (header < 0) break;
          const head = buffered.subarray(0, header).toString();
          const length = Number(/Content-Length: (\d+)/i.exec(head)?.[1]);
          if (buffered.length < header + 4 + length + 2) break;
          frames++;
          const captured = Number(/X-Captured-At: (\d+)/i.exec(head)?.[1]);
          if (captured) latencies.push(Date.now() - captured);
          buffered = buffered.subarray(header + 4 + length + 2);
        }
      }
      controller.abort();
      const seconds = (performance.now() - started) / 1000;
      const castCpu = (cpuSeconds() - castCpuStart) / seconds;
      figures.push({
        profile,
        waitServerMs: median(wait.server),
        waitIdleMs: median(wait.idle),
        navigateServerMs: median(navigate.server),
        navigateIdleMs: median(navigate.idle),
        fps: frames / seconds,
        latencyP50Ms: percentile(latencies, 50),
        latencyP95Ms: percentile(latencies, 95),
        viewerCpu: castCpu - idleCpu,
      });
    }
  } finally {
    site.closeAllConnections();
    site.close();
    await env.close();
  }
  return figures;
}

/** CPU seconds used so far by this process and every Chromium process on the machine (/proc). */
export function cpuSeconds(): number {
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!/chrom/i.test(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      // The process ended while being read.
    }
  }
  const own = process.cpuUsage();
  return total + (own.user + own.system) / 1e6;
}

export function reportRuntime(figures: RuntimeFigures[]): void {
  console.log(`\nagent runtime: cancel latency (median of ${ROUNDS}, ms from abort) and the live view (${CAST_SECONDS} s of an animating page)`);
  console.log(
    `${'profile'.padEnd(10)} ${'wait→server'.padStart(12)} ${'wait→idle'.padStart(10)} ${'nav→server'.padStart(11)} ${'nav→idle'.padStart(9)} ${'fps'.padStart(6)} ${'latency p50'.padStart(12)} ${'p95'.padStart(6)} ${'viewer CPU'.padStart(11)}`,
  );
  for (const f of figures) {
    console.log(
      `${f.profile.padEnd(10)} ${f.waitServerMs.toFixed(1).padStart(12)} ${f.waitIdleMs.toFixed(1).padStart(10)} ${f.navigateServerMs.toFixed(1).padStart(11)} ${f.navigateIdleMs.toFixed(1).padStart(9)} ${f.fps.toFixed(1).padStart(6)} ${f.latencyP50Ms.toFixed(0).padStart(12)} ${f.latencyP95Ms.toFixed(0).padStart(6)} ${`${(f.viewerCpu * 100).toFixed(0)}%`.padStart(11)}`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportRuntime(await measureRuntime());
}
