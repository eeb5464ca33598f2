import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { ChromeAttachment } from '../../relay/src/attach/chrome-attachment.js';
import { ASKING_MESSAGE } from '../../relay/src/attach/attach-problems.js';
import { browserHomes, describeHome, parseActivePort } from '../../relay/src/attach/user-data.js';
import { createLogger } from '../../relay/src/log.js';

/**
 * Attaching to a person's Chrome (attach/chrome-attachment.ts), before any
 * tab is lent: what each state of their browser's user data folder means,
 * and Chrome asking the person. Headless Chromium never asks, so here a
 * stand-in for Chrome's DevTools endpoint holds the WebSocket handshake as
 * Chrome does while its "Allow remote debugging?" prompt waits, then allows
 * it or answers 403. The real browser is tested in e2e/chrome-consent.test.ts.
 */

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function userDataDir(files: Record<string, string> = {}, { running = false } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'clawd-attach-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // While Chrome runs, SingletonLock names its host and pid: this process stands in for it.
  if (running) symlinkSync(`${hostname()}-${process.pid}`, join(dir, 'SingletonLock'));
  return dir;
}

/** Chrome's DevTools endpoint as the person's Chrome serves it: each connection waits for the person's answer. */
async function askingChrome() {
  const asked: Array<(allow: boolean) => void> = [];
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (_info, done) => asked.push((allow) => (allow ? done(true) : done(false, 403))),
  });
  server.on('connection', (socket) =>
    socket.on('message', (data) => {
      const { id, method } = JSON.parse(data.toString()) as { id: number; method: string };
      const result = method === 'Browser.getVersion' ? { product: 'Chrome/150.0.7000.1', userAgent: 'Mozilla/5.0 Chrome/150', protocolVersion: '1.3' } : {};
      socket.send(JSON.stringify({ id, result }));
    }),
  );
  await new Promise((resolve) => server.once('listening', resolve));
  cleanups.push(() => {
    // A handshake still waiting for its answer holds the server open.
    for (const answer of asked) answer(false);
    for (const client of server.clients) client.terminate();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as { port: number }).port;
  return { port, asked, answer: (allow: boolean) => asked.at(-1)!(allow), portFile: `${port}\n/devtools/browser/7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6\n` };
}

