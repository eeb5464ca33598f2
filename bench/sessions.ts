/**
 * Task sessions as an agent platform meets them (issue 27): `clawd-browser
 * serve` as its own process, driven over HTTP from this one. Operator
 * sessions with a grant, so each one really injects a vault cookie.
 *   - back to back: BENCH_SESSIONS sessions, each POST /sessions → POST
 *     /tabs/open of a local page (loaded) → DELETE, no pause between; the
 *     spares full at the start (one warm-up session first, then GET
 *     /sessions until they are ready);
 *   - a burst: BENCH_BURST sessions created at once, each to its first page;
 *   - for sessionSpares 0 (every session launches), 1 (the default) and
 *     BENCH_SPARES (4: for bursts);
 *   - memory: the PSS of one ready spare (its Chromium processes);
 *   - jailed (the default as root on Linux) or not (BENCH_ISOLATION=process).
 * `npm run bench:sessions`; `npm run bench` runs it too.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserClient } from '../relay/src/client/browser-client.js';
import { waitFor } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { pssKb } from './process-stats.js';
import { startServe } from './serve-process.js';

const RUNS = Number(process.env.BENCH_SESSIONS ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 4);
const MANY_SPARES = Number(process.env.BENCH_SPARES ?? 4);
/** BENCH_ISOLATION=process measures sessions without jails (the default is a jail where the host can). */
const ISOLATION = process.env.BENCH_ISOLATION;

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export interface SpareSeries {
  spares: number;
  /** Create → first page loaded, back to back. */
  p50: number;
  p95: number;
  /** Each session of the burst, create → first page loaded. */
  burst: number[];
  teardownP50: number;
}

export interface SessionFigures {
  runs: number;
  burstSize: number;
  series: SpareSeries[];
  /** PSS of one ready spare (MB): its browser, and its jail's network bridge when jailed. */
  spareMb: number;
  /** Of which the jail's bridge (MB; 0 unjailed). */
  bridgeMb: number;
}

export async function measureSessions(): Promise<SessionFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-sessions-'));
  const { control } = await freePortPair();
  const configure = (spares: number) =>
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        controlUrl: `http://127.0.0.1:${control}`,
        headless: true,
        noSandbox: true,
        maxSessions: 8,
        sessionSpares: spares,
        urlPolicy: { mode: 'public-only', private: ['127.0.0.1'] },
        ...(ISOLATION ? { sessionIsolation: ISOLATION } : {}),
      }),
    );
  configure(1);
  const server = await startServe(home, control);
  const fixtures = await startFixtureServer();
  try {
    const api = new BrowserClient({ baseUrl: `http://127.0.0.1:${control}`, token: server.token });
    const url = fixtures.url('index.html');
    // A vault entry and a grant, so that each session injects a cookie as an operator's would.
    const refresh = await api.vaultRefresh({ tenant: 'bench', domains: ['127.0.0.1'] });
    const person = api.withProfile(refresh.profile);
    await person.openTab(url);
    await person.evaluate("() => { document.cookie = 'session=bench-value; path=/; max-age=3600'; }");
    await api.vaultRefreshDone(refresh.id);
    const { token } = await api.issueGrant({ tenant: 'bench', domains: ['127.0.0.1'], ttl: 3600 });

    /** One task's start: the session, then its first page loaded. */
    const start = async () => {
      const started = performance.now();
      const session = await api.openSession({ credential_mode: 'operator', tenant: 'bench', grant: token });
      await api.withProfile(session.profile).openTab(url);
      const elapsed = performance.now() - started;
      if (session.injectedCookies !== 1) throw new Error(`expected one injected cookie, got ${session.injectedCookies}`);
      return { session, elapsed };
    };
    const sparesReady = async (wanted: number) =>
      waitFor(
        async () => {
          const { spares } = await api.sessions();
          return spares.ready >= wanted && spares.starting === 0;
        },
        { timeoutMs: 60_000, message: `${wanted} spares never got ready` },
      );

    const series = async (spares: number): Promise<SpareSeries> => {
      configure(spares);
      // The first session after a change fills the pool; it is not counted.
      await api.closeSession((await start()).session.id);
      await sparesReady(spares);
      const create: number[] = [];
      const teardown: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const { session, elapsed } = await start();
        create.push(elapsed);
        const closing = performance.now();
        await api.closeSession(session.id);
        teardown.push(performance.now() - closing);
      }
      await sparesReady(spares);
      const burst = await Promise.all(Array.from({ length: BURST }, () => start()));
      for (const { session } of burst) await api.closeSession(session.id);
      return { spares, p50: percentile(create, 50), p95: percentile(create, 95), burst: burst.map((b) => b.elapsed), teardownP50: percentile(teardown, 50) };
    };

    const results = [await series(0), await series(1), await series(MANY_SPARES)];
    // With no session open, every session browser is a spare.
    await sparesReady(MANY_SPARES);
    // Each spare's browser (its data dir, which a jail keeps outside the home) and, jailed, its network bridge.
    const spareIds = readdirSync(join(home, 'sessions')).filter((name) => name !== 'template');
    const dataDirs = spareIds.map(
      (id) => `--user-data-dir=${(JSON.parse(readFileSync(join(home, 'sessions', id, 'session.json'), 'utf8')) as { userDataDir: string }).userDataDir}`,
    );
    const bridges = spareIds.map((id) => `clawd-egress-${id}.sock`);
    const spareMb = pssKb((process) => [...dataDirs, ...bridges].some((mark) => process.cmdline.includes(mark))) / 1024 / MANY_SPARES;
    const bridgeMb = pssKb((process) => bridges.some((mark) => process.cmdline.includes(mark))) / 1024 / MANY_SPARES;
    return { runs: RUNS, burstSize: BURST, series: results, spareMb, bridgeMb };
  } finally {
    await server.stop();
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export function reportSessions(figures: SessionFigures): void {
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
  console.log(
    `\ntask sessions from another process (operator, a vault cookie injected): create → first page loaded, ${figures.runs} back to back, then ${figures.burstSize} at once`,
  );
  for (const row of figures.series) {
    const name = row.spares === 0 ? 'no spare (cold)' : `sessionSpares ${row.spares}`;
    console.log(`${name.padEnd(20)} p50 ${ms(row.p50)}   p95 ${ms(row.p95)}   burst max ${ms(Math.max(...row.burst))}   teardown p50 ${ms(row.teardownP50)}`);
  }
  console.log(
    `one ready spare costs ${figures.spareMb.toFixed(0)} MB (PSS of its Chromium, one blank page, and its jail's bridge: ${figures.bridgeMb.toFixed(0)} MB)`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportSessions(await measureSessions());
}
