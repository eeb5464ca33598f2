import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient, ForbiddenError } from '../../relay/src/client/browser-client.js';
import type { NetworkEntry } from '../../relay/src/api/responses.js';
import { waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A record of what happened (issue 22), on both profiles against real
 * Chromium: a tab's network log (off until asked; headers, status, type,
 * timing, bodies; filters; credential headers redacted except for the
 * token's holder), written as HAR 1.2 with 0600; a Playwright trace with
 * screenshots and the action log beside it; a task session's files removed
 * with it unless kept.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
const SECRET = `Bearer secret-${Date.now()}`;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/api/data') {
      response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'api=set-by-server; Path=/' }).end('{"hello":"world"}');
      return;
    }
    if (url.pathname === '/page') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(
        `<!doctype html><title>Network</title><img src="/missing.png"><button id="go" onclick="this.textContent='clicked'">go</button>
         <script>fetch('/api/data', { method: 'POST', headers: { authorization: ${JSON.stringify(SECRET)}, 'content-type': 'application/json' }, body: '{"question":42}' }).then((r) => r.json()).then((d) => (document.title = 'got ' + d.hello));</script>`,
      );
      return;
    }
    response.writeHead(url.pathname === '/blank' ? 200 : 404, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>');
  });
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

const path = (entries: NetworkEntry[] | undefined) => (entries ?? []).map((entry) => new URL(entry.url).pathname);

for (const profile of ['clawd', 'extension'] as const) {
  describe(`a record of what happened on the ${profile} profile`, () => {
    it("logs a tab's requests once asked, filters them, hides credentials but from the token, gives bodies, and writes HAR 1.2", async () => {
      const client = env.client(profile);
      const { targetId } = await client.openTab(`${site.url}/blank`);
      expect((await client.network({ targetId })).network).toEqual({ recording: false, entries: [] });
      await client.networkRecord(true, targetId);
      await client.navigate(`${site.url}/page`, targetId);
      await waitFor(async () => (await client.network({ targetId, url: '/api/data' })).network!.entries!.some((entry) => entry.status === 200), {
        message: 'the fetch was never logged',
      });

      const { entries } = (await client.network({ targetId })).network!;
      expect(path(entries)).toEqual(expect.arrayContaining(['/page', '/missing.png', '/api/data']));
      const page = entries!.find((entry) => entry.url.endsWith('/page'))!;
      expect(page).toMatchObject({ method: 'GET', resourceType: 'document', status: 200, mimeType: 'text/html' });
      expect(path((await client.network({ targetId, type: 'fetch' })).network!.entries)).toEqual(['/api/data']);
      expect(path((await client.network({ targetId, status: '4xx' })).network!.entries)).toEqual(['/missing.png']);

      // Credentials: redacted for anyone, shown to the token's holder who asks.
      const fetched = (await client.network({ targetId, type: 'fetch' })).network!.entries![0];
      expect(fetched.requestHeaders.authorization).toBe('[redacted]');
      expect(fetched.responseHeaders?.['set-cookie']).toBe('[redacted]');
      const shown = (await client.network({ targetId, type: 'fetch', secrets: true })).network!.entries![0];
      expect(shown.requestHeaders.authorization).toBe(SECRET);

      const body = await client.networkBody(fetched.id, targetId);
      expect(Buffer.from(body.base64, 'base64').toString()).toBe('{"hello":"world"}');
      expect(body).toMatchObject({ part: 'response', mimeType: 'application/json', truncated: false });
      // The request's own body, when it sent one.
      expect(fetched).toMatchObject({ method: 'POST', requestBodySize: 15 });
      const sent = await client.networkBody(fetched.id, targetId, 'request');
      expect(Buffer.from(sent.base64, 'base64').toString()).toBe('{"question":42}');
      expect(sent).toMatchObject({ part: 'request', mimeType: 'application/json', size: 15 });
      expect(await rejection(client.networkBody(page.id, targetId, 'request'))).toMatchObject({ status: 404, message: expect.stringMatching(/sent no body/) });

      const har = await client.har({ targetId });
      expect(statSync(har.path!).mode & 0o777).toBe(0o600);
      const file = readFileSync(har.path!, 'utf8');
      expect(file).not.toContain(SECRET);
      const log = (
        JSON.parse(file) as {
          log: { version: string; entries: Array<{ request: { url: string; method: string; bodySize: number }; response: { status: number } }> };
        }
      ).log;
      expect(log.version).toBe('1.2');
      expect(log.entries.find((entry) => entry.request.url.endsWith('/api/data'))).toMatchObject({
        request: { method: 'POST', bodySize: 15 },
        response: { status: 200 },
      });

      // Stopped: what comes next is not logged.
      await client.networkRecord(false, targetId);
      const count = (await client.network({ targetId })).network!.entries!.length;
      await client.navigate(`${site.url}/blank?after`, targetId);
      expect((await client.network({ targetId })).network!.entries!.length).toBe(count);
      await client.closeTab(targetId);
    }, 60_000);

    it('traces the browser context: a zip show-trace opens, with screenshots, and the action log beside it', async () => {
      const client = env.client(profile);
      const { targetId } = await client.openTab(`${site.url}/blank`);
      await client.traceStart();
      expect(await rejection(client.traceStart())).toMatchObject({ status: 400 });
      await client.navigate(`${site.url}/page`, targetId);
      await client.click(refOf((await client.snapshot({ targetId })).text, /button "go"/), { targetId });
      expect((await client.evaluate("() => document.getElementById('go').textContent", { targetId })).result).toBe('clicked');
      const trace = await client.traceStop();
      expect(statSync(trace.path!).mode & 0o777).toBe(0o600);
      const zip = readFileSync(trace.path!);
      expect(zip.subarray(0, 2).toString()).toBe('PK');
      expect(zip.includes(Buffer.from('trace.trace'))).toBe(true);
      expect(zip.includes(Buffer.from('.jpeg'))).toBe(true); // screenshots
      const actions = JSON.parse(readFileSync(trace.actionsPath!, 'utf8')) as Array<{ kind: string }>;
      expect(actions.map((action) => action.kind)).toEqual(expect.arrayContaining(['navigate', 'click']));
      await client.closeTab(targetId);
    }, 60_000);
  });
}

