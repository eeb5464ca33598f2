import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionInfo } from '../../relay/src/api/session-responses.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { startPostgres, type TestPostgres } from '../harness/postgres.js';
import { GRID_CHROMIUM_CAPABILITIES, startGrid, type TestGrid } from '../harness/selenium-grid.js';
import { startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * Any server, any session (spec §18): two `serve` processes with one store
 * (Debian's PostgreSQL, a cluster of the test's own) and one Grid (a hub and
 * two nodes). A session opened through A is driven through B, with its own
 * key, over HTTP, CDP (Playwright) and MCP, each carried to A; when A is
 * killed (its whole process group, as a machine that dies), B takes its Grid
 * session over once A's lease runs out and the agent goes on in the same
 * tab, while A's local session is a 410 that says why.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const LEASE_SECONDS = 6;
const token = randomBytes(32).toString('hex');
const grantKey = randomBytes(32).toString('hex');
const vaultKey = randomBytes(32).toString('hex');

interface Server {
  name: string;
  home: string;
  control: number;
  relay: number;
  process: ChildProcess;
}

let postgres: TestPostgres;
let grid: TestGrid;
let site: Awaited<ReturnType<typeof startTestSite>>;
const servers: Server[] = [];
let gridSession: SessionInfo;
let localSession: SessionInfo;
/** Every path the test site was asked for. */
const sitePaths: string[] = [];

async function startServe(name: string): Promise<Server> {
  const ports = await freePortPair();
  const home = freshHome({
    controlUrl: `http://127.0.0.1:${ports.control}`,
    headless: true,
    noSandbox: true,
    sessionSpares: 0,
    grid: { url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, keepAliveSeconds: 3, requestTimeoutSeconds: 20 },
    store: { postgres: { url: postgres.url }, leaseSeconds: LEASE_SECONDS },
  });
  // What every server of a fleet is given alike (mounted secrets): never in the store.
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'grant.key'), `${grantKey}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'vault.key'), `${vaultKey}\n`, { mode: 0o600 });
  return { name, home, control: ports.control, relay: ports.relay, process: await spawnServe(name, home, ports.control) };
}

/** `serve` on `home`, in its own process group: killing that is a machine that dies, with the browsers it started. */
async function spawnServe(name: string, home: string, control: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${control}/`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 30_000, message: `${name} did not start` },
  );
  return child;
}

const api = (server: Server, credential = token, profile?: string) =>
  new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control}`, token: credential, profile });

/** One request written as it is on the wire; the first line of the answer and the rest. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function killGroup(server: Server): void {
  try {
    process.kill(-server.process.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

beforeAll(async () => {
  [postgres, grid] = await Promise.all([startPostgres(), startGrid({ nodes: 2, maxSessions: 2, sessionTimeout: 120, requestTimeout: 20 })]);
  site = await startTestSite((_request, response, url) => {
    sitePaths.push(url.pathname);
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>${url.pathname.slice(1)}</title><p id="at">${url.pathname}</p><button onclick="this.textContent = 'pressed'">Press</button>`);
  });
  servers.push(await startServe('A'), await startServe('B'));
}, 120_000);

afterAll(async () => {
  for (const server of servers) {
    if (server.process.exitCode === null && server.process.signalCode === null) {
      server.process.kill('SIGTERM');
      await new Promise((resolve) => server.process.once('exit', resolve));
    }
    killGroup(server);
    rmSync(server.home, { recursive: true, force: true });
  }
  await grid?.close();
  postgres?.close();
  await site?.close();
}, 60_000);

