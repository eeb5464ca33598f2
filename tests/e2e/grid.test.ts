import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../relay/src/api/session-responses.js';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient, GoneError, UnavailableError } from '../../relay/src/client/browser-client.js';
import { readToken } from '../../relay/src/config/state-dir.js';
import { createLogger } from '../../relay/src/log.js';
import { GridSession } from '../../relay/src/profiles/grid-session.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { GRID_CHROMIUM_CAPABILITIES, startGrid, type TestGrid } from '../harness/selenium-grid.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * Task sessions on a real Selenium Grid 4 (spec §11, beyond one machine): a
 * hub and two nodes on loopback, `serve`'s own startServer in this process.
 * The agent sees the same session as a local one (its key, the relay's
 * cdpUrl, MCP, vault cookies through a grant); the Grid's queue and nodes
 * place the browsers. Grid faults come back as clear errors: a dead node's
 * sessions answer 410 and are reaped while the others go on; a full Grid is
 * a 503 with the Grid's reason; a Grid that is down, a 503 naming it.
 */

let grid: TestGrid;
let server: ClawdServer;
let home: string;
let site: Awaited<ReturnType<typeof startTestSite>>;
const opened: SessionInfo[] = [];
const secret = 'grid-session-cookie';
/** Everything the server logs, to show the Grid's credentials are never among it. */
const logLines: string[] = [];

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);
/** Sessions each node runs at once. */
const SLOTS = 2;

const api = (profile?: string) => new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token, profile });

function setGridConfig(changes: Record<string, unknown>): void {
  const path = join(home, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  writeFileSync(path, JSON.stringify({ ...config, grid: { ...config.grid, ...changes } }));
}

beforeAll(async () => {
  // Sessions go idle between steps: the nodes end one after 15 s without a WebDriver command, unless clawd-browser keeps it alive.
  grid = await startGrid({ nodes: 2, maxSessions: SLOTS, sessionTimeout: 15, requestTimeout: 6 });
  const { control } = await freePortPair();
  home = freshHome({
    controlUrl: `http://127.0.0.1:${control}`,
    headless: true,
    noSandbox: true,
    maxSessions: 8,
    // The site is at 127.0.0.1; `localhost` is the same server under a name the policy refuses.
    urlPolicy: { deny: ['localhost'] },
    grid: { url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, keepAliveSeconds: 3, requestTimeoutSeconds: 6 },
  });
  const console = createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn');
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string) => {
    logLines.push(message);
    console[level](message);
  };
  server = await startServer({ home, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } });
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/login') {
      response
        .writeHead(200, { 'set-cookie': `session=${secret}; Path=/; Max-Age=3600`, 'content-type': 'text/html' })
        .end('<title>in</title><p>logged in</p>');
      return;
    }
    const signedIn = (request.headers.cookie ?? '').includes(`session=${secret}`);
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Account</title><p id="who">${signedIn ? 'Signed in as alice' : 'Signed out'}</p>`);
  });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await grid?.close();
  await site?.close();
  if (home) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

async function mcpAs(key: string): Promise<Client> {
  const mcp = new Client({ name: 'grid-test', version: '1' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.control.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return mcp;
}

/** The Grid's own list of its sessions' ids. */
async function sessionsOnGrid(): Promise<string[]> {
  const response = await fetch(`${grid.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ sessionsInfo { sessions { id } } }' }),
    signal: AbortSignal.timeout(10_000),
  });
  return ((await response.json()) as { data: { sessionsInfo: { sessions: Array<{ id: string }> } } }).data.sessionsInfo.sessions.map((session) => session.id);
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0].text;

