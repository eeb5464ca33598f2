/**
 * Task sessions (issue 11): create (clone the template, start Chromium,
 * inject the granted cookies) → first page loaded, and teardown (browser,
 * port, dir), ten in a row, through the control API of a server in this
 * process (`serve`'s own startServer). Run alone with `npm run bench:sessions`;
 * `npm run bench` runs it too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../relay/src/cli/serve.js';
import { BrowserClient } from '../relay/src/client/browser-client.js';
import { createLogger } from '../relay/src/log.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';

const RUNS = Number(process.env.BENCH_SESSIONS ?? 10);

export interface SessionFigures {
  runs: number;
  /** With the warm spare (config sessionSpare, the default): sessions a second apart. */
  createMedian: number;
  createP95: number;
  /** Without it (sessionSpare: false): each session clones and launches. */
  coldMedian: number;
  coldP95: number;
  teardownMedian: number;
  teardownP95: number;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export async function measureSessions(): Promise<SessionFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-sessions-'));
  const { control } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, noSandbox: true, maxSessions: 2 }));
  const server = await startServer({ home, logger: createLogger('warn') });
  const fixtures = await startFixtureServer();
  try {
    const api = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token });
    // A vault entry and a grant, so each session really injects.
    const url = fixtures.url('index.html');
    const refresh = await api.vaultRefresh({ tenant: 'bench', domains: ['127.0.0.1'] });
    const person = api.withProfile(refresh.profile);
    await person.openTab(url);
    await person.evaluate("() => { document.cookie = 'session=bench-value; path=/; max-age=3600'; }");
    await api.vaultRefreshDone(refresh.id);
    const { token } = await api.issueGrant({ tenant: 'bench', domains: ['127.0.0.1'], ttl: 3600 });

    const series = async (spare: boolean) => {
      writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, noSandbox: true, maxSessions: 2, sessionSpare: spare }));
      const create: number[] = [];
      const teardown: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        // Sessions a second apart, as tasks come (the spare, when on, is ready by then).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const started = performance.now();
        const session = await api.openSession({ credential_mode: 'operator', tenant: 'bench', grant: token });
        await api.withProfile(session.profile).openTab(url);
        create.push(performance.now() - started);
        if (session.injectedCookies !== 1) throw new Error(`expected one injected cookie, got ${session.injectedCookies}`);
        const closing = performance.now();
        await api.closeSession(session.id);
        teardown.push(performance.now() - closing);
      }
      return { create, teardown };
    };
    const cold = await series(false);
    const warm = await series(true);
    return {
      runs: RUNS,
      createMedian: percentile(warm.create, 50),
      createP95: percentile(warm.create, 95),
      coldMedian: percentile(cold.create, 50),
      coldP95: percentile(cold.create, 95),
      teardownMedian: percentile([...cold.teardown, ...warm.teardown], 50),
      teardownP95: percentile([...cold.teardown, ...warm.teardown], 95),
    };
  } finally {
    await server.close();
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export function reportSessions(figures: SessionFigures): void {
  console.log(`\ntask sessions: operator session (clone + start + inject) → first page loaded, and teardown, ${figures.runs} in a row`);
  console.log(`${'create → first page (spare)'.padEnd(30)} median ${figures.createMedian.toFixed(0).padStart(5)} ms   p95 ${figures.createP95.toFixed(0).padStart(5)} ms   target median < 500${figures.createMedian < 500 ? ' ✓' : ' ✗'}`);
  console.log(`${'create → first page (cold)'.padEnd(30)} median ${figures.coldMedian.toFixed(0).padStart(5)} ms   p95 ${figures.coldP95.toFixed(0).padStart(5)} ms`);
  console.log(`${'teardown'.padEnd(30)} median ${figures.teardownMedian.toFixed(0).padStart(5)} ms   p95 ${figures.teardownP95.toFixed(0).padStart(5)} ms`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportSessions(await measureSessions());
}
