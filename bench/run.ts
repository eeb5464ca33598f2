/**
 * `npm run bench`: every figure someone waits on, measured from outside the
 * server the way it is used, each part printing its details, then one table
 * of every figure beside its target (bench/results/latest.json keeps it).
 * Parts, also runnable alone: relay.ts (the extension relay, sharing, the
 * floor and the worker's transports), managed.ts, mcp-tokens.ts,
 * third-party-snapshots.ts, page-content.ts, runtime.ts (cancel, live view), sessions.ts,
 * flood.ts. The Grid's figures need Java and a Grid: `npm run bench:grid`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { median, percentile } from './cdp-rounds.js';
import { measureFlood, reportFlood } from './flood.js';
import { measureManagedStart } from './managed.js';
import { MCP_TASKS, measureMcpTokens, reportMcpTokens } from './mcp-tokens.js';
import { measureRelay, relayMinimum, reportRelay } from './relay.js';
import { measureRuntime, reportRuntime } from './runtime.js';
import { measureSessions, reportSessions } from './sessions.js';
import { measureThirdPartySnapshots, reportThirdPartySnapshots } from './third-party-snapshots.js';
import { measurePageContent, reportPageContent } from './page-content.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One line of the table: a figure, what it is held to, and whether it holds. */
interface Row {
  figure: string;
  value: string;
  target: string;
  met?: boolean;
}