function attachment(dir: string, answerTimeoutSeconds = 30) {
  const frames: string[] = [];
  const attached = new ChromeAttachment({
    settings: () => ({ userDataDir: dir, answerTimeoutSeconds }),
    platform: 'linux',
    home: '/home/nobody',
    ownPorts: () => [],
    log: createLogger('error'),
  });
  attached.connectRelay({ connected: () => frames.push('connected'), frame: (frame) => frames.push(frame), disconnected: () => frames.push('disconnected') });
  cleanups.push(() => attached.detach());
  return { attached, frames };
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('Chrome asking the person', () => {
  it('says so while it waits, and attaches once they allow it', async () => {
    const chrome = await askingChrome();
    const { attached, frames } = attachment(userDataDir({ DevToolsActivePort: chrome.portFile }, { running: true }));
    const attaching = attached.attach();
    await until(() => attached.status().state === 'asking');
    expect(() => attached.requireAttached()).toThrow(ASKING_MESSAGE);
    chrome.answer(true);
    await attaching;
    expect(attached.status()).toMatchObject({ state: 'attached', lentTabs: 0, browser: { product: 'Chrome/150.0.7000.1' } });
    expect(frames[0]).toBe('connected');
    expect(JSON.parse(frames[1].split('\n')[0])).toMatchObject({ type: 'hello', tabs: [], browser: { product: 'Chrome/150.0.7000.1' } });
  });

  it('takes a refusal for the answer, and does not ask again until asked to', async () => {
    const chrome = await askingChrome();
    const { attached } = attachment(userDataDir({ DevToolsActivePort: chrome.portFile }, { running: true }));
    const attaching = attached.attach();
    await until(() => chrome.asked.length === 1);
    chrome.answer(false);
    await expect(attaching).rejects.toThrow(/Chrome refused the connection \(HTTP 403\)/);
    expect(attached.status().problem).toMatchObject({ kind: 'refused', fix: expect.stringMatching(/choose Allow/) });
    // An agent's next request hears why; the person is not asked again behind their back.
    expect(() => attached.requireAttached()).toThrow(/refused/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chrome.asked).toHaveLength(1);
    // Asked again on purpose (`clawd-browser chrome attach`): a second prompt.
    const again = attached.attach();
    await until(() => chrome.asked.length === 2);
    chrome.answer(true);
    await again;
    expect(attached.status().state).toBe('attached');
  });

  it("once let go of (detach), is not attached again by anyone's use, only when asked to", async () => {
    const chrome = await askingChrome();
    const { attached, frames } = attachment(userDataDir({ DevToolsActivePort: chrome.portFile }, { running: true }));
    const attaching = attached.attach();
    await until(() => chrome.asked.length === 1);
    chrome.answer(true);
    await attaching;
    attached.detach();
    expect(frames.at(-1)).toBe('disconnected');
    expect(() => attached.requireAttached()).toThrow(/let go of your browser: attach it again/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chrome.asked).toHaveLength(1);
    const again = attached.attach();
    await until(() => chrome.asked.length === 2);
    chrome.answer(true);
    await again;
    expect(attached.status().state).toBe('attached');
  });

  it('gives up when nobody answers in time, and says so', async () => {
    const chrome = await askingChrome();
    const { attached } = attachment(userDataDir({ DevToolsActivePort: chrome.portFile }, { running: true }), 2);
    await expect(attached.attach()).rejects.toThrow(/Nobody answered Chrome's "Allow remote debugging\?" prompt within 2 s/);
    expect(attached.status().problem?.kind).toBe('unanswered');
  });
});

describe("what the person's user data folder says", () => {
  const problemOf = async (dir: string) => {
    const { attached } = attachment(dir);
    await attached.attach().catch(() => {});
    return attached.status().problem!;
  };

  it('no folder: not found', async () => {
    expect((await problemOf(join(tmpdir(), 'clawd-no-such-browser-folder'))).kind).toBe('not-found');
  });

  it('a folder no browser runs on: not running', async () => {
    expect(await problemOf(userDataDir({ 'Last Version': '150.0.1.2' }))).toMatchObject({ kind: 'not-running', fix: expect.stringMatching(/start it/) });
  });

  it('a running browser without DevToolsActivePort: not allowed, or too old to allow it', async () => {
    expect(await problemOf(userDataDir({ 'Last Version': '150.0.1.2' }, { running: true }))).toMatchObject({
      kind: 'not-allowed',
      fix: expect.stringMatching(/chrome:\/\/inspect\/#remote-debugging/),
    });
    expect(await problemOf(userDataDir({ 'Last Version': '120.0.6099.71' }, { running: true }))).toMatchObject({
      kind: 'too-old',
      message: expect.stringMatching(/120\.0\.6099\.71.*144 or later/),
    });
  });

  it('a DevToolsActivePort left behind by a browser that stopped: stale', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await problemOf(userDataDir({ DevToolsActivePort: `${port}\n/devtools/browser/abc\n` }))).toMatchObject({
      kind: 'stale',
      message: expect.stringMatching(new RegExp(`port ${port}, where nothing listens`)),
    });
  });

  it('its port held by another program: not its DevTools', async () => {
    const other: Server = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const port = (other.address() as { port: number }).port;
    expect(await problemOf(userDataDir({ DevToolsActivePort: `${port}\n/devtools/browser/abc\n` }))).toMatchObject({
      kind: 'not-devtools',
      message: expect.stringMatching(/HTTP 404/),
    });
  });

  it('a DevToolsActivePort that is not what Chrome writes', async () => {
    expect(await problemOf(userDataDir({ DevToolsActivePort: 'hello\n' }, { running: true }))).toMatchObject({
      kind: 'not-devtools',
      message: expect.stringMatching(/first line is not a port/),
    });
    expect(parseActivePort('9222\n/devtools/browser/x y\n')).toMatch(/second line/);
    expect(parseActivePort('9222\r\n/devtools/browser/0a-1b\r\n')).toEqual({ port: 9222, path: '/devtools/browser/0a-1b' });
  });

  it('names the profiles open in the browser', () => {
    const dir = userDataDir(
      {
        'Local State': JSON.stringify({
          profile: { info_cache: { Default: { name: 'Person 1' }, 'Profile 1': { name: 'Work' } }, last_active_profiles: ['Profile 1'] },
        }),
      },
      { running: true },
    );
    const report = describeHome({ browser: 'configured', title: 'x', userDataDir: dir }, 'linux');
    expect(report).toMatchObject({
      exists: true,
      running: true,
      profiles: [
        { dir: 'Default', name: 'Person 1', open: false },
        { dir: 'Profile 1', name: 'Work', open: true },
      ],
    });
  });
});

describe('where browsers keep their user data', () => {
  it("looks in Chrome's, Chromium's, Edge's and Brave's default folders, or the configured one alone", () => {
    expect(browserHomes(undefined, 'linux', '/home/u').map((home) => home.userDataDir)).toEqual([
      '/home/u/.config/google-chrome',
      '/home/u/.config/chromium',
      '/home/u/.config/microsoft-edge',
      '/home/u/.config/BraveSoftware/Brave-Browser',
    ]);
    expect(browserHomes(undefined, 'darwin', '/Users/u')[0].userDataDir).toBe('/Users/u/Library/Application Support/Google/Chrome');
    expect(browserHomes(undefined, 'win32', 'C:\\Users\\u').map((home) => home.userDataDir)[2]).toMatch(/Microsoft\\Edge\\User Data$/);
    expect(browserHomes('/srv/chrome', 'linux', '/home/u')).toEqual([{ browser: 'configured', title: expect.any(String), userDataDir: '/srv/chrome' }]);
  });
});
