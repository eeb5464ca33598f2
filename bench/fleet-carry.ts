/**
 * What a fleet costs a session's calls (spec §18), measured from this
 * process against `serve` processes as users run them, one store (a private
 * PostgreSQL cluster) between them:
 * - a call through a server that does not hold the session (carried to the
 *   one that does) beside the same call through its holder: `GET /tabs`,
 *   `GET /snapshot` of a docs-sized page, and a CDP round trip
 *   (`Runtime.evaluate` over `/cdp?profile=session-…`);
 * - opening and closing a task session with the store beside a server with
 *   files only, each taking a warm spare (the spare is ready before each
 *   open), so that the registry's writes are not lost in a browser's launch.
 * Figures are medians of FLEET_CARRY_RUNS (200) calls, FLEET_OPEN_RUNS (10) opens.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePortPair } from '../tests/harness/ports.js';
import { startPostgres } from '../tests/harness/postgres.js';
import { startTestSite } from '../tests/harness/test-site.js';
import { freshHome } from '../tests/harness/control-env.js';
import { waitFor } from '../tests/harness/chromium.js';
import { startServe } from './serve-process.js';

const CALLS = Number(process.env.FLEET_CARRY_RUNS ?? 200);
const OPENS = Number(process.env.FLEET_OPEN_RUNS ?? 10);

export interface CarryFigures {
  calls: Array<{ call: string; holderMs: number; carriedMs: number }>;
  open: { storeMs: number; filesMs: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeCall(url: string, credential: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < CALLS; run++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${credential}` } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

async function timeCdp(url: string): Promise<number> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const pending = new Map<number, (result: any) => void>();
  let nextId = 0;
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<any>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { targetInfos } = await send('Target.getTargets');
  const page = (targetInfos as Array<{ targetId: string; type: string }>).find((target) => target.type === 'page')!;
  const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  const times: number[] = [];
  for (let run = 0; run < CALLS; run++) {
    const started = performance.now();
    await send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true }, sessionId);
    times.push(performance.now() - started);
  }
  socket.close();
  return median(times);
}

async function timeOpens(base: string, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const spareReady = async () => ((await (await fetch(`${base}/sessions`, { headers })).json()) as { spares: { ready: number } }).spares.ready > 0;
  // The first session starts the pool of spares.
  const first = (await (await fetch(`${base}/sessions`, { method: 'POST', headers, body: JSON.stringify({ credential_mode: 'clean' }) })).json()) as {
    id: string;
  };
  await fetch(`${base}/sessions/${first.id}`, { method: 'DELETE', headers });
  const times: number[] = [];
  for (let run = 0; run < OPENS; run++) {
    await waitFor(spareReady, { timeoutMs: 30_000, message: 'no spare became ready' });
    const started = performance.now();
    const opened = await fetch(`${base}/sessions`, { method: 'POST', headers, body: JSON.stringify({ credential_mode: 'clean' }) });
    const { id } = (await opened.json()) as { id: string };
    const closed = await fetch(`${base}/sessions/${id}`, { method: 'DELETE', headers });
    await closed.arrayBuffer();
    if (!opened.ok || !closed.ok) throw new Error(`open/close: ${opened.status} ${closed.status}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function measureCarry(): Promise<CarryFigures> {
  const postgres = await startPostgres();
  const token = randomBytes(32).toString('hex');
  const homes: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const site = await startTestSite((_request, response) => {
    const sections = Array.from(
      { length: 60 },
      (_, index) => `<h2>Section ${index}</h2><p>Paragraph ${index} with <a href="#s${index}">a link</a>.</p><button>Do ${index}</button>`,
    ).join('');
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Docs</title><main>${sections}</main>`);
  });
  const serve = async (config: object) => {
    const ports = await freePortPair();
    const home = freshHome({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, noSandbox: true, ...config });
    writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
    homes.push(home);
    const started = await startServe(home, ports.control);
    stops.push(started.stop);
    return { base: `http://127.0.0.1:${ports.control}`, relay: ports.relay };
  };
  try {
    // No spares while calls are timed: nothing else starts a browser meanwhile.
    const store = { store: { postgres: { url: postgres.url } }, sessionSpares: 0 };
    const holder = await serve(store);
    const carrier = await serve(store);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const session = (await (
      await fetch(`${holder.base}/sessions`, { method: 'POST', headers, body: JSON.stringify({ credential_mode: 'clean' }) })
    ).json()) as { id: string; key: string; profile: string };
    await fetch(`${holder.base}/tabs/open?profile=${session.profile}`, { method: 'POST', headers, body: JSON.stringify({ url: site.url }) });
    const calls: CarryFigures['calls'] = [];
    for (const path of ['/tabs', '/snapshot']) {
      calls.push({
        call: `GET ${path}`,
        holderMs: await timeCall(`${holder.base}${path}`, session.key),
        carriedMs: await timeCall(`${carrier.base}${path}`, session.key),
      });
    }
    const cdp = (relay: number) => `ws://127.0.0.1:${relay}/cdp?profile=${session.profile}&token=${session.key}`;
    calls.push({ call: 'CDP Runtime.evaluate', holderMs: await timeCdp(cdp(holder.relay)), carriedMs: await timeCdp(cdp(carrier.relay)) });
    await fetch(`${holder.base}/sessions/${session.id}`, { method: 'DELETE', headers });
    for (const stop of stops.splice(0)) await stop();
    const withStore = await serve({ ...store, sessionSpares: 1 });
    const storeMs = await timeOpens(withStore.base, token);
    for (const stop of stops.splice(0)) await stop();
    const files = await serve({ sessionSpares: 1 });
    return { calls, open: { storeMs, filesMs: await timeOpens(files.base, token) } };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    postgres.close();
    await site.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

export function reportCarry(figures: CarryFigures): void {
  console.log(`\nthe fleet: a session's call through its holder and carried by another server, median of ${CALLS} (ms)`);
  console.log(`${'call'.padEnd(24)} ${'holder'.padStart(8)} ${'carried'.padStart(8)}`);
  for (const { call, holderMs, carriedMs } of figures.calls)
    console.log(`${call.padEnd(24)} ${holderMs.toFixed(2).padStart(8)} ${carriedMs.toFixed(2).padStart(8)}`);
  console.log(
    `open + close a clean session on a warm spare, median of ${OPENS} (ms): with the store ${figures.open.storeMs.toFixed(1)}, with files ${figures.open.filesMs.toFixed(1)}`,
  );
}
