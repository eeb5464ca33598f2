import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { createLogger, type Logger } from '../../relay/src/log.js';
import { type LaunchedChromium, launchChromium, openTab, setExtensionStorage, triggerExtensionAction, waitFor } from './chromium.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { freePortPair } from './ports.js';
import { EXTENSION_DIR, extensionReady } from './relay-env.js';

/**
 * What `serve` runs (control API + relay), in this process, with both kinds of
 * browser behind it: the managed `clawd` profile (headless Chromium it
 * launches) and the `extension` profile (a "user" Chromium with the real
 * extension, one tab shared).
 */
export interface ControlEnv {
  home: string;
  server: ClawdServer;
  fixtures: FixtureServer;
  userBrowser: LaunchedChromium;
  clawdPort: number;
  client(profile: string): BrowserClient;
  /** fetch against the control API with the token. */
  raw(path: string, init?: RequestInit): Promise<Response>;
  /** Replaces the server (same home): for restart tests. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A home with `config`. Task sessions there browse this machine's own test
 * sites, which their default policy (public addresses only) would refuse:
 * unless the test sets a `urlPolicy`, the home says `{mode: "any"}`.
 */
export function freshHome(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'clawd-control-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ urlPolicy: { mode: 'any' }, ...config }));
  return dir;
}

export interface ControlEnvOptions {
  /** Collects every line the server logs (debug and up), for tests of what logs may hold. */
  logLines?: string[];
  /** Switches for the user's own Chromium beyond the harness's (a feature the person turned on). */
  userBrowserArgs?: string[];
  /** The user's Chromium also listens on a DevTools port (userBrowser.wsEndpoint): a test's Playwright is the person's hands there. */
  userBrowserPort?: boolean;
}

export async function startControlEnv(options: ControlEnvOptions = {}): Promise<ControlEnv> {
  const ports = await freePortPair();
  const clawdPort = (await freePortPair()).control;
  const home = freshHome({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, noSandbox: true, profiles: { clawd: { cdpPort: clawdPort } } });
  const logger = (): Logger => {
    const lines = options.logLines;
    if (!lines) return createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn');
    const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  };
  let server = await startServer({ home, logger: logger() });
  const fixtures = await startFixtureServer();
  const userBrowser = await launchChromium({
    extensionDir: EXTENSION_DIR,
    extraArgs: options.userBrowserArgs,
    ...(options.userBrowserPort ? { remoteDebuggingPort: 0 } : {}),
  });
  await extensionReady(userBrowser.cdp);
  await setExtensionStorage(userBrowser.cdp, EXTENSION_ID, 'local', {
    pairing: { relayUrl: `ws://127.0.0.1:${server.relay.port}`, key: server.extensionKey, via: 'manual' },
  });
  await waitFor(() => server.relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: 'extension did not connect' });
  const { tabTargetId } = await openTab(userBrowser.cdp, fixtures.url('index.html?user=1'));
  await triggerExtensionAction(userBrowser.cdp, EXTENSION_ID, tabTargetId);
  await waitFor(() => server.relay.bridge.sharedTabs().length === 1, { message: 'user tab not shared' });

  return {
    home,
    get server() {
      return server;
    },
    fixtures,
    userBrowser,
    clawdPort,
    client: (profile) => new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token, profile }),
    raw: (path, init = {}) =>
      fetch(`http://127.0.0.1:${server.control.port}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...init.headers },
      }),
    async restart() {
      await server.close();
      server = await startServer({ home, logger: logger() });
    },
    async close() {
      await userBrowser.close();
      await server.close();
      await fixtures.close();
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));

/** `clawd-browser …` against the env's server and home (the built CLI, as a user runs it), `stdin` piped in; answers its stdout. */
export function runCli(env: Pick<ControlEnv, 'home' | 'server'>, args: string[], stdin = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, '--url', `http://127.0.0.1:${env.server.control.port}`, ...args],
      { env: { ...process.env, CLAWD_HOME: env.home } },
      (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(stdout.trim())),
    );
    child.stdin!.end(stdin);
  });
}
