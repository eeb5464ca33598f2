import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../relay/src/api/session-responses.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { readToken } from '../../relay/src/config/state-dir.js';
import { waitFor } from '../harness/chromium.js';
import { listeningPorts, parentOf, processTree } from '../harness/listening-sockets.js';
import { freePortPair } from '../harness/ports.js';
import { startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * No open door (spec §9), tried as a local process without a credential
 * would: `serve` runs as a process of its own with the managed `clawd`
 * profile, two task sessions and the warm spare started; none of their
 * Chromiums listens on any port, and each one's only CDP is the relay's
 * `/cdp?profile=`, which refuses Playwright without a credential and serves
 * Playwright and Puppeteer with one. A session's key opens its own session
 * and nothing else; every client connection to a session is in its audit.
 * Killed with SIGKILL, the server takes its browsers with it.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));

let server: ChildProcess;
let home: string;
let token: string;
let ports: { control: number; relay: number };
let site: Awaited<ReturnType<typeof startTestSite>>;
let sessions: SessionInfo[];
let clawdCdpUrl: string;

const api = (profile?: string) => new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token, profile });
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/**
 * The Chromium main processes `serve` launched (their helpers are their
 * children), each with its command line as read once. A process forked from
 * one shows the same command line until it execs (a Chromium helper, or a
 * subshell of Debian's /usr/bin/chromium wrapper script while it launches):
 * only candidates whose parent is not one count. One that has exited and
 * awaits its reaping reads as an empty command line, and is gone.
 */
function browserProcesses(): Array<{ pid: number; argv: string[] }> {
  const candidates = processTree(server.pid!).flatMap((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.some((arg) => arg.startsWith('--user-data-dir=')) && !argv.some((arg) => arg.startsWith('--type=')) ? [{ pid, argv }] : [];
    } catch {
      return [];
    }
  });
  const pids = candidates.map((candidate) => candidate.pid);
  return candidates.filter((candidate) => !pids.includes(parentOf(candidate.pid)));
}

