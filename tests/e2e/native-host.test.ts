import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { BROWSERS, manifestDir } from '../../relay/src/native-host/install.js';
import { type LaunchedChromium, launchChromium, openTab, triggerExtensionAction, waitFor } from '../harness/chromium.js';
import { type FixtureServer, startFixtureServer } from '../harness/fixture-server.js';
import { freePortPair } from '../harness/ports.js';
import { EXTENSION_DIR, extensionReady } from '../harness/relay-env.js';

/**
 * The native messaging host: spawned directly as Chrome would, installed by
 * the real installer, and found by a real Chromium through its user-data-dir.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const ORIGIN = `chrome-extension://${EXTENSION_ID}/`;
const run = promisify(execFile);
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  return dir;
}

/** A CLAWD_HOME whose relay would listen on a free port. */
async function clawdHome(): Promise<{ home: string; relayPort: number; env: NodeJS.ProcessEnv }> {
  const home = tempDir('clawd-home-');
  const { relay: relayPort } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${relayPort - 1}` }));
  return { home, relayPort, env: { ...process.env, CLAWD_HOME: home } };
}

/** Talks to the host over stdio exactly as Chrome does. */
class HostProcess {
  readonly replies: any[] = [];
  readonly exited: Promise<number>;
  private stdout = Buffer.alloc(0);
  readonly child: ChildProcess;

  constructor(env: NodeJS.ProcessEnv, origin: string) {
    this.child = spawn(process.execPath, [CLI, 'native-host', origin], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.stdout = Buffer.concat([this.stdout, chunk]);
      while (this.stdout.length >= 4 && this.stdout.length >= 4 + this.stdout.readUInt32LE(0)) {
        const length = this.stdout.readUInt32LE(0);
        this.replies.push(JSON.parse(this.stdout.subarray(4, 4 + length).toString('utf8')));
        this.stdout = this.stdout.subarray(4 + length);
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code ?? -1)));
  }

  writeRaw(bytes: Buffer): void {
    this.child.stdin!.write(bytes);
  }

  send(message: unknown): void {
    const body = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message));
    const header = Buffer.alloc(4);
    header.writeUInt32LE(body.length, 0);
    this.writeRaw(Buffer.concat([header, body]));
  }

  async reply(count: number): Promise<any> {
    await waitFor(() => this.replies.length >= count, { timeoutMs: 15_000, message: `no reply #${count} from the host` });
    return this.replies[count - 1];
  }
}

describe('the host, spoken to as Chrome does', () => {
  it('bootstraps, reports status, and answers bad frames and unknown ops with errors', async () => {
    const { home, relayPort, env } = await clawdHome();
    const host = new HostProcess(env, ORIGIN);
    host.send({ op: 'bootstrap', id: 1, v: 1 });
    const boot = await host.reply(1);
    expect(boot).toMatchObject({ id: 1, ok: true, op: 'bootstrap', relayUrl: `ws://127.0.0.1:${relayPort}`, version: '0.1.0', protocol: 1 });
    // The extension key, never the client token: the extension proves the key and needs nothing else.
    expect(boot.extensionKey).toBe(readFileSync(join(home, 'extension-key'), 'utf8').trim());
    expect(boot.token).toBeUndefined();

    host.send({ op: 'status', id: 2 });
    expect(await host.reply(2)).toMatchObject({ id: 2, ok: true, relay: 'stopped', clawdHome: home });
    host.send({ op: 'fly', id: 3 });
    expect(await host.reply(3)).toMatchObject({
      id: 3,
      ok: false,
      error: { code: 'unknown_op', message: expect.stringMatching(/bootstrap, ensure_relay, status/) },
    });
    host.send('{"op": ');
    expect(await host.reply(4)).toMatchObject({ ok: false, error: { code: 'not_json' } });
    host.send({ op: 42, id: 'x' });
    expect(await host.reply(5)).toMatchObject({ id: 'x', ok: false, error: { code: 'bad_request', message: expect.stringMatching(/op/) } });
    host.send([1, 2]);
    expect(await host.reply(6)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    host.send({ op: 'status', v: 9 });
    expect(await host.reply(7)).toMatchObject({ ok: false, error: { code: 'unsupported_version' } });
    // A length far beyond any request: refused, its bytes skipped, and the host stays in step.
    const header = Buffer.alloc(4);
    header.writeUInt32LE(2 * 1024 * 1024, 0);
    host.writeRaw(Buffer.concat([header, Buffer.alloc(2 * 1024 * 1024, 0x20)]));
    expect(await host.reply(8)).toMatchObject({ ok: false, error: { code: 'too_large' } });
    host.send({ op: 'status', id: 9 });
    expect(await host.reply(9)).toMatchObject({ id: 9, ok: true });

    // Chrome closing the pipe mid-frame: a clean exit, no stack trace on stdout.
    host.writeRaw(Buffer.from([0x10, 0x00, 0x00]));
    host.child.stdin!.end();
    expect(await host.exited).toBe(0);
    expect(host.replies).toHaveLength(9);
  });

  it('refuses a caller whose origin is not in the manifest', async () => {
    const { env } = await clawdHome();
    const host = new HostProcess(env, 'chrome-extension://someoneelseentirelyxxxxxxxxxxxx/');
    host.send({ op: 'bootstrap', id: 1 });
    expect(await host.reply(1)).toMatchObject({ ok: false, error: { code: 'forbidden_origin' } });
    expect(await host.exited).toBe(1);
    expect(host.replies.some((r) => 'token' in r)).toBe(false);
  });
});

describe('install-native-host', () => {
  it("writes a valid manifest into each browser's Linux folder, and uninstall removes them", async () => {
    const home = tempDir('home-');
    const { env } = await clawdHome();
    const userEnv = { ...env, HOME: home, XDG_CONFIG_HOME: '' };
    const { stdout } = await run(process.execPath, [CLI, '--json', 'install-native-host', '--browser', 'all'], { env: userEnv });
    const result = JSON.parse(stdout);
    expect(result.manifests).toEqual(BROWSERS.map((b) => join(manifestDir(b, 'linux', home), 'com.clawd.browser_relay.json')));
    for (const path of result.manifests) {
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      expect(manifest).toEqual({
        name: 'com.clawd.browser_relay',
        description: expect.any(String),
        path: result.launcher,
        type: 'stdio',
        allowed_origins: [ORIGIN],
      });
    }
    expect(result.launcher.startsWith('/')).toBe(true);
    accessSync(result.launcher, constants.X_OK);

    const only = await run(process.execPath, [CLI, 'install-native-host', '--browser', 'edge', '--extension-id', 'abc', '--extension-id', 'def'], {
      env: userEnv,
    });
    expect(only.stdout).toContain('microsoft-edge/NativeMessagingHosts');
    const edge = JSON.parse(readFileSync(join(manifestDir('edge', 'linux', home), 'com.clawd.browser_relay.json'), 'utf8'));
    expect(edge.allowed_origins).toEqual(['chrome-extension://abc/', 'chrome-extension://def/']);
    const bad = await run(process.execPath, [CLI, 'install-native-host', '--browser', 'netscape'], { env: userEnv }).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/chrome, chromium, edge, brave, all/);

    await run(process.execPath, [CLI, 'uninstall-native-host', '--browser', 'all'], { env: userEnv });
    for (const path of result.manifests) expect(existsSync(path)).toBe(false);
    expect(existsSync(result.launcher)).toBe(false);
  });
});

