/**
 * The fleet's store (spec §18): an audit query over FLEET_AUDIT_ENTRIES
 * (100,000) entries, through `GET /audit` of a real server, with the audit
 * in PostgreSQL (a private cluster, tests/harness/postgres.ts) against the
 * same entries in the file of a server without a store. Queries: the newest
 * page of one tenant (most entries are other tenants'), one session's
 * entries, and one kind in a time window. Each figure is the median of
 * FLEET_QUERY_RUNS requests from this process to the server over loopback.
 * Then what a fleet costs a session's calls (fleet-carry.ts).
 * Run with `npm run bench:fleet`.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClawdServer, startServer } from '../relay/src/cli/serve.js';
import type { AuditEntry } from '../relay/src/api/session-responses.js';
import { createLogger } from '../relay/src/log.js';
import { freePortPair } from '../tests/harness/ports.js';
import { startPostgres } from '../tests/harness/postgres.js';
import { freshHome } from '../tests/harness/control-env.js';
import { measureCarry, reportCarry } from './fleet-carry.js';

const ENTRIES = Number(process.env.FLEET_AUDIT_ENTRIES ?? 100_000);
const RUNS = Number(process.env.FLEET_QUERY_RUNS ?? 30);
const EVENTS = ['session-start', 'session-stop', 'inject', 'grant', 'cdp-connect', 'cdp-disconnect'] as const;

export interface FleetFigures {
  entries: number;
  queries: Array<{ query: string; storeMs: number; fileMs: number }>;
}

/** Entries as servers write them: 100 tenants, a session per 10 entries, an hour of time. */
function entries(count: number): AuditEntry[] {
  const start = Date.parse('2026-01-01T00:00:00Z');
  return Array.from({ length: count }, (_, index) => ({
    time: new Date(start + Math.floor((index / count) * 3_600_000)).toISOString(),
    event: EVENTS[index % EVENTS.length],
    tenant: `tenant-${index % 100}`,
    session: (Math.floor(index / 10) + 0x100000000000).toString(16).slice(-12),
    outcome: 'ok',
    detail: `entry ${index}`,
  }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeQueries(server: ClawdServer, base: string, paths: string[]): Promise<number[]> {
  const headers = { authorization: `Bearer ${server.token}` };
  const results: number[] = [];
  for (const path of paths) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const response = await fetch(`${base}${path}`, { headers });
      const page = (await response.json()) as { entries: unknown[] };
      if (!response.ok || !page.entries.length) throw new Error(`${path}: ${response.status} ${JSON.stringify(page).slice(0, 200)}`);
      times.push(performance.now() - started);
    }
    results.push(median(times));
  }
  return results;
}

export async function measureFleet(): Promise<FleetFigures> {
  const written = entries(ENTRIES);
  const paths = [
    '/audit?tenant=tenant-42&limit=50',
    `/audit?session=${written[ENTRIES / 2].session}&limit=50`,
    `/audit?event=grant&since=${encodeURIComponent('2026-01-01T00:30:00Z')}&until=${encodeURIComponent('2026-01-01T00:31:00Z')}&limit=50`,
  ];
  const postgres = await startPostgres();
  const homes: string[] = [];
  try {
    // The same entries in the store's table and in a file.
    const rows = written.map((entry) => [entry.time, entry.event, entry.tenant, entry.session, JSON.stringify(entry)]);
    for (let at = 0; at < rows.length; at += 5000) {
      const batch = rows.slice(at, at + 5000);
      const values = batch.flat();
      const tuples = batch.map((_, index) => `($${index * 5 + 1}, $${index * 5 + 2}, $${index * 5 + 3}, $${index * 5 + 4}, NULL, $${index * 5 + 5}, 'bench')`);
      if (at === 0) {
        // The schema is the server's: start one first so its steps are applied.
        const base = `http://127.0.0.1:${(await freePortPair()).control}`;
        const home = freshHome({ controlUrl: base, store: { postgres: { url: postgres.url } } });
        homes.push(home);
        await (await startServer({ home, logger: createLogger('warn') })).close();
      }
      await postgres.query(`INSERT INTO clawd_audit (time, event, tenant, session, grant_id, entry, server) VALUES ${tuples.join(', ')}`, values);
    }
    await postgres.query('ANALYZE clawd_audit');
    const storeBase = `http://127.0.0.1:${(await freePortPair()).control}`;
    const storeHome = freshHome({ controlUrl: storeBase, store: { postgres: { url: postgres.url } } });
    const fileBase = `http://127.0.0.1:${(await freePortPair()).control}`;
    const fileHome = freshHome({ controlUrl: fileBase });
    homes.push(storeHome, fileHome);
    mkdirSync(join(fileHome, 'logs'), { recursive: true });
    appendFileSync(join(fileHome, 'logs', 'audit.jsonl'), written.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    const storeServer = await startServer({ home: storeHome, logger: createLogger('warn') });
    const fileServer = await startServer({ home: fileHome, logger: createLogger('warn') });
    try {
      const store = await timeQueries(storeServer, storeBase, paths);
      const file = await timeQueries(fileServer, fileBase, paths);
      return { entries: ENTRIES, queries: paths.map((query, index) => ({ query, storeMs: store[index], fileMs: file[index] })) };
    } finally {
      await storeServer.close();
      await fileServer.close();
    }
  } finally {
    postgres.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

export function reportFleet(figures: FleetFigures): void {
  console.log(`\nthe fleet's store: GET /audit over ${figures.entries.toLocaleString('en')} entries, median of ${RUNS} (ms)`);
  console.log(`${'query'.padEnd(100)} ${'PostgreSQL'.padStart(11)} ${'file'.padStart(9)}`);
  for (const { query, storeMs, fileMs } of figures.queries)
    console.log(`${query.padEnd(100)} ${storeMs.toFixed(1).padStart(11)} ${fileMs.toFixed(1).padStart(9)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportFleet(await measureFleet());
  reportCarry(await measureCarry());
}
