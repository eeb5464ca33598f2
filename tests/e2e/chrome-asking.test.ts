import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { createLogger } from '../../relay/src/log.js';
import { freePortPair } from '../harness/ports.js';
import { freshHome } from '../harness/control-env.js';

/**
 * While Chrome asks the person "Allow remote debugging?", every way in says
 * so, at once, rather than timing out in silence: the control API, the
 * typed client, `/json/version?profile=chrome` and a Playwright client of
 * `/cdp?profile=chrome`. Headless Chromium never asks, so Chrome's DevTools
 * endpoint is played by a stand-in that holds the WebSocket handshake while
 * the person decides, as Chrome does, then allows it.
 */

let server: ClawdServer;
let home: string;
let folder: string;
let chrome: WebSocketServer;
const waiting: Array<(allow: boolean) => void> = [];

beforeAll(async () => {
  chrome = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient: (_info, done) => waiting.push((allow) => (allow ? done(true) : done(false, 403))) });
  chrome.on('connection', (socket) =>
    socket.on('message', (data) => {
      const { id, method } = JSON.parse(data.toString()) as { id: number; method: string };
      const result =
        method === 'Browser.getVersion'
          ? { product: 'Chrome/150.0.7000.1', userAgent: 'Mozilla/5.0 Chrome/150', protocolVersion: '1.3' }
          : method === 'Target.getTargets'
            ? { targetInfos: [] }
            : {};
      socket.send(JSON.stringify({ id, result }));
    }),
  );
  await new Promise((resolve) => chrome.once('listening', resolve));
  folder = mkdtempSync(join(tmpdir(), 'clawd-asking-chrome-'));
  writeFileSync(join(folder, 'DevToolsActivePort'), `${(chrome.address() as { port: number }).port}\n/devtools/browser/5d1e2f3a-0000-4000-8000-000000000001\n`);
  symlinkSync(`${hostname()}-${process.pid}`, join(folder, 'SingletonLock'));
  const ports = await freePortPair();
  home = freshHome({ controlUrl: `http://127.0.0.1:${ports.control}`, chrome: { userDataDir: folder, answerTimeoutSeconds: 60 } });
  server = await startServer({ home, logger: createLogger('silent') });
});

afterAll(async () => {
  for (const answer of waiting) answer(false);
  for (const client of chrome?.clients ?? []) client.terminate();
  await new Promise((resolve) => chrome?.close(resolve));
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('an attach that waits for the person', () => {
  const auth = () => ({ authorization: `Bearer ${server.token}` });
  const ASKING = /Waiting for you to allow remote debugging in Chrome: answer its "Allow remote debugging\?" prompt/;

  it('answers with the state, asking, when the wait runs out first', async () => {
    const answer = await fetch(`http://127.0.0.1:${server.control.port}/chrome/attach`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ waitSeconds: 2 }),
    });
    expect(await answer.json()).toMatchObject({ state: 'asking', browser: { userDataDir: folder } });
    expect(waiting).toHaveLength(1);
  });

  it('is said by every way in, at once, and asks the person once', async () => {
    const started = Date.now();
    const client = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token, profile: 'chrome' });
    await expect(client.tabs()).rejects.toThrow(ASKING);
    const viaJson = await fetch(`http://127.0.0.1:${server.relay.port}/json/version?profile=chrome`, { headers: auth() });
    expect(viaJson.status).toBe(503);
    expect((await viaJson.json()).error.message).toMatch(ASKING);
    await expect(chromium.connectOverCDP(`${server.relay.cdpUrl}?profile=chrome&token=${server.token}`, { timeout: 10_000 })).rejects.toThrow(
      /503 Service Unavailable\n.*Waiting for you to allow remote debugging in Chrome/,
    );
    expect(
      (await (await fetch(`http://127.0.0.1:${server.control.port}/?profile=chrome`, { headers: { ...auth(), accept: 'application/json' } })).json()).chrome,
    ).toMatchObject({ state: 'asking' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(waiting).toHaveLength(1);
  });

  it('attaches once the person allows it', async () => {
    waiting[0](true);
    const client = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token, profile: 'chrome' });
    let status = await client.chrome.status();
    for (let i = 0; i < 50 && status.state !== 'attached'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await client.chrome.status();
    }
    expect(status).toMatchObject({ state: 'attached', browser: { product: 'Chrome/150.0.7000.1' }, lentTabs: 0 });
    // Attached with nothing lent is a normal state: an empty list, with how the person lends a tab.
    expect(await client.tabList()).toEqual({ tabs: [], hint: expect.stringMatching(/^No tab is lent: the person lends tabs in clawd-browser's picker/) });
    const answer = await fetch(`http://127.0.0.1:${server.control.port}/tabs?profile=chrome`, { headers: auth() });
    expect(answer.status).toBe(200);
    expect((await answer.json()).tabs).toEqual([]);
    // What needs a tab still says there is none.
    await expect(client.snapshot()).rejects.toThrow(/No tab is lent/);
  });
});
