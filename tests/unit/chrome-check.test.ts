import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkChrome } from '../../relay/src/cli/chrome-check.js';
import { ConfigSchema } from '../../relay/src/config/config.js';

/**
 * `clawd-browser doctor`'s check of the chrome profile (cli/chrome-check.ts),
 * on a home whose browser folders say each thing a person's machine can: it
 * reads them and knocks on the port, and never opens a DevTools connection,
 * which would make Chrome ask the person.
 */

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function personHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'clawd-doctor-chrome-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

/** A Chrome user data folder under `home` (its default place), as a running browser leaves it. */
function chromeFolder(home: string, files: Record<string, string>, running = true): string {
  const dir = join(home, '.config', 'google-chrome');
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  if (running) symlinkSync(`${hostname()}-${process.pid}`, join(dir, 'SingletonLock'));
  return dir;
}

async function listeningPort(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as { port: number }).port, connections: () => connections };
}

const config = (chrome: object = {}) => ConfigSchema.parse({ chrome });
const state = {
  state: 'attached' as const,
  lentTabs: 2,
  browser: { title: 'Google Chrome', userDataDir: '/home/p/.config/google-chrome', product: 'Chrome/150.0.1.2', profiles: ['Person 1'] },
};

describe("doctor's chrome check", () => {
  it('attached: which browser and profiles, how many tabs lent, and another tool attached to tabs', async () => {
    expect(await checkChrome(config(), state, 'linux', personHome())).toEqual([
      { name: 'chrome', verdict: 'ok', detail: 'attached to Chrome/150.0.1.2 (/home/p/.config/google-chrome; profiles open: Person 1); 2 tab(s) lent' },
    ]);
    const [, other] = await checkChrome(config(), { ...state, otherDebuggers: 3 }, 'linux', personHome());
    expect(other).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(/another DevTools client .* 3 of your tabs/),
      fix: expect.stringMatching(/close that tool/),
    });
  });

  it('waiting for the person: says so, and what to do', async () => {
    const [check] = await checkChrome(config(), { state: 'asking', lentTabs: 0 }, 'linux', personHome());
    expect(check).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(/Waiting for you to allow remote debugging/),
      fix: expect.stringMatching(/choose Allow/),
    });
  });

  it('a browser that allows remote debugging: found by its port file, without connecting to it', async () => {
    const home = personHome();
    const { port, connections } = await listeningPort();
    chromeFolder(home, {
      DevToolsActivePort: `${port}\n/devtools/browser/abc\n`,
      'Last Version': '150.0.7000.1',
      'Local State': JSON.stringify({ profile: { info_cache: { Default: { name: 'Person 1' } }, last_active_profiles: ['Default'] } }),
    });
    const [check] = await checkChrome(config(), undefined, 'linux', home);
    expect(check).toMatchObject({
      verdict: 'ok',
      detail: expect.stringMatching(
        new RegExp(`Google Chrome allows remote debugging \\(port ${port}, .*version 150\\.0\\.7000\\.1; profiles open: Person 1\\)`),
      ),
    });
    // A knock on the port, no more: no HTTP, no WebSocket, nothing Chrome would ask the person about.
    expect(connections()).toBe(1);
  });

  it('each failure with its fix: not found, not running, not allowed, too old, stale', async () => {
    const fixOf = async (home: string) => (await checkChrome(config(), undefined, 'linux', home))[0];
    expect(await fixOf(personHome())).toMatchObject({ verdict: 'warn', detail: expect.stringMatching(/No Chrome, Chromium, Edge or Brave user data folder/) });
    let home = personHome();
    chromeFolder(home, {}, false);
    expect(await fixOf(home)).toMatchObject({ detail: expect.stringMatching(/not running/), fix: expect.stringMatching(/start it/) });
    home = personHome();
    chromeFolder(home, { 'Last Version': '150.0.7000.1' });
    expect(await fixOf(home)).toMatchObject({
      detail: expect.stringMatching(/remote debugging is not allowed/),
      fix: expect.stringMatching(/chrome:\/\/inspect\/#remote-debugging/),
    });
    home = personHome();
    chromeFolder(home, { 'Last Version': '131.0.6778.85' });
    expect(await fixOf(home)).toMatchObject({ detail: expect.stringMatching(/version 131\.0\.6778\.85/), fix: expect.stringMatching(/update it/) });
    home = personHome();
    chromeFolder(home, { DevToolsActivePort: '1\n/devtools/browser/gone\n' });
    expect(await fixOf(home)).toMatchObject({
      detail: expect.stringMatching(/DevToolsActivePort names port 1, where nothing listens/),
      fix: expect.stringMatching(/start your browser again/),
    });
  });

  it("what the server's attempt learnt: the person declined", async () => {
    const [check] = await checkChrome(
      config(),
      { state: 'failed', lentTabs: 0, problem: { kind: 'refused', message: 'Chrome refused the connection', fix: 'attach again and choose Allow' } },
      'linux',
      personHome(),
    );
    expect(check).toMatchObject({ verdict: 'warn', detail: 'Chrome refused the connection', fix: 'attach again and choose Allow' });
  });

  it('a configured folder fails (the person chose this way in), and points at the folder where the browser does allow it', async () => {
    const home = personHome();
    const { port } = await listeningPort();
    const real = chromeFolder(home, { DevToolsActivePort: `${port}\n/devtools/browser/abc\n` });
    const other = join(home, 'other-profile');
    mkdirSync(other);
    const [check] = await checkChrome(config({ userDataDir: other }), undefined, 'linux', home);
    expect(check).toMatchObject({
      verdict: 'fail',
      detail: expect.stringMatching(new RegExp(`chrome.userDataDir \\(${other}\\) is not where .*in ${real}`)),
      fix: `set chrome.userDataDir to ${real}, or remove it`,
    });
  });
});