describe('task sessions on a Selenium Grid', () => {
  it("are placed by the Grid on both nodes, keep their own key and the relay's cdpUrl, run a task through MCP, and get vault cookies through a grant", async () => {
    // The vault entry, saved from a local refresh session a person logged in with.
    const refresh = await api().vaultRefresh({ tenant: 'acme', domains: ['127.0.0.1'] });
    await api(refresh.profile).openTab(`${site.url}/login`);
    await api().vaultRefreshDone(refresh.id);
    const { token: grant } = await api().issueGrant({ tenant: 'acme', domains: ['127.0.0.1'], ttl: 600 });

    // Sessions until both nodes hold some: the Grid decides where each goes.
    for (let i = 0; i < 4 && !(await grid.status()).every((node) => node.sessions > 0); i++) {
      const operator = i % 2 === 0;
      opened.push(
        await api().openSession(operator ? { credential_mode: 'operator', tenant: 'acme', grant, place: 'grid' } : { credential_mode: 'clean', place: 'grid' }),
      );
    }
    const status = await grid.status();
    expect(
      status.every((node) => node.sessions > 0),
      JSON.stringify(status),
    ).toBe(true);
    const nodes = new Set(opened.map((session) => session.node));
    expect(nodes).toEqual(new Set(grid.nodes.map((node) => node.uri)));

    for (const session of opened) {
      expect(session).toMatchObject({ place: 'grid', cdpUrl: `ws://127.0.0.1:${server.relay.port}/cdp?profile=${session.profile}` });
      // The Grid's own CDP address is never handed out.
      expect(JSON.stringify(session)).not.toContain(new URL(grid.url).port);
      const mcp = await mcpAs(session.key!);
      try {
        const opened = await mcp.callTool({ name: 'browser_tabs', arguments: { action: 'open', url: `${site.url}/account` } });
        expect(opened.isError, textOf(opened)).toBeFalsy();
        const snapshot = textOf(await mcp.callTool({ name: 'browser_snapshot', arguments: {} }));
        expect(snapshot).toContain(session.credential_mode === 'operator' ? 'Signed in as alice' : 'Signed out');
        // The URL policy holds on a Grid browser: a denied navigation is refused, and so is the page's own request.
        const denied = `${site.url.replace('127.0.0.1', 'localhost')}/account`;
        const refused = await mcp.callTool({ name: 'browser_navigate', arguments: { url: denied } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/urlPolicy deny: localhost/);
        const fetched = await api(session.profile).evaluate(`() => fetch(${JSON.stringify(denied)}).then(() => 'loaded', () => 'blocked')`);
        expect(fetched.result).toBe('blocked');
      } finally {
        await mcp.close();
      }
      expect(session.injectedCookies).toBe(session.credential_mode === 'operator' ? 1 : 0);
      // The page's own state, read through the session's cdpUrl with its key.
      const browser = await chromium.connectOverCDP(session.cdpUrl, { headers: { authorization: `Bearer ${session.key}` } });
      const page = browser
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().endsWith('/account'))!;
      expect(await page.textContent('#who')).toBe(session.credential_mode === 'operator' ? 'Signed in as alice' : 'Signed out');
      await browser.close();
    }
    const audit = readFileSync(join(home, 'logs', 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"event":"inject"');
  }, 120_000);

  it("stay alive past the nodes' session timeout while clawd-browser holds them", async () => {
    // The nodes end a session after 15 s without a WebDriver command; clawd-browser holds each one's CDP and sends a command every 3 s.
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    for (const session of opened) expect((await api(session.profile).tabs()).length).toBeGreaterThan(0);
  }, 60_000);

  it("hand a Grid session's tab to a person: answered through its link and live view, refused, timed out, cancelled", async () => {
    const session = await api().openSession({ credential_mode: 'clean', place: 'grid' });
    try {
      const agent = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: session.key! });
      await agent.openTab(`${site.url}/account`);
      /** The person, over HTTP: opens the link (its cookie), clicks in the live view, answers. */
      const person = async (link: string, verdict: 'done' | 'refused', note?: string) => {
        const opened = await fetch(link, { redirect: 'manual' });
        expect(opened.status).toBe(200);
        const cookie = opened.headers.get('set-cookie')!.split(';')[0];
        const send = (path: string, body: object) =>
          fetch(`http://127.0.0.1:${server.control.port}${path}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const id = /\/handoff\/([0-9a-f]+)\//.exec(link)![1];
        expect((await send(`/handoff/${id}/input`, { type: 'click', x: 0.5, y: 0.5 })).status).toBe(200);
        expect((await send(`/handoff/${id}/answer`, { verdict, ...(note ? { note } : {}) })).status).toBe(200);
      };
      const ask = (reason: string, timeoutSec = 60, signal?: AbortSignal) => {
        let onWaiting!: (handoff: { link?: string; id: string }) => void;
        const waiting = new Promise<{ link?: string; id: string }>((resolve) => (onWaiting = resolve));
        return { waiting, answer: agent.handoff({ reason, timeoutSec }, { onWaiting, signal }) };
      };

      const first = ask('Confirm the account');
      await person((await first.waiting).link!, 'done');
      expect(await first.answer).toMatchObject({ state: 'done', now: { title: 'Account' }, changed: { navigated: false } });
      expect((await first.answer).changed!.personActions).toBe(1);

      const second = ask('Solve the CAPTCHA');
      await person((await second.waiting).link!, 'refused', 'it keeps changing');
      expect(await second.answer).toMatchObject({ state: 'refused', note: 'it keeps changing' });

      expect(await ask('Nobody comes', 10).answer).toMatchObject({ state: 'timeout' });

      const stop = new AbortController();
      const fourth = ask('Never mind', 60, stop.signal);
      const { id } = await fourth.waiting;
      stop.abort();
      await expect(fourth.answer).rejects.toThrow();
      await waitFor(async () => (await agent.handoffState(id)).state === 'cancelled', { message: 'the hand-off was not cancelled' });
    } finally {
      await api().closeSession(session.id);
    }
  }, 60_000);

  it('a server killed with SIGKILL leaves its Grid session behind; the reaper ends it there, and is safe to run twice', async () => {
    const { control } = await freePortPair();
    const childHome = freshHome({
      controlUrl: `http://127.0.0.1:${control}`,
      headless: true,
      noSandbox: true,
      grid: { url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, default: true },
    });
    const childEnv = { ...process.env, CLAWD_HOME: childHome };
    const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      await waitFor(
        async () =>
          readToken(childHome) !== undefined &&
          (await fetch(`http://127.0.0.1:${control}/`, { headers: { authorization: `Bearer ${readToken(childHome)}` } }).then(
            (r) => r.ok,
            () => false,
          )),
        { timeoutMs: 20_000, message: 'serve did not start' },
      );
      const before = new Set(await sessionsOnGrid());
      // `default: true`: no `place` needed.
      const session = await new BrowserClient({ baseUrl: `http://127.0.0.1:${control}`, token: readToken(childHome)! }).openSession({
        credential_mode: 'clean',
      });
      expect(session.place).toBe('grid');
      const onGrid = (await sessionsOnGrid()).filter((id) => !before.has(id));
      expect(onGrid).toHaveLength(1);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // The Grid keeps a session whose client vanished until its own timeout: the reaper ends it now.
      expect(await sessionsOnGrid()).toContain(onGrid[0]);
      const first = await run(process.execPath, [CLI, '--json', 'reap'], { env: childEnv });
      expect(JSON.parse(first.stdout).reaped).toContainEqual({ id: session.id, killed: [] });
      expect(await sessionsOnGrid()).not.toContain(onGrid[0]);
      expect(JSON.parse((await run(process.execPath, [CLI, '--json', 'reap'], { env: childEnv })).stdout).reaped).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(childHome, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 60_000);

  it('a session the Grid ends (as its session timeout would, or an operator there) answers 410 and is reaped', async () => {
    const before = new Set(await sessionsOnGrid());
    const session = await api().openSession({ credential_mode: 'clean', place: 'grid' });
    const onGrid = (await sessionsOnGrid()).filter((id) => !before.has(id));
    expect(onGrid).toHaveLength(1);
    const ended = await fetch(`${grid.url}/session/${onGrid[0]}`, { method: 'DELETE', signal: AbortSignal.timeout(20_000) });
    expect(ended.status).toBe(200);
    await waitFor(
      () =>
        api(session.profile)
          .tabs()
          .then(
            () => false,
            (error) => error instanceof GoneError,
          ),
      { timeoutMs: 30_000, message: 'the session did not hear the Grid ended it' },
    );
    expect((await rejection(api(session.profile).tabs())).message).toMatch(
      new RegExp(`Task session ${session.id} was ended by the Grid on node http://127\\.0\\.0\\.1:\\d+ .*reaped`),
    );
    expect((await api().sessions()).sessions.map((s) => s.id)).not.toContain(session.id);
  }, 60_000);

  it('a node that dies mid-task: its sessions answer 410 "lost with node …" and are reaped; the others go on', async () => {
    const victim = grid.nodes[0];
    const lost = opened.filter((session) => session.node === victim.uri);
    const kept = opened.filter((session) => session.node !== victim.uri);
    expect(lost.length).toBeGreaterThan(0);
    victim.kill();
    for (const session of lost) {
      await waitFor(
        () =>
          api(session.profile)
            .tabs()
            .then(
              () => false,
              (error) => error instanceof GoneError,
            ),
        { timeoutMs: 30_000, message: `session ${session.id} did not hear its node died` },
      );
      const error = await rejection(api(session.profile).tabs());
      expect(error.message).toMatch(new RegExp(`Task session ${session.id} was lost with node ${victim.uri.replace(/[.:/]/g, '\\$&')}.*reaped`));
      const withKey = await fetch(`http://127.0.0.1:${server.control.port}/tabs?profile=${session.profile}`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(withKey.status).toBe(410);
    }
    const listed = (await api().sessions()).sessions.map((session) => session.id);
    for (const session of lost) expect(listed).not.toContain(session.id);
    for (const session of kept) {
      expect(listed).toContain(session.id);
      await api(session.profile).navigate(`${site.url}/account?after`);
      expect((await api(session.profile).evaluate("() => document.getElementById('who').textContent")).result).toBeTruthy();
    }
  }, 90_000);

  it("a full Grid is a 503 with the Grid's reason and a retry hint; a Grid that is down, a 503 naming it", async () => {
    // One node left with two slots: fill them, then one more request waits in the queue until the Grid gives up.
    // Until the hub's health check notices the dead node it may still route to it (the Grid's own "Connection error").
    await waitFor(async () => (await grid.status()).every((node) => node.uri !== grid.nodes[0].uri || node.availability !== 'UP'), {
      timeoutMs: 30_000,
      message: 'the hub never noticed the dead node',
    });
    const alive = (await grid.status()).filter((node) => node.availability === 'UP');
    expect(alive).toHaveLength(1);
    const filling: SessionInfo[] = [];
    while ((await grid.status()).find((node) => node.uri === alive[0].uri)!.sessions < SLOTS)
      filling.push(await api().openSession({ credential_mode: 'clean', place: 'grid' }));
    const full = await rejection(api().openSession({ credential_mode: 'clean', place: 'grid' }));
    expect(full).toBeInstanceOf(UnavailableError);
    expect(full.message).toMatch(new RegExp(`Selenium Grid at ${grid.url.replace(/[.:/]/g, '\\$&')} could not place the session: .*(timed out|timeout)`, 'i'));
    expect((full as UnavailableError).details).toMatchObject({ retryAfterSeconds: expect.any(Number) });
    for (const session of filling) await api().closeSession(session.id);

    const { control: nothing } = await freePortPair();
    // Credentials, in the URL or beside it, appear in no answer and no log line.
    for (const credentials of [
      { url: `http://grid-user:url-pass-8d1@127.0.0.1:${nothing}` },
      { url: `http://127.0.0.1:${nothing}`, username: 'grid-user', password: 'field-pass-8d1' },
    ]) {
      setGridConfig(credentials);
      const down = await rejection(api().openSession({ credential_mode: 'clean', place: 'grid' }));
      expect(down).toBeInstanceOf(UnavailableError);
      expect(down.message).toMatch(new RegExp(`^Selenium Grid at http://127\\.0\\.0\\.1:${nothing} is not reachable`));
      expect(JSON.stringify((down as UnavailableError).details)).not.toContain('pass-8d1');
    }
    setGridConfig({ url: grid.url, username: undefined, password: undefined });
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes('pass-8d1') || line.includes('grid-user'))).toEqual([]);
    // A local session still opens beside the Grid.
    const local = await api().openSession({ credential_mode: 'clean', place: 'local' });
    expect(local.place).toBe('local');
    await api().closeSession(local.id);
  }, 90_000);

  it('a node that dies while its CDP connection is idle: the keep-alive notices though the Grid keeps that connection open', async () => {
    // Grid 4.48's se:cdp proxy can hold an idle client's connection open for minutes after the node died
    // (seen here: 44–141 s), answering 5xx for the session meanwhile. The keep-alive's answers decide.
    const session = await GridSession.create({ url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, keepAliveSeconds: 2, requestTimeoutSeconds: 10 });
    const node = grid.nodes.find((candidate) => candidate.uri === session.nodeUri)!;
    expect(node).toBeDefined();
    const channel = await session.connect();
    let gone = false;
    session.onGone = () => {
      gone = true;
      channel.close();
    };
    const closed = new Promise<void>((resolve) => (channel.onclose = () => resolve()));
    node.kill();
    await waitFor(() => gone, { timeoutMs: 30_000, message: 'the keep-alive did not notice the node died' });
    await closed;
    expect(await session.lostBecause()).toBe(`lost with node ${node.uri} (it no longer answers)`);
    await session.end();
  }, 90_000);
});
