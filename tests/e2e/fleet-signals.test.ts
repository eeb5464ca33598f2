import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient, TooManyError } from '../../relay/src/client/browser-client.js';
import { createLogger } from '../../relay/src/log.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * The signals a load balancer and an autoscaler read, from a real server
 * with real task sessions: admission beyond capacity (a bounded queue, its
 * deadline, a 429 with Retry-After), `GET /pressure` without the token
 * (full, memory, ok), and `GET /metrics` in Prometheus's text format
 * (sessions, the queue, request latency by route pattern, policy refusals).
 */

let server: ClawdServer;
let home: string;
let api: BrowserClient;
let base: string;
let site: Awaited<ReturnType<typeof startTestSite>>;
const config = (extra: object) => ({
  controlUrl: base,
  headless: true,
  noSandbox: true,
  maxSessions: 1,
  sessionSpares: 0,
  sessionQueue: { max: 1, waitSeconds: 3 },
  pressure: { cpu: 1, memory: 1 },
  urlPolicy: { mode: 'any', deny: ['denied.test'] },
  ...extra,
});

beforeAll(async () => {
  const ports = await freePortPair();
  base = `http://127.0.0.1:${ports.control}`;
  home = freshHome(config({}));
  server = await startServer({ home, logger: createLogger('warn') });
  api = new BrowserClient({ baseUrl: base, token: server.token });
  site = await startTestSite((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ok</title><a id=out href="http://denied.test/">out</a>'),
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
  await site?.close();
  rmSync(home, { recursive: true, force: true });
});

/** A sample's value in the metrics text, by its name and labels as written. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const lines = text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  const line = lines.find((candidate) => Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const metrics = async () => {
  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/);
  return response.text();
};
const pressure = async () => {
  const response = await fetch(`${base}/pressure`);
  return {
    status: response.status,
    body: (await response.json()) as { state: string; sessions: { open: number; capacity: number; waiting: number }; cpu: number; memory: number },
  };
};

describe('signals for the load balancer and the autoscaler', () => {
  it('queues a session beyond capacity, refuses one beyond the queue at once and one past its wait, each with Retry-After', async () => {
    expect(await pressure()).toMatchObject({ status: 200, body: { state: 'ok', sessions: { open: 0, capacity: 1, waiting: 0 } } });
    const first = await api.openSession({ credential_mode: 'clean', ttl: 120 });
    // Full: a health check says so, without the token.
    expect(await pressure()).toMatchObject({ status: 503, body: { state: 'full', sessions: { open: 1, capacity: 1 } } });

    const second = api.openSession({ credential_mode: 'clean', ttl: 120 });
    await waitFor(async () => (await pressure()).body.sessions.waiting === 1, { message: 'the second did not queue' });
    const text = await metrics();
    expect(sample(text, 'clawd_session_queue_depth')).toBe(1);
    expect(sample(text, 'clawd_session_capacity')).toBe(1);
    expect(sample(text, 'clawd_sessions', { place: 'local', state: 'open' })).toBe(1);

    // Beyond the queue: a 429 at once, saying when to ask again (the open session's ttl bounds it).
    const started = Date.now();
    const full = await fetch(`${base}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ credential_mode: 'clean' }),
    });
    expect(full.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1000);
    const retryAfter = Number(full.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await full.json()) as { error: { message: string } }).error.message).toMatch(/1 wait already \(config sessionQueue.max: 1\)/);

    // The first ends: the one waiting gets its slot.
    await api.closeSession(first.id);
    const admitted = await second;
    expect((await api.sessions()).sessions.map((session) => session.id)).toEqual([admitted.id]);

    // One that waits longer than sessionQueue.waitSeconds: a 429 once it has waited.
    const waitedFrom = Date.now();
    const late = await rejection(api.openSession({ credential_mode: 'clean' }));
    expect(late).toBeInstanceOf(TooManyError);
    expect(late.message).toMatch(/No task session slot freed in 3 s/);
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(2900);
    await api.closeSession(admitted.id);
    expect(await pressure()).toMatchObject({ status: 200, body: { state: 'ok', sessions: { open: 0, waiting: 0 } } });
  }, 60_000);

  it('says memory when memory in use passes config pressure, read at each check', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify(config({ pressure: { cpu: 1, memory: 0.01 } })));
    try {
      const { status, body } = await pressure();
      expect(status).toBe(503);
      expect(body.state).toBe('memory');
      expect(body.memory).toBeGreaterThan(0.01);
      expect(body.memory).toBeLessThan(1);
    } finally {
      writeFileSync(join(home, 'config.json'), JSON.stringify(config({})));
    }
  });

  it('serves Prometheus metrics to the token only: request latency by route pattern, policy refusals, process figures', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const session = await api.openSession({ credential_mode: 'clean', ttl: 120 });
    const agent = new BrowserClient({ baseUrl: base, token: server.token, profile: session.profile });
    await agent.openTab(`${site.url}/`);
    const refusedBefore = sample(await metrics(), 'clawd_policy_refusals_total', { where: 'browser' }) ?? 0;
    const snapshot = await agent.snapshot();
    await agent.act({ kind: 'click', ref: /link "out".*\[ref=(e\d+)\]/.exec(snapshot.text)![1] });
    await api.closeSession(session.id);
    const text = await metrics();
    expect(sample(text, 'clawd_policy_refusals_total', { where: 'browser' })).toBeGreaterThan(refusedBefore);
    // Latency by the route's pattern: DELETE /sessions/:id, never the raw id.
    expect(sample(text, 'clawd_http_request_duration_seconds_count', { method: 'POST', route: '/sessions', status: '201' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'clawd_http_request_duration_seconds_count', { method: 'POST', route: '/sessions', status: '429' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'clawd_http_request_duration_seconds_count', { method: 'DELETE', route: '/sessions/:id', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain(session.id);
    expect(sample(text, 'clawd_http_request_duration_seconds_bucket', { route: '/tabs/open', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clawd_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(sample(text, 'clawd_cdp_clients')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'clawd_sessions')).toBeUndefined(); // none open: no series
  }, 60_000);
});