describe('several servers, one fleet', () => {
  it('a Grid session opened through A is driven through B: HTTP, Playwright over CDP and MCP, with its own key', async () => {
    const [a, b] = servers;
    gridSession = await api(a).openSession({ credential_mode: 'clean', place: 'grid' });
    const own = api(b, gridSession.key!);
    const tab = await own.openTab(`${site.url}/first`);
    expect(tab.url).toBe(`${site.url}/first`);
    expect((await own.text({ targetId: tab.targetId })).markdown).toContain('/first');

    // Discovered through B (/json/version), and reached through B.
    const discovery = await fetch(`http://127.0.0.1:${b.relay}/json/version?profile=${gridSession.profile}&token=${gridSession.key}`);
    expect(discovery.status).toBe(200);
    const { webSocketDebuggerUrl } = (await discovery.json()) as { webSocketDebuggerUrl: string };
    expect(webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${b.relay}/cdp?profile=${gridSession.profile}&token=${gridSession.key}`);
    const browser = await chromium.connectOverCDP(webSocketDebuggerUrl);
    try {
      const page = browser
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().endsWith('/first'))!;
      await page.click('button');
      expect(await page.evaluate(() => document.querySelector('button')!.textContent)).toBe('pressed');
    } finally {
      await browser.close();
    }

    const mcp = new Client({ name: 'fleet-test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${b.control}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${gridSession.key}` } },
      }),
    );
    try {
      const snapshot = await mcp.callTool({ name: 'browser_snapshot', arguments: {} });
      expect((snapshot.content as Array<{ text: string }>)[0].text).toContain('pressed');
    } finally {
      await mcp.close();
    }

    // Every server lists the fleet's sessions, and the key reaches nothing else through either.
    expect((await api(b).sessions()).sessions.map((session) => session.id)).toContain(gridSession.id);
    const other = await fetch(`http://127.0.0.1:${b.control}/tabs?profile=clawd`, { headers: { authorization: `Bearer ${gridSession.key}` } });
    expect(other.status).toBe(403);
    const wrong = await fetch(`http://127.0.0.1:${b.control}/tabs?profile=${gridSession.profile}`, {
      headers: { authorization: `Bearer ${randomBytes(32).toString('hex')}` },
    });
    expect(wrong.status).toBe(401);
    const wrongCdp = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${b.relay}/cdp?profile=${gridSession.profile}&token=${randomBytes(32).toString('hex')}`);
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('open', () => reject(new Error("a wrong key opened the session's CDP")));
      socket.once('error', () => {});
    });
    expect(wrongCdp).toBe(401);
  }, 120_000);

  it('a local session opened through A is carried there from B, with the token or its key, over HTTP, MCP and the console', async () => {
    const [a, b] = servers;
    localSession = await api(a).openSession({ credential_mode: 'clean', place: 'local' });
    const tab = await api(b, token, localSession.profile).openTab(`${site.url}/local`);
    expect((await api(b, localSession.key!).tabs()).map((each) => each.targetId)).toContain(tab.targetId);
    expect((await api(a, localSession.key!).text({ targetId: tab.targetId })).markdown).toContain('/local');
    // MCP on B with the token: a tool naming A's session acts there, the toolbox's too.
    await api(a, token, localSession.profile).toolbox.setCookies({ cookies: [{ name: 'fleet', value: 'cookie-value-1', url: site.url }] });
    const mcp = new Client({ name: 'fleet-test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${b.control}/mcp?caps=storage`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const snapshot = await mcp.callTool({ name: 'browser_snapshot', arguments: { profile: localSession.profile } });
      expect(snapshot.isError, JSON.stringify(snapshot.content)).toBeFalsy();
      expect((snapshot.content as Array<{ text: string }>)[0].text).toContain('/local');
      const cookies = await mcp.callTool({ name: 'browser_storage', arguments: { profile: localSession.profile, action: 'cookies', url: site.url } });
      expect(cookies.isError, JSON.stringify(cookies.content)).toBeFalsy();
      expect((cookies.content as Array<{ text: string }>)[0].text).toContain('fleet');
    } finally {
      await mcp.close();
    }
    // A request target naming another host is never carried there.
    const absolute = await rawRequest(
      b.control,
      `GET ${site.url}/elsewhere?profile=${localSession.profile} HTTP/1.1\r\nHost: 127.0.0.1:${b.control}\r\nAuthorization: Bearer ${localSession.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(sitePaths).not.toContain('/elsewhere');
    // The key's scope is judged on the request as the holder's routes read it: a query past the limit, or a name
    // given twice, is a 400 where it arrives, carried or not, never the holder's default profile.
    const thousand = Array.from({ length: 1000 }, () => 'a').join('&');
    for (const [port, query] of [
      [b.control, thousand],
      [a.control, thousand],
      [b.control, `profile=${localSession.profile}&profile=clawd`],
    ] as const) {
      const answer = await rawRequest(
        port,
        `GET /tabs?${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${localSession.key}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer, `${port} ${query.slice(0, 40)}`).toMatch(/^HTTP\/1\.1 400/);
      expect(answer).toMatch(/at most 100 are read|given more than once/);
    }
    // Nor a path a parser turns into `//host/…`: with the key, to the control API and the relay's discovery.
    const siteHost = new URL(site.url).host;
    for (const target of [`/.//${siteHost}/steal-1`, `/x/%2e%2e//${siteHost}/steal-2`, `/x/../\\${siteHost}/steal-3`]) {
      for (const port of [b.control, b.relay]) {
        const answer = await rawRequest(
          port,
          `GET ${target}?profile=${localSession.profile} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${localSession.key}\r\nConnection: close\r\n\r\n`,
        );
        expect(answer, target).toMatch(/^HTTP\/1\.1 4\d\d/);
      }
    }
    // The console on B (a person logged in with its one-time link): A's session's live view is carried there.
    const { url } = await api(b).dashboardLink();
    const login = await fetch(url, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    // The console lives under a path of its own, the only one its cookie is sent to (and taken with).
    const consolePath = /Path=([^;]+)/.exec(login.headers.get('set-cookie')!)![1];
    const frame = await fetch(`http://127.0.0.1:${b.control}${consolePath}screencast/frame?profile=${localSession.profile}&targetId=${tab.targetId}`, {
      headers: { cookie },
    });
    expect(frame.status).toBe(200);
    expect(frame.headers.get('content-type')).toBe('image/jpeg');
    // The console's calls are carried with the fleet's token: never to a host a path names.
    const consoleAttack = await rawRequest(
      b.control,
      `GET ${consolePath}.//${siteHost}/steal-4?profile=${localSession.profile} HTTP/1.1\r\nHost: 127.0.0.1:${b.control}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
    );
    expect(consoleAttack).toMatch(/^HTTP\/1\.1 400/);
    expect(sitePaths.filter((path) => path.startsWith('/steal'))).toEqual([]);
    // The console sees what it sees on its own server: cookie values stay hidden, carried or not.
    const shown = (await (
      await fetch(`http://127.0.0.1:${b.control}${consolePath}storage/cookies?profile=${localSession.profile}&url=${encodeURIComponent(site.url)}`, {
        headers: { cookie },
      })
    ).json()) as { cookies: Array<{ value?: string }>; valuesHidden?: boolean };
    expect(shown.valuesHidden).toBe(true);
    expect(JSON.stringify(shown)).not.toContain('cookie-value-1');
    const byToken = (await (
      await fetch(`http://127.0.0.1:${b.control}/storage/cookies?profile=${localSession.profile}&url=${encodeURIComponent(site.url)}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cookies: Array<{ value?: string }> };
    expect(JSON.stringify(byToken)).toContain('cookie-value-1');
    // The console's mark is a fleet server's to set when it carries a call: a caller's own is dropped at the door.
    const forged = await fetch(`http://127.0.0.1:${a.control}/storage/cookies?profile=${localSession.profile}&url=${encodeURIComponent(site.url)}`, {
      headers: { authorization: `Bearer ${token}`, 'x-clawd-as': 'console' },
    });
    expect(JSON.stringify(await forged.json())).toContain('cookie-value-1');
    // Without the cookie, nothing is carried.
    expect((await fetch(`http://127.0.0.1:${b.control}/tabs?profile=${localSession.profile}`)).status).toBe(401);
  }, 60_000);

  it('A killed mid-task: B takes its Grid session over and the agent goes on in the same tab; its local session is a 410', async () => {
    const [a, b] = servers;
    const own = api(b, gridSession.key!);
    const before = (await own.tabs()).find((tab) => tab.url.endsWith('/first'))!;
    const killedAt = Date.now();
    killGroup(a);
    // The agent's next calls through B: a 503 saying when A's lease runs out, then the same session, taken over.
    let lastStatus = 0;
    await waitFor(
      async () => {
        const answer = await fetch(`http://127.0.0.1:${b.control}/tabs`, { headers: { authorization: `Bearer ${gridSession.key}` } });
        lastStatus = answer.status;
        if (answer.status === 503) expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
        return answer.ok;
      },
      { timeoutMs: (LEASE_SECONDS + 20) * 1000, intervalMs: 250, message: `the session was not taken over (last answer ${lastStatus})` },
    );
    const tookSeconds = (Date.now() - killedAt) / 1000;
    console.log(`fleet: Grid session taken over ${tookSeconds.toFixed(1)} s after its server was killed (lease ${LEASE_SECONDS} s)`);
    expect(tookSeconds).toBeLessThan(LEASE_SECONDS + 20);
    const after = await own.tabs();
    expect(after.map((tab) => tab.targetId)).toContain(before.targetId);
    expect((await own.text({ targetId: before.targetId })).markdown).toContain('/first');
    // And goes on: a new page, through B's CDP too.
    await own.navigate(`${site.url}/second`, before.targetId);
    const browser = await chromium.connectOverCDP(`ws://127.0.0.1:${b.relay}/cdp?profile=${gridSession.profile}&token=${gridSession.key}`);
    try {
      expect(
        browser
          .contexts()[0]
          .pages()
          .map((page) => page.url()),
      ).toContain(`${site.url}/second`);
    } finally {
      await browser.close();
    }

    // A's local session went with it: a 410 that says so, by its key and by its name.
    const lost = await fetch(`http://127.0.0.1:${b.control}/tabs`, { headers: { authorization: `Bearer ${localSession.key}` } });
    expect(lost.status).toBe(410);
    expect((await lost.json()).error.message).toMatch(/lost with server/);
    const byName = await fetch(`http://127.0.0.1:${b.control}/tabs?profile=${localSession.profile}`, { headers: { authorization: `Bearer ${token}` } });
    expect(byName.status).toBe(410);

    // The audit, one query through B, says what happened.
    const events = (await api(b).audit({ session: gridSession.id })).entries.map((entry) => entry.event);
    expect(events).toEqual(expect.arrayContaining(['session-start', 'session-takeover']));
    expect((await api(b).audit({ session: localSession.id })).entries.map((entry) => entry.event)).toContain('session-lost');

    // A comes back on the same home: its reaper clears what A left, but not the Grid session B holds now.
    a.process = await spawnServe('A again', a.home, a.control);
    expect((await own.text({ targetId: before.targetId })).markdown).toContain('/second');
    expect((await api(a, gridSession.key!).tabs()).map((tab) => tab.targetId)).toContain(before.targetId);

    // Closed through B, it ends on the Grid too.
    await api(b).closeSession(gridSession.id);
    const gone = await fetch(`http://127.0.0.1:${b.control}/tabs`, { headers: { authorization: `Bearer ${gridSession.key}` } });
    expect([401, 404, 410]).toContain(gone.status);
    await waitFor(async () => (await grid.status()).every((node) => node.sessions === 0), { timeoutMs: 20_000, message: 'the Grid still runs the session' });
  }, 120_000);
});