describe("a task session's record", () => {
  it('its key records its own session but never sees credentials; its files go with it unless kept', async () => {
    const api = env.client('clawd');
    const session = await api.openSession({ credential_mode: 'clean' });
    const agent = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key!, profile: session.profile });
    const { targetId } = await agent.openTab(`${site.url}/blank`);
    await agent.networkRecord(true, targetId);
    await agent.navigate(`${site.url}/page`, targetId);
    await waitFor(async () => path((await agent.network({ targetId })).network!.entries).includes('/api/data'), { message: 'the fetch was never logged' });
    expect(await rejection(agent.network({ targetId, secrets: true }))).toBeInstanceOf(ForbiddenError);
    const passing = await agent.har({ targetId });
    const kept = await agent.har({ targetId, keep: true });
    await api.closeSession(session.id);
    expect(existsSync(passing.path!)).toBe(false);
    expect(existsSync(kept.path!)).toBe(true);
    expect(kept.path).toContain('/recordings/kept/');
  }, 60_000);
});

describe('recordings are bounded', () => {
  /** Sets config.json's `recordings` (read at each request), and puts the rest back after. */
  async function withRecordingsConfig(recordings: object, body: () => Promise<void>): Promise<void> {
    const file = join(env.home, 'config.json');
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(before), recordings }));
    try {
      await body();
    } finally {
      writeFileSync(file, before);
    }
  }

  it('a trace stops itself at its time bound; the next /trace/stop hands over its file (kept when asked)', async () => {
    await withRecordingsConfig({ traceMaxMinutes: 0.02 }, async () => {
      const client = env.client('clawd');
      const { targetId } = await client.openTab(`${site.url}/blank`);
      const dir = join(env.home, 'recordings', 'clawd');
      const written = () => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.actions.json')) : []);
      const before = written().length;
      await client.traceStart();
      await client.navigate(`${site.url}/page`, targetId);
      // Its bound is 1.2 s: the trace is written without anyone asking.
      await waitFor(() => written().length > before, { timeoutMs: 15_000, message: 'the trace never stopped at its bound' });
      const trace = await client.traceStop({ keep: true });
      expect(trace.bound).toMatch(/stopped itself after 0.02 minutes/);
      expect(trace.path).toContain('/recordings/kept/clawd/');
      expect(readFileSync(trace.path!).subarray(0, 2).toString()).toBe('PK');
      expect(existsSync(trace.actionsPath!)).toBe(true);
      expect(await rejection(client.traceStop())).toMatchObject({ status: 400 });
      await client.closeTab(targetId);
    });
  }, 60_000);

  it("refuses a new HAR or trace while a profile's recordings take their room, and writes nothing", async () => {
    await withRecordingsConfig({ maxMiB: 1 }, async () => {
      const client = env.client('clawd');
      const { targetId } = await client.openTab(`${site.url}/blank`);
      await client.networkRecord(true, targetId);
      await client.navigate(`${site.url}/page`, targetId);
      const dir = join(env.home, 'recordings', 'clawd');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'filler.bin'), Buffer.alloc(1024 * 1024 + 1));
      const listing = readdirSync(dir);
      const refused = await rejection(client.har({ targetId }));
      expect(refused).toMatchObject({ status: 429 });
      expect(refused.message).toMatch(/recordings of clawd take 1\.0 MiB, at their bound of 1 MiB \(config recordings\.maxMiB\)/);
      expect(await rejection(client.traceStart())).toMatchObject({ status: 429 });
      expect(await rejection(client.traceStop())).toMatchObject({ status: 400 }); // nothing was started
      expect(readdirSync(dir)).toEqual(listing);
      rmSync(join(dir, 'filler.bin'));
      expect((await client.har({ targetId })).path).toContain('/recordings/clawd/');
      await client.closeTab(targetId);
    });
  }, 60_000);
});
