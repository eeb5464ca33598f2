import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';

/**
 * A server never ends without a word (issue: a `serve` that `mcp` started
 * stopped a minute into a trial, with no line in relay.log). What ended it:
 * MCP clients that stop the process tree they started when they disconnect
 * or reconnect (walking the children of their server by parent pid) reached
 * `serve`, a child of `mcp`, with SIGTERM, and serve's SIGTERM handler
 * stopped without logging. Now serve is no one's child, and every end
 * (a signal, a fatal error, one it could not write: SIGKILL) is in the log.
 * Real processes: the CLI, and `mcp` under the MCP SDK's own client.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

const parentOf = (pid: number) =>
  Number(
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')[1],
  );

/** A process and its descendants, found by parent pid, as MCP clients that stop a server's tree find them. */
function processTree(root: number): number[] {
  const all = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
  const children = (pid: number): number[] => all.filter((each) => !gone(each) && parentOf(each) === pid).flatMap((child) => [child, ...children(child)]);
  return [root, ...children(root)];
}

/** A home of its own on free ports; its server (however started) is stopped after the test. */
async function home(): Promise<{ clawd: string; userHome: string; control: number }> {
  const userHome = mkdtempSync(join(tmpdir(), 'clawd-exits-'));
  const clawd = join(userHome, '.clawd');
  mkdirSync(clawd, { mode: 0o700 });
  const { control } = await freePortPair();
  writeFileSync(join(clawd, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true }));
  cleanups.push(() => rmSync(userHome, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  cleanups.push(async () => {
    const pidFile = join(clawd, 'relay.pid');
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (gone(pid)) return;
    process.kill(pid, 'SIGTERM');
    await waitFor(() => gone(pid), { timeoutMs: 20_000, message: `serve ${pid} did not stop` });
  });
  return { clawd, userHome, control };
}

const log = (clawd: string) => (existsSync(join(clawd, 'relay.log')) ? readFileSync(join(clawd, 'relay.log'), 'utf8') : '');

/** `serve` as a person runs it, its log written to relay.log as when `mcp` starts it. */
function serve(clawd: string, nodeArgs: string[] = []): ChildProcess {
  const out = join(clawd, 'relay.log');
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
    env: { ...process.env, CLAWD_HOME: clawd, CLAWD_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const append = (chunk: Buffer) => writeFileSync(out, chunk, { flag: 'a' });
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return child;
}

const listening = (clawd: string) => waitFor(() => /control API listening/.test(log(clawd)), { timeoutMs: 20_000, message: 'serve did not start' });
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));

describe('a server never dies silently', () => {
  it('the serve `mcp` starts is no child of it: a client stopping its process tree stops mcp, and the server goes on', async () => {
    const { clawd, userHome, control } = await home();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { ...getDefaultEnvironment(), HOME: userHome },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'tree-stopping-client', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close().catch(() => {}));
    const status = (await client.callTool({ name: 'browser_status', arguments: {} })) as { isError?: boolean };
    expect(status.isError).toBeFalsy();
    const server = Number(readFileSync(join(clawd, 'relay.pid'), 'utf8'));
    const mcp = transport.pid!;
    expect(parentOf(server)).not.toBe(mcp);

    // What such a client does on disconnect: SIGTERM to its server and everything under it.
    const tree = processTree(mcp);
    expect(tree).not.toContain(server);
    for (const pid of tree) process.kill(pid, 'SIGTERM');
    await waitFor(() => gone(mcp), { timeoutMs: 10_000, message: 'mcp did not stop' });
    expect(gone(server)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${control}/`).catch(() => undefined))?.status).toBe(401);

    // And when it is stopped, the log says how.
    process.kill(server, 'SIGTERM');
    await waitFor(() => gone(server), { timeoutMs: 20_000, message: 'serve did not stop on SIGTERM' });
    expect(log(clawd)).toMatch(
      /info \[clawd-browser\] stopping: received SIGTERM \(from another process: a person, a service manager, or a program stopping the processes it started\)\n.*info \[clawd-browser\] exited \(code 0\)\n$/,
    );
  }, 90_000);

  it('a terminal that closes (SIGHUP) is said, then the exit', async () => {
    const { clawd } = await home();
    const child = serve(clawd);
    await listening(clawd);
    child.kill('SIGHUP');
    await exited(child);
    expect(child.exitCode).toBe(0);
    expect(log(clawd)).toMatch(/stopping: received SIGHUP \(the terminal that ran it closed\)\n.*exited \(code 0\)\n$/);
  }, 60_000);

  it('a fatal error is logged with its stack before the process ends', async () => {
    const { clawd } = await home();
    // A fault put into the real server: an exception nothing catches, once it listens (its server.json is written).
    const once = `import { existsSync } from 'node:fs';
      const waiting = setInterval(() => {
        if (!existsSync(process.env.CLAWD_HOME + '/server.json')) return;
        clearInterval(waiting);
        setTimeout(() => { throw new Error('injected fault'); }, 100);
      }, 50);`;
    const fault = `data:text/javascript,${encodeURIComponent(once)}`;
    const child = serve(clawd, ['--import', fault]);
    await exited(child);
    expect(child.exitCode).toBe(1);
    expect(log(clawd)).toMatch(/control API listening/);
    expect(log(clawd)).toMatch(/error \[clawd-browser\] exiting: a fatal error \(a bug; please report it\): Error: injected fault\n\s+at /);
    expect(log(clawd)).toMatch(/exited \(code 1\)\n$/);
  }, 60_000);

  it('an end no process can write (SIGKILL) is said by the next server of the home', async () => {
    const { clawd } = await home();
    const first = serve(clawd);
    await listening(clawd);
    first.kill('SIGKILL');
    await exited(first);
    const second = serve(clawd);
    cleanups.push(() => second.kill('SIGTERM'));
    await waitFor(() => (log(clawd).match(/control API listening/g) ?? []).length === 2, { timeoutMs: 20_000, message: 'the second serve did not start' });
    expect(log(clawd)).toContain(`warn [clawd-browser] the previous server of this home (pid ${first.pid}, started `);
    expect(log(clawd)).toMatch(/ended without stopping: it was killed \(SIGKILL, or the kernel's OOM killer\), or the machine stopped/);
    second.kill('SIGTERM');
    await exited(second);
  }, 60_000);
});
