import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { createLogger } from '../../relay/src/log.js';
import { type LaunchedChromium, launchChromium, waitFor } from './chromium.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { freePortPair } from './ports.js';
import { freshHome } from './control-env.js';

/**
 * A person's own Chromium, running with remote debugging allowed the way a
 * person's Chrome does after chrome://inspect/#remote-debugging: it writes
 * DevToolsActivePort into its user data folder (a temporary one here), and
 * clawd-browser finds it there (config chrome.userDataDir). Headless, it
 * cannot show Chrome's "Allow remote debugging?" prompt: it allows the
 * connection at once. The test's own pipe and Playwright connection to it
 * are the person's hands, never clawd-browser's.
 */
export interface ChromeEnv {
  home: string;
  server: ClawdServer;
  fixtures: FixtureServer;
  /** The person's browser (its pipe: the person's hands). */
  person: LaunchedChromium;
  userDataDir: string;
  /** The person's own Playwright, connected straight to their browser: it drives the picker as they would. */
  personPlaywright(): Promise<Browser>;
  /** The token's control-API client for the chrome profile. */
  client(): BrowserClient;
  /** fetch against the control API with the token. */
  raw(path: string, init?: RequestInit): Promise<Response>;
  /** Opens the picker in the person's browser (as `clawd-browser chrome pick` does) and answers with its page. */
  openPicker(): Promise<Page>;
  /** Stops the person's browser: killed (SIGKILL), it leaves DevToolsActivePort behind, as a crash does. */
  stopPerson(options?: { kill?: boolean }): Promise<void>;
  /** Starts the person's browser again on the same folder (a fresh DevToolsActivePort, another port). */
  startPerson(): Promise<void>;
  close(): Promise<void>;
}

export async function startChromeEnv(): Promise<ChromeEnv> {
  const ports = await freePortPair();
  const userDataDir = mkdtempSync(join(tmpdir(), 'clawd-person-chrome-'));
  const home = freshHome({
    controlUrl: `http://127.0.0.1:${ports.control}`,
    headless: true,
    noSandbox: true,
    chrome: { userDataDir, answerTimeoutSeconds: 10 },
  });
  const server = await startServer({ home, logger: createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn') });
  const fixtures = await startFixtureServer();
  let person = await launchChromium({ userDataDir, remoteDebuggingPort: 0 });
  let playwright: Browser | undefined;
  const base = `http://127.0.0.1:${server.control.port}`;
  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...init.headers } });
  const personPlaywright = async () => (playwright?.isConnected() ? playwright : (playwright = await chromium.connectOverCDP(person.httpEndpoint!)));
  return {
    home,
    server,
    fixtures,
    get person() {
      return person;
    },
    userDataDir,
    personPlaywright,
    client: () => new BrowserClient({ baseUrl: base, token: server.token, profile: 'chrome' }),
    raw,
    async openPicker() {
      const answer = await raw('/chrome/picker/open', { method: 'POST' });
      if (answer.status !== 200) throw new Error(`opening the picker: HTTP ${answer.status} ${await answer.text()}`);
      const browser = await personPlaywright();
      let picker: Page | undefined;
      // Its page is at a path of its own login's, which only the person's browser knows.
      const at = new RegExp(`^${base}/chrome/picker/[\\w-]{20,}/$`);
      await waitFor(
        () =>
          (picker = browser
            .contexts()[0]
            .pages()
            .find((page) => at.test(page.url()))) !== undefined,
        { message: "the picker did not open in the person's browser" },
      );
      await picker!.locator('#tabs li').first().waitFor();
      return picker!;
    },
    async stopPerson({ kill = false } = {}) {
      await playwright?.close().catch(() => {});
      playwright = undefined;
      if (kill) person.process.kill('SIGKILL');
      await person.close();
    },
    async startPerson() {
      person = await launchChromium({ userDataDir, remoteDebuggingPort: 0 });
    },
    async close() {
      await playwright?.close().catch(() => {});
      await person.close();
      await server.close();
      await fixtures.close();
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
