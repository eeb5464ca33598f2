import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROL_PORT, DEFAULT_RELAY_PORT } from '../../protocol/constants.js';
import { findProfileProcesses, killProcesses } from '../../relay/src/profiles/orphans.js';
import { CDP_PORTS } from '../../relay/src/profiles/profile-registry.js';
import { waitFor } from '../harness/chromium.js';
import { startFixtureServer } from '../harness/fixture-server.js';
import { freePortPair } from '../harness/ports.js';

/**
 * `clawd-browser mcp` as an MCP client starts it the first time: the SDK's
 * own client spawns it with the SDK's minimal environment (HOME, PATH, SHELL,
 * TERM, USER, LOGNAME: no CLAWD_HOME, no DISPLAY), HOME a fresh empty
 * folder, nothing listening. It must make its home, start `serve` in the
 * background and drive a page; and when the server cannot start, it must
 * stay up and answer every tool call with why (issue 26: it exited, and the
 * client only saw "Connection closed").
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh, empty HOME: what `~` is for the server; removed after the test. */
function freshHome(): { home: string; clawd: string } {
  const home = mkdtempSync(join(tmpdir(), 'clawd-first-run-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const clawd = join(home, '.clawd');
  // Registered now so it runs before the folder goes, whatever the test got to.
  cleanups.push(() => stopBackgroundServer(clawd, { quiet: true }));
  return { home, clawd };
}

async function connectMcp(home: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    // What an MCP client passes (the SDK adds these itself; spelled out here): not this shell's environment.
    env: { ...getDefaultEnvironment(), HOME: home },
    stderr: 'pipe',
  });
  const errors: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const client = new Client({ name: 'first-run-agent', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, stderr: () => errors.join('') };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
  return { text: result.content.map((part) => part.text ?? `<${part.type}>`).join('\n'), isError: result.isError === true };
}

const mode = (path: string) => statSync(path).mode & 0o777;

async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Gone, or a zombie nobody reaped yet (a container's pid 1 may never reap it). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const profileData = (clawd: string) => join(clawd, 'browser', 'clawd', 'user-data');

/**
 * Stops the `serve` that `mcp` started in the background (it outlives the
 * MCP session until unused for idleStopMinutes) the way a user would: SIGTERM to the pid in
 * relay.pid, whose handler stops the managed browsers before exiting. Then
 * no Chromium of the profile may be left. `quiet` (cleanup): no assertions,
 * and whatever is still there is killed.
 */
async function stopBackgroundServer(clawd: string, { quiet = false } = {}): Promise<void> {
  const pidFile = join(clawd, 'relay.pid');
  try {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await waitFor(() => processGone(pid), { timeoutMs: 20_000, message: `serve (pid ${pid}) did not exit on SIGTERM` });
      expect(existsSync(pidFile)).toBe(false);
    }
    await waitFor(() => findProfileProcesses(profileData(clawd)).length === 0, { timeoutMs: 10_000, message: 'Chromium outlived serve' });
  } catch (error) {
    if (!quiet) throw error;
  } finally {
    if (quiet) await killProcesses(findProfileProcesses(profileData(clawd)));
  }
}

describe('clawd-browser mcp, first run from an MCP client', () => {
  it('makes its home, starts the server and drives a page, from a fresh HOME and the SDK default environment', async () => {
    const fixtures = await startFixtureServer();
    cleanups.push(() => fixtures.close());
    const { home, clawd } = freshHome();
    // The true first run uses the default ports. The only way to choose others
    // without CLAWD_HOME is config.json in the home, so where they are taken
    // (another server on this machine, a CI neighbour) the test writes one with
    // free ports, and the home exists before the run. (Headless and
    // --no-sandbox need no config: with no DISPLAY the managed browser runs
    // headless, and as root launchSettings adds --no-sandbox; see managed-browser.ts.)
    const defaultsFree = (await Promise.all([DEFAULT_CONTROL_PORT, DEFAULT_RELAY_PORT, CDP_PORTS.first].map(isFree))).every(Boolean);
    if (!defaultsFree) {
      const { control } = await freePortPair();
      const cdpPort = (await freePortPair()).control;
      mkdirSync(clawd, { mode: 0o700 });
      writeFileSync(join(clawd, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, profiles: { clawd: { cdpPort } } }));
    }

    const { client, stderr } = await connectMcp(home);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);

    const opened = await call(client, 'browser_tabs', { action: 'open', url: fixtures.url('index.html') });
    expect(opened, stderr()).toMatchObject({ isError: false });
    const targetId = /^Opened (\S+)/.exec(opened.text)![1];

    // What the first run made, with the permissions `serve` uses.
    expect(mode(clawd)).toBe(0o700);
    expect(mode(join(clawd, 'relay.log'))).toBe(0o600);
    expect(mode(join(clawd, 'token'))).toBe(0o600);
    expect(existsSync(join(clawd, 'config.json'))).toBe(true);
    expect(readFileSync(join(clawd, 'relay.log'), 'utf8')).toContain('relay listening');

    const snapshot = await call(client, 'browser_snapshot', { targetId });
    expect(snapshot.isError).toBe(false);
    expect(snapshot.text).toMatch(/heading "Fixture Home"/);
    expect(snapshot.text).toMatch(/button "Click me" \[ref=\w+\]/);

    // The managed browser, as the environment decides: no display, so headless; root cannot use the sandbox.
    if (process.platform === 'linux') {
      const browsers = findProfileProcesses(profileData(clawd))
        .map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
        .filter((argv) => argv.includes('--remote-debugging-pipe'));
      expect(browsers).toHaveLength(1);
      expect(browsers[0]).toContain('--headless');
      if (process.getuid?.() === 0) expect(browsers[0]).toContain('--no-sandbox');
    }

    // The server outlives the MCP session (until unused for idleStopMinutes): stop it as a user would, and nothing is left.
    await stopBackgroundServer(clawd);
  }, 120_000);

  it('a server that cannot start (config.json is not JSON) is a tool error, and the next call tries again', async () => {
    const { home, clawd } = freshHome();
    mkdirSync(clawd, { mode: 0o700 });
    const configFile = join(clawd, 'config.json');
    writeFileSync(configFile, '{ "controlUrl": ');

    const { client, stderr } = await connectMcp(home);
    // Still serving MCP: the tools are listed.
    expect((await client.listTools()).tools).toHaveLength(7);
    for (const attempt of [1, 2]) {
      const failed = await call(client, 'browser_status');
      expect(failed.isError, `attempt ${attempt}`).toBe(true);
      expect(failed.text).toContain('The clawd-browser server could not start:');
      expect(failed.text).toContain(`${configFile} is not valid JSON`);
      expect(failed.text).toContain('the next tool call tries again');
    }
    // Said on stderr at launch too: MCP clients keep a server's stderr in their logs.
    await waitFor(() => stderr().includes(`${configFile} is not valid JSON`), { message: 'no start-up error on stderr' });

    // The user fixes the file; the next call starts the server.
    const { control } = await freePortPair();
    const cdpPort = (await freePortPair()).control;
    writeFileSync(configFile, JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, profiles: { clawd: { cdpPort } } }));
    const status = await call(client, 'browser_status');
    expect(status.isError, status.text).toBe(false);
    expect(status.text).toMatch(/profiles: clawd \(clawd, default\)/);
    expect(existsSync(join(clawd, 'relay.pid'))).toBe(true);
    await stopBackgroundServer(clawd);
  }, 60_000);

  it('a serve that exits at start is a tool error with the end of its log and where the log is', async () => {
    const { home, clawd } = freshHome();
    mkdirSync(clawd, { mode: 0o700 });
    const { control, relay } = await freePortPair();
    writeFileSync(join(clawd, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}` }));
    // Something else holds the relay's port: serve cannot listen and exits.
    const holder: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(relay, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => holder.close(resolve)));

    const { client } = await connectMcp(home);
    const failed = await call(client, 'browser_snapshot');
    expect(failed.isError).toBe(true);
    // The port named is the one taken, and the way out is one `mcp` has (it has no --port).
    expect(failed.text).toMatch(
      new RegExp(
        `^Error: The clawd-browser server could not start: clawd-browser serve exited at start: .*Port ${relay} on 127\\.0\\.0\\.1 \\(the relay's, one above the control API's ${control}\\) is already in use`,
      ),
    );
    expect(failed.text).toContain('set controlUrl in config.json');
    expect(failed.text).not.toContain('--port');
    expect(failed.text).toContain(`(log: ${join(clawd, 'relay.log')})`);
    expect(readFileSync(join(clawd, 'relay.log'), 'utf8')).toContain(
      `Port ${relay} on 127.0.0.1 (the relay's, one above the control API's ${control}) is already in use`,
    );
  }, 60_000);
});

describe('nothing left running that nobody uses (config idleStopMinutes)', () => {
  /** A home whose browsers and self-started server count 3 s unused as idle. */
  async function idleHome(): Promise<{ home: string; clawd: string; control: number }> {
    const { home, clawd } = freshHome();
    mkdirSync(clawd, { mode: 0o700 });
    const { control } = await freePortPair();
    const cdpPort = (await freePortPair()).control;
    writeFileSync(
      join(clawd, 'config.json'),
      JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, idleStopMinutes: 0.05, profiles: { clawd: { cdpPort } } }),
    );
    return { home, clawd, control };
  }
  const serverPid = (clawd: string) => (existsSync(join(clawd, 'relay.pid')) ? Number(readFileSync(join(clawd, 'relay.pid'), 'utf8')) : undefined);

  it('the serve that mcp started stops its unused browser and exits, saying so; a client still connected starts it again', async () => {
    const fixtures = await startFixtureServer();
    cleanups.push(() => fixtures.close());
    const { home, clawd } = await idleHome();
    const { client, stderr } = await connectMcp(home);
    const opened = await call(client, 'browser_tabs', { action: 'open', url: fixtures.url('index.html') });
    expect(opened.isError, stderr()).toBe(false);
    const first = serverPid(clawd)!;
    expect(findProfileProcesses(profileData(clawd)).length).toBeGreaterThan(0);

    // The agent thinks for a while (the client stays connected, calling nothing): the browser stops, then the server exits.
    await waitFor(() => processGone(first), { timeoutMs: 30_000, message: 'the serve mcp started never exited while unused' });
    await waitFor(() => findProfileProcesses(profileData(clawd)).length === 0, { timeoutMs: 10_000, message: 'Chromium outlived serve' });
    const log = readFileSync(join(clawd, 'relay.log'), 'utf8');
    expect(log).toMatch(/stopping the clawd browser: unused for \d+ s \(config idleStopMinutes\)/);
    expect(log).toMatch(/exiting: started by mcp or the native host, and unused for \d+ s/);
    expect(existsSync(join(clawd, 'server.json'))).toBe(false);

    // The next call finds no server and starts one.
    const again = await call(client, 'browser_tabs', { action: 'open', url: fixtures.url('index.html?again=1') });
    expect(again.isError, again.text).toBe(false);
    const second = serverPid(clawd)!;
    expect(second).not.toBe(first);

    // The client leaves for good: this server goes too, and takes its browser.
    await client.close();
    await waitFor(() => processGone(second), { timeoutMs: 30_000, message: 'the serve mcp started never exited after its client left' });
    await waitFor(() => findProfileProcesses(profileData(clawd)).length === 0, { timeoutMs: 10_000, message: 'Chromium outlived serve' });
  }, 120_000);

  it('a serve a person started stays up; its browser stops once unused, and a connected CDP client keeps it in use', async () => {
    const fixtures = await startFixtureServer();
    cleanups.push(() => fixtures.close());
    const { clawd, control } = await idleHome();
    const { spawn } = await import('node:child_process');
    const serve = spawn(process.execPath, [CLI, 'serve', '--log-level', 'info'], {
      env: { ...process.env, CLAWD_HOME: clawd },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    serve.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    cleanups.push(() => stopBackgroundServer(clawd, { quiet: true }));
    const base = `http://127.0.0.1:${control}`;
    await waitFor(
      () =>
        fetch(`${base}/`).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 15_000, message: 'serve did not come up' },
    );
    const token = readFileSync(join(clawd, 'token'), 'utf8').trim();
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const running = async () => ((await (await api('/?profile=clawd')).json()) as { running?: boolean }).running === true;

    expect((await api('/tabs/open?profile=clawd', { method: 'POST', body: JSON.stringify({ url: fixtures.url('index.html') }) })).status).toBe(200);
    // A CDP client holds the browser: three idle periods pass and it still runs.
    const { chromium } = await import('playwright-core');
    const status = (await (await api('/?profile=clawd')).json()) as { cdpUrl: string };
    const browser = await chromium.connectOverCDP(`${status.cdpUrl}&token=${token}`);
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    expect(await running()).toBe(true);
    await browser.close();

    // Let go: it stops, and the server a person started stays.
    await waitFor(async () => !(await running()), { timeoutMs: 20_000, message: 'the unused browser was never stopped' });
    expect(log).toMatch(/stopping the clawd browser: unused for/);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(serve.exitCode).toBeNull();
    expect((await api('/?profile=clawd')).status).toBe(200);
    await stopBackgroundServer(clawd);
  }, 90_000);
});