beforeAll(async () => {
  ports = await freePortPair();
  home = freshHome({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, noSandbox: true });
  server = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(
    async () =>
      readToken(home) !== undefined &&
      (await fetch(`http://127.0.0.1:${ports.control}/`, { headers: bearer(readToken(home)!) }).then(
        (r) => r.ok,
        () => false,
      )),
    { timeoutMs: 20_000, message: 'serve did not start' },
  );
  token = readToken(home)!;
  site = await startTestSite((_request, response, url) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${url.pathname}</title><p id="at">${url.pathname}</p>`);
  });
  await api('clawd').openTab(`${site.url}/managed`);
  clawdCdpUrl = (await api('clawd').status()).cdpUrl;
  sessions = [await api().openSession({ credential_mode: 'clean' }), await api().openSession({ credential_mode: 'clean' })];
  // The managed browser, both sessions and the spare made after the first session, launched and settled
  // (a launching spare's wrapper shell and exec chain show its command line for a moment).
  await waitFor(
    async () => {
      const { spares } = await api().sessions();
      return spares.ready === 1 && spares.starting === 0 && browserProcesses().length === 4;
    },
    { timeoutMs: 20_000, message: 'the warm spare did not start' },
  );
}, 90_000);

afterAll(async () => {
  if (server?.exitCode === null) server.kill('SIGKILL');
  await site?.close();
  // The server was killed with its sessions open: what their jails hold on this machine is reaped, as a user would.
  if (home) {
    await new Promise((resolve) => execFile(process.execPath, [CLI, 'reap'], { env: { ...process.env, CLAWD_HOME: home } }, resolve));
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
});

describe('no open CDP door', () => {
  it('no browser clawd-browser started listens on any port: only the control API, the relay and egress proxies do', async () => {
    const browsers = browserProcesses();
    expect(browsers).toHaveLength(4);
    for (const { argv } of browsers) {
      expect(argv).toContain('--remote-debugging-pipe');
      expect(argv.filter((arg) => arg.startsWith('--remote-debugging-port'))).toEqual([]);
    }
    const listening = listeningPorts(processTree(server.pid!));
    // The server's own two ports are seen (the scan works).
    const own = listening.filter(({ port }) => port === ports.control || port === ports.relay).map(({ pid, port }) => ({ pid, port }));
    expect(own.sort((a, b) => a.port - b.port)).toEqual([ports.control, ports.relay].sort((a, b) => a - b).map((port) => ({ pid: server.pid, port })));
    // Anything else of its tree that listens here is the server's own egress proxy for a browser on this
    // machine's network (a jailed session's is a unix socket): it relays proxied requests by the URL
    // policy and speaks no CDP.
    const others = listening.filter(({ port }) => port !== ports.control && port !== ports.relay);
    for (const { pid, port } of others) {
      expect(pid).toBe(server.pid);
      const answer = await fetch(`http://127.0.0.1:${port}/json/version`);
      expect(answer.status).toBe(400);
      expect(await answer.text()).toMatch(/^clawd-browser egress: only proxied http:\/\/ requests and CONNECT are served/);
    }
  });

  it('each cdpUrl is the relay, refuses Playwright without a credential, and serves it (and Puppeteer) with one', async () => {
    const urls = [clawdCdpUrl, ...sessions.map((session) => session.cdpUrl)];
    expect(urls).toEqual([
      `ws://127.0.0.1:${ports.relay}/cdp?profile=clawd`,
      ...sessions.map((session) => `ws://127.0.0.1:${ports.relay}/cdp?profile=${session.profile}`),
    ]);
    for (const url of urls) {
      await expect(chromium.connectOverCDP(url, { timeout: 5_000 })).rejects.toThrow(/401 Unauthorized/);
      await expect(chromium.connectOverCDP(url, { timeout: 5_000, headers: bearer('0'.repeat(64)) })).rejects.toThrow(/401 Unauthorized/);
    }

    const managed = await chromium.connectOverCDP(clawdCdpUrl, { headers: bearer(token) });
    try {
      const page = managed
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().endsWith('/managed'))!;
      expect(await page.textContent('#at')).toBe('/managed');
      // Its cookie jar, which a process without the token could read before through the port.
      await managed.contexts()[0].addCookies([{ name: 'seen', value: 'by-token', url: site.url }]);
      expect((await managed.contexts()[0].cookies(site.url)).map((cookie) => cookie.name)).toContain('seen');
    } finally {
      await managed.close();
    }

    // The token as a query parameter, and Chrome's HTTP discovery, for clients that cannot send headers.
    const viaQuery = await chromium.connectOverCDP(`http://127.0.0.1:${ports.relay}/?profile=clawd&token=${token}`);
    expect(viaQuery.contexts()[0].pages().length).toBeGreaterThan(0);
    await viaQuery.close();

    const [session] = sessions;
    const pptr = await puppeteer.connect({ browserWSEndpoint: session.cdpUrl, headers: bearer(session.key!), defaultViewport: null });
    try {
      const page = await pptr.newPage();
      await page.goto(`${site.url}/puppeteer`);
      expect(await page.$eval('#at', (element) => element.textContent)).toBe('/puppeteer');
      await page.close();
    } finally {
      await pptr.disconnect();
    }
    // The tabs the clients used are the driver's too: one browser, many clients.
    expect((await api('clawd').tabs()).map((tab) => new URL(tab.url).pathname)).toContain('/managed');
  });

  it("a session's key opens its own session's CDP and is refused at every other", async () => {
    const [mine, other] = sessions;
    const own = await chromium.connectOverCDP(mine.cdpUrl, { headers: bearer(mine.key!) });
    const page = await own.contexts()[0].newPage();
    await page.goto(`${site.url}/own`);
    expect(await page.textContent('#at')).toBe('/own');
    await own.close();
    for (const url of [other.cdpUrl, clawdCdpUrl, `ws://127.0.0.1:${ports.relay}/cdp`, `ws://127.0.0.1:${ports.relay}/cdp?profile=extension`]) {
      const refused = await chromium.connectOverCDP(url, { timeout: 5_000, headers: bearer(mine.key!) }).then(
        () => 'connected',
        (error: Error) => error.message,
      );
      expect(refused, url).toMatch(/403 Forbidden/);
      expect(refused, url).toMatch(/reaches its own session only/);
      expect(refused, url).not.toContain(other.id);
    }
    // The audit names every client connection to a session, and the credential it came with.
    const audit = readFileSync(join(home, 'logs', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; session?: string; detail?: string });
    const connections = audit.filter((entry) => entry.session === mine.id && entry.event.startsWith('cdp-'));
    expect(connections).toContainEqual(expect.objectContaining({ event: 'cdp-connect', detail: 'credential: session key' }));
    expect(connections).toContainEqual(expect.objectContaining({ event: 'cdp-disconnect', detail: 'credential: session key' }));
    expect(audit.filter((entry) => entry.session === other.id && entry.event === 'cdp-connect')).toEqual([]);

    // Once the session ends, its key opens nothing, and says why.
    await api().closeSession(mine.id);
    const ended = await chromium.connectOverCDP(mine.cdpUrl, { timeout: 5_000, headers: bearer(mine.key!) }).then(
      () => 'connected',
      (error: Error) => error.message,
    );
    expect(ended).toMatch(new RegExp(`401 Unauthorized[\\s\\S]*task session ${mine.id}, which ended at`));
  });

  it('killed with SIGKILL, the server takes every browser it launched with it; the profile data stays', async () => {
    const browsers = browserProcesses().map(({ pid }) => pid);
    expect(browsers.length).toBeGreaterThanOrEqual(3);
    server.kill('SIGKILL');
    await new Promise((resolve) => server.once('exit', resolve));
    const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    await waitFor(() => browsers.every((pid) => !alive(pid)), { timeoutMs: 15_000, message: `browsers outlived their server: ${browsers.filter(alive)}` });
    expect(existsSync(join(home, 'browser', 'clawd', 'user-data', 'Default'))).toBe(true);
  });
});