describe('the extension finds the relay through the host', () => {
  let fixtures: FixtureServer;
  afterAll(async () => fixtures?.close());

  async function browserWithHost(env: NodeJS.ProcessEnv): Promise<LaunchedChromium> {
    fixtures ??= await startFixtureServer();
    const userDataDir = tempDir('chromium-profile-');
    await run(process.execPath, [CLI, 'install-native-host', '--browser', 'chromium', '--user-data-dir', userDataDir], { env });
    const browser = await launchChromium({ userDataDir, extensionDir: EXTENSION_DIR });
    cleanups.push(() => browser.close());
    await extensionReady(browser.cdp);
    return browser;
  }

  async function shareAndDrive(browser: LaunchedChromium, relayPort: number, token: string): Promise<void> {
    const url = fixtures.url('index.html?native=1');
    const { tabTargetId } = await openTab(browser.cdp, url);
    await triggerExtensionAction(browser.cdp, EXTENSION_ID, tabTargetId);
    const client = await waitForClient(`ws://127.0.0.1:${relayPort}/cdp?token=${token}`, url);
    try {
      const page = client
        .contexts()[0]
        .pages()
        .find((p) => p.url() === url)!;
      await page.click('#btn');
      expect(await page.textContent('#count')).toBe('1');
    } finally {
      await client.close();
    }
  }

  /** Connects once the relay lists the shared tab. */
  async function waitForClient(cdpUrl: string, url: string) {
    await waitFor(
      async () => {
        const list = await fetch(cdpUrl.replace('ws://', 'http://').replace('/cdp?', '/json/list?')).then(
          (r) => r.json(),
          () => [],
        );
        return (list as Array<{ url: string }>).some((t) => t.url === url);
      },
      { timeoutMs: 20_000, message: 'the tab never reached the relay' },
    );
    return chromium.connectOverCDP(cdpUrl);
  }

  it('pairs with no copy-paste: a click shares the tab with a running relay', async () => {
    const { relayPort, env } = await clawdHome();
    const token = (await run(process.execPath, [CLI, 'token'], { env })).stdout.trim();
    const relay = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env, stdio: 'ignore' });
    cleanups.push(() => relay.kill('SIGTERM'));
    const browser = await browserWithHost(env);
    await shareAndDrive(browser, relayPort, token);
  });

  it('starts the relay when it is not running; the relay outlives the browser', async () => {
    const { home, relayPort, env } = await clawdHome();
    const browser = await browserWithHost(env);
    const token = readFileSync(join(home, 'token'), 'utf8').trim();
    expect(existsSync(join(home, 'relay.pid'))).toBe(false);
    await shareAndDrive(browser, relayPort, token);

    const pid = Number(readFileSync(join(home, 'relay.pid'), 'utf8'));
    cleanups.push(() => {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    });
    await browser.close();
    const status = await fetch(`http://127.0.0.1:${relayPort}/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ extension: expect.stringMatching(/reconnecting|absent/) });
    expect(readFileSync(join(home, 'relay.log'), 'utf8')).toContain('relay listening');
    // Only the user reads what the relay logs.
    expect(statSync(join(home, 'relay.log')).mode & 0o777).toBe(0o600);
  });
});