const ms = (value: number) => `${value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
const times = (value: number) => `${value.toFixed(2)}×`;

async function main(): Promise<void> {
  const rows: Row[] = [];
  const at = (value: number, limit: number, lowerIsBetter = true) => (lowerIsBetter ? value <= limit : value >= limit);

  const relay = await measureRelay();
  reportRelay(relay);
  const relayP50 = percentile(relay.latency.relay, 50);
  const relayP99 = percentile(relay.latency.relay, 99);
  const relayOps = median(relay.throughput.relay);
  const shareP50 = percentile(relay.share, 50);
  const least = relayMinimum(relay);
  rows.push(
    { figure: 'toolbar click → tab at /json/list, p50', value: ms(shareP50), target: '≤ 300 ms', met: at(shareP50, 300) },
    {
      figure: `relay Runtime.evaluate p50 ÷ chrome.debugger alone (${ms(relayP50)} ÷ ${ms(relay.floor.p50)})`,
      value: times(relayP50 / relay.floor.p50),
      target: '≤ 1.5×',
      met: at(relayP50 / relay.floor.p50, 1.5),
    },
    {
      figure: `relay p99 ÷ chrome.debugger alone (${ms(relayP99)} ÷ ${ms(relay.floor.p99)})`,
      value: times(relayP99 / relay.floor.p99),
      target: '≤ 2×',
      met: at(relayP99 / relay.floor.p99, 2),
    },
    { figure: `relay p50 ÷ the least two socket hops allow (${ms(least.p50)}: floor + both hops alone)`, value: times(relayP50 / least.p50), target: 'stated' },
    {
      figure: `relay pipelined ÷ chrome.debugger alone (${relayOps.toFixed(0)} ÷ ${relay.floor.throughput.toFixed(0)} ops/s)`,
      value: times(relayOps / relay.floor.throughput),
      target: '≥ 0.9×',
      met: at(relayOps / relay.floor.throughput, 0.9, false),
    },
    {
      figure: 'relay 5 MB screenshot ÷ direct',
      value: times(median(relay.screenshot.relay) / median(relay.screenshot.direct)),
      target: '≤ 1.15×',
      met: at(median(relay.screenshot.relay) / median(relay.screenshot.direct), 1.15),
    },
    {
      figure: 'relay connectOverCDP → first evaluate ÷ direct',
      value: times(median(relay.connect.relay) / median(relay.connect.direct)),
      target: '≤ 1.5×',
      met: at(median(relay.connect.relay) / median(relay.connect.direct), 1.5),
    },
  );

  const fixtures = await startFixtureServer();
  const managed = await measureManagedStart(fixtures.url('many.html')).finally(() => fixtures.close());
  const start = median(managed.serveStart) / median(managed.plainLaunch);
  const snapshot = median(managed.snapshot.ours) / median(managed.snapshot.playwright);
  console.log(
    `\nmanaged profile: POST /start → GET /tabs ${ms(median(managed.serveStart))} vs chromium.launch() ${ms(median(managed.plainLaunch))}; snapshot of many.html ${ms(median(managed.snapshot.ours))} vs Playwright ariaSnapshot ${ms(median(managed.snapshot.playwright))} (${managed.snapshot.snapshotChars} vs ${managed.snapshot.ariaChars} chars; the page's HTML ${managed.snapshot.htmlChars})`,
  );
  rows.push(
    { figure: 'managed start ÷ plain chromium.launch()', value: times(start), target: '≤ 1.2×', met: at(start, 1.2) },
    { figure: 'snapshot of a 5,000-element page ÷ Playwright ariaSnapshot', value: times(snapshot), target: '≤ 1.0×', met: at(snapshot, 1) },
  );

  const mcp = await measureMcpTokens();
  reportMcpTokens(mcp);
  for (const [task, { target }] of Object.entries(MCP_TASKS)) {
    const [ours, theirs] = mcp.filter((figure) => figure.task === task);
    if (ours && theirs)
      rows.push({
        figure: `MCP tokens, ${task} task ÷ Playwright MCP`,
        value: times(ours.total / theirs.total),
        target: `≤ ${target}×`,
        met: at(ours.total / theirs.total, target),
      });
  }
  reportThirdPartySnapshots(await measureThirdPartySnapshots());
  const pageContent = await measurePageContent();
  reportPageContent(pageContent);
  rows.push({
    figure: 'outlines of pages nobody here wrote that grew with the hidden-text rules',
    value: String(pageContent.filter((f) => f.outline.tokens > f.outline.withHidden).length),
    target: '0',
    met: pageContent.every((f) => f.outline.tokens <= f.outline.withHidden),
  });

  const runtime = await measureRuntime();
  reportRuntime(runtime);
  for (const profile of runtime) {
    const floor = profile.profile === 'extension' ? 15 : 25;
    rows.push(
      { figure: `live view, ${profile.profile} profile`, value: `${profile.fps.toFixed(1)} fps`, target: `≥ ${floor} fps`, met: at(profile.fps, floor, false) },
      { figure: `live view frame latency p95, ${profile.profile}`, value: ms(profile.latencyP95Ms), target: '≤ 100 ms', met: at(profile.latencyP95Ms, 100) },
      { figure: `a viewer's CPU, ${profile.profile} (share of one core)`, value: `${(profile.viewerCpu * 100).toFixed(0)}%`, target: 'stated' },
    );
  }

  const sessions = await measureSessions();
  reportSessions(sessions);
  for (const series of sessions.series) {
    const name = series.spares === 0 ? 'no spare' : `sessionSpares ${series.spares}`;
    const held = series.spares >= 4;
    rows.push(
      {
        figure: `session → first page, ${sessions.runs} back to back, p50 (${name})`,
        value: ms(series.p50),
        target: held ? '< 300 ms' : '',
        met: held ? series.p50 < 300 : undefined,
      },
      {
        figure: `session → first page, back to back, p95 (${name})`,
        value: ms(series.p95),
        target: held ? '< 600 ms' : '',
        met: held ? series.p95 < 600 : undefined,
      },
      {
        figure: `session → first page, ${sessions.burstSize} at once, slowest (${name})`,
        value: ms(Math.max(...series.burst)),
        target: held ? '< 800 ms' : '',
        met: held ? Math.max(...series.burst) < 800 : undefined,
      },
    );
  }
  rows.push({ figure: 'memory of one ready spare (PSS)', value: `${sessions.spareMb.toFixed(0)} MB`, target: 'stated' });

  const flood = await measureFlood();
  reportFlood(flood);
  rows.push({
    figure: `relay peak RSS, a client that never reads (${flood.commands.toLocaleString('en')} commands)`,
    value: `${flood.rssMiB.peak} MiB`,
    target: '< 100 MiB',
    met: flood.rssMiB.peak < 100,
  });

  const width = Math.max(...rows.map((row) => row.figure.length));
  console.log('\nevery figure and its target\n');
  console.log(`${'figure'.padEnd(width)}  ${'measured'.padStart(10)}  target`);
  for (const row of rows)
    console.log(`${row.figure.padEnd(width)}  ${row.value.padStart(10)}  ${row.target}${row.met === undefined ? '' : row.met ? ' ✓' : ' ✗'}`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), rows, relay: { ...relay, latency: undefined } }, null, 2)}\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
