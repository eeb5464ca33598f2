/**
 * Task sessions on a Selenium Grid 4 (issue 21) against the same sessions on
 * this machine, with `clawd-browser serve` as its own process and a real
 * Grid (hub and nodes as Java processes, all on loopback), measured through
 * the HTTP client as agents use it:
 *   - create → first page loaded, back to back: Grid vs local (with the warm
 *     spare, the default, and without);
 *   - N tasks (open a session, three navigations each with a snapshot,
 *     close) run C at a time: on one node, then on two, and locally (tasks
 *     per minute);
 *   - memory per session on a node: the PSS of the node's chromedriver and
 *     Chromium processes with k sessions open, per session, and the node's
 *     own Java process.
 * `npm run bench:grid`; BENCH_GRID_RUNS, BENCH_GRID_TASKS, BENCH_GRID_CONCURRENCY,
 * BENCH_GRID_SLOTS (sessions per node).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionInfo } from '../relay/src/api/session-responses.js';
import { BrowserClient } from '../relay/src/client/browser-client.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { GRID_CHROMIUM_CAPABILITIES, startGrid } from '../tests/harness/selenium-grid.js';
import { pssKb } from './process-stats.js';
import { startServe } from './serve-process.js';

const RUNS = Number(process.env.BENCH_GRID_RUNS ?? 10);
const TASKS = Number(process.env.BENCH_GRID_TASKS ?? 12);
const CONCURRENCY = Number(process.env.BENCH_GRID_CONCURRENCY ?? 2);
/**
 * Sessions a node runs at once. One, so that with two tasks at a time one
 * node queues the second and two nodes run both: what adding a node buys,
 * on a machine whose two cores two sessions already keep busy.
 */
const SLOTS_PER_NODE = Number(process.env.BENCH_GRID_SLOTS ?? 1);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export interface GridFigures {
  runs: number;
  create: Record<'grid' | 'local' | 'localCold', { p50: number; p95: number }>;
  tasks: number;
  concurrency: number;
  /** Tasks per minute and the median task time. */
  throughput: Record<'oneNode' | 'twoNodes' | 'local', { perMinute: number; taskP50: number }>;
  memory: { sessions: number; perSessionMb: number; nodeJavaMb: number };
}

export async function measureGrid(): Promise<GridFigures> {
  const grid = await startGrid({ nodes: 1, maxSessions: SLOTS_PER_NODE, sessionTimeout: 300, requestTimeout: 300 });
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-grid-'));
  const ports = await freePortPair();
  const config = (spares: number) =>
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        controlUrl: `http://127.0.0.1:${ports.control}`,
        headless: true,
        noSandbox: true,
        maxSessions: 16,
        sessionSpares: spares,
        urlPolicy: { mode: 'any' },
        grid: { url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, requestTimeoutSeconds: 300 },
      }),
    );
  config(1);
  const server = await startServe(home, ports.control);
  const fixtures = await startFixtureServer();
  try {
    const api = new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: server.token });
    const page = fixtures.url('index.html');

    const createSeries = async (place: 'grid' | 'local') => {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        // A second apart, as tasks come (the local spare, when on, is ready by then).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const started = performance.now();
        const session = await api.openSession({ credential_mode: 'clean', place });
        await api.withProfile(session.profile).openTab(page);
        times.push(performance.now() - started);
        await api.closeSession(session.id);
      }
      return { p50: percentile(times, 50), p95: percentile(times, 95) };
    };

    const task = async (place: 'grid' | 'local') => {
      const started = performance.now();
      const session = await api.openSession({ credential_mode: 'clean', place });
      const tab = api.withProfile(session.profile);
      try {
        await tab.openTab(page);
        for (const query of ['a', 'b', 'c']) {
          await tab.navigate(`${page}?${query}`);
          await tab.snapshot();
        }
      } finally {
        await api.closeSession(session.id);
      }
      return performance.now() - started;
    };
    const throughput = async (place: 'grid' | 'local') => {
      const times: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < TASKS) {
            next++;
            times.push(await task(place));
          }
        }),
      );
      return { perMinute: (TASKS / (performance.now() - started)) * 60_000, taskP50: percentile(times, 50) };
    };

    const grid1 = await createSeries('grid');
    const local = await createSeries('local');
    config(0);
    const localCold = await createSeries('local');
    config(1);
    const oneNode = await throughput('grid');

    // Memory: the one node full of sessions, each with the page open.
    const held: SessionInfo[] = [];
    for (let i = 0; i < SLOTS_PER_NODE; i++) {
      const session = await api.openSession({ credential_mode: 'clean', place: 'grid' });
      await api.withProfile(session.profile).openTab(page);
      held.push(session);
    }
    const pgid = grid.nodes[0].process.pid!;
    const isJava = (cmdline: string) => cmdline.split(' ')[0].endsWith('java');
    const browsersKb = pssKb((process) => process.pgid === pgid && !isJava(process.cmdline));
    const javaKb = pssKb((process) => process.pgid === pgid && isJava(process.cmdline));
    for (const session of held) await api.closeSession(session.id);

    await grid.addNode();
    const twoNodes = await throughput('grid');
    const localThroughput = await throughput('local');
    return {
      runs: RUNS,
      create: { grid: grid1, local, localCold },
      tasks: TASKS,
      concurrency: CONCURRENCY,
      throughput: { oneNode, twoNodes, local: localThroughput },
      memory: { sessions: SLOTS_PER_NODE, perSessionMb: browsersKb / 1024 / SLOTS_PER_NODE, nodeJavaMb: javaKb / 1024 },
    };
  } finally {
    await server.stop();
    await fixtures.close();
    await grid.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export function reportGrid(figures: GridFigures): void {
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
  console.log(`\ntask sessions on a Selenium Grid: create → first page loaded, ${figures.runs} back to back (clean sessions)`);
  for (const [name, row] of [
    ['Grid (one node)', figures.create.grid],
    ['local, warm spare', figures.create.local],
    ['local, cold', figures.create.localCold],
  ] as const) {
    console.log(`${name.padEnd(24)} p50 ${ms(row.p50)}   p95 ${ms(row.p95)}`);
  }
  console.log(`\n${figures.tasks} tasks (session, 3 navigations + snapshots, close), ${figures.concurrency} at a time; ${SLOTS_PER_NODE} slots per node`);
  for (const [name, row] of [
    ['Grid, one node', figures.throughput.oneNode],
    ['Grid, two nodes', figures.throughput.twoNodes],
    ['local', figures.throughput.local],
  ] as const) {
    console.log(`${name.padEnd(24)} ${row.perMinute.toFixed(1).padStart(6)} tasks/min   task p50 ${ms(row.taskP50)}`);
  }
  console.log(
    `\nmemory on a node with ${figures.memory.sessions} session(s) open (PSS): ${figures.memory.perSessionMb.toFixed(0)} MB per session (chromedriver + Chromium), node's Java ${figures.memory.nodeJavaMb.toFixed(0)} MB`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportGrid(await measureGrid());
}
