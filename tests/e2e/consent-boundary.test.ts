import { symlinkSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { encodeExtensionFrame } from '../../protocol/wire.js';
import { EXTENSION_ID, EXTENSION_ORIGIN, WIRE_PROTOCOL_VERSION } from '../../protocol/constants.js';
import { BadRequestError } from '../../relay/src/errors.js';
import { openTab, pageTargets, triggerExtensionAction, waitFor } from '../harness/chromium.js';
import { connectFakeExtension, FAKE_BROWSER } from '../harness/fake-extension.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';
import {
  type BoundaryScene,
  hidesUnlentTabs,
  keepsClawdLoginsOut,
  reachesNoOwnOrigin,
  refusesExtensionPages,
  refusesLocalFiles,
  scopesCookies,
  scopesPlaywrightCookies,
} from '../harness/consent-attacks.js';
import { startTestSite } from '../harness/test-site.js';
import { badgeOf } from '../harness/relay-env.js';

/**
 * The consent boundary (spec §9), tried as a hostile client holding the
 * token would: real Chromium, the real built extension, one tab the user
 * shared (127.0.0.1) and one they did not (a "bank" at localhost, with an
 * HttpOnly session cookie). Each numbered attack of the issue is performed
 * and shown refused, while the shared tab keeps working.
 */

const BANK_SECRET = 'bank-session-value-never-leaves';
const TYPED_SECRET = 'hunter2-typed-secret';
const OPTIONS_PAGE = `chrome-extension://${EXTENSION_ID}/options.html`;

let env: ControlEnv;
const logLines: string[] = [];
let browser: Browser;
let sharedPage: Page;
let browserSession: CDPSession;
let pageSession: CDPSession;
let bankUrl: string;
let bankTab: { pageTargetId: string; tabTargetId: string };
let sharedOrigin: string;

const relayPort = () => env.server.relay.port;
const token = () => env.server.token;
const auth = () => ({ authorization: `Bearer ${token()}` });
const cdp = () => env.userBrowser.cdp;

/** Evaluates in a page of the user's browser over the test's own pipe, not through the relay. */
async function inUserBrowser<T>(pageTargetId: string, expression: string): Promise<T> {
  const { sessionId } = await cdp().send<{ sessionId: string }>('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
  try {
    const { result } = await cdp().send<{ result: { value: T } }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
    return result.value;
  } finally {
    await cdp()
      .send('Target.detachFromTarget', { sessionId })
      .catch(() => {});
  }
}

async function allCookiesInUserBrowser(): Promise<Array<{ name: string; value: string; domain: string }>> {
  return (await cdp().send<{ cookies: Array<{ name: string; value: string; domain: string }> }>('Storage.getCookies')).cookies;
}

/** The attacks every way into a person's browser is tried with (consent-attacks.ts), on the extension's shared tab. */
const scene = (): BoundaryScene => ({
  browser,
  lentPage: sharedPage,
  browserSession,
  pageSession,
  bankUrl,
  bankSecret: BANK_SECRET,
  lentOrigin: sharedOrigin,
  personCookies: allCookiesInUserBrowser,
  personPages: () => pageTargets(cdp()),
  jsonNew: async (url) => (await fetch(`http://127.0.0.1:${relayPort()}/json/new?${url}`, { method: 'PUT', headers: auth() })).status,
});

beforeAll(async () => {
  env = await startControlEnv({ logLines });
  bankUrl = env.fixtures.crossOriginUrl('index.html?bank=1');
  sharedOrigin = new URL(env.fixtures.url('/')).origin;
  bankTab = await openTab(cdp(), bankUrl); // open, never shared
  await cdp().send('Storage.setCookies', {
    cookies: [
      { name: 'bank-session', value: BANK_SECRET, domain: 'localhost', path: '/', httpOnly: true },
      { name: 'shop', value: 'shared-site-cookie', domain: '127.0.0.1', path: '/' },
    ],
  });
  browser = await chromium.connectOverCDP(`${env.server.relay.cdpUrl}?token=${token()}`);
  sharedPage = browser
    .contexts()[0]
    .pages()
    .find((page) => page.url().includes('user=1'))!;
  browserSession = await browser.newBrowserCDPSession();
  pageSession = await browser.contexts()[0].newCDPSession(sharedPage);
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await env?.close();
});

describe("1. the extension's own pages", () => {
  it('cannot be opened or navigated to through the relay, /json/new or the control API', async () => {
    await refusesExtensionPages(scene(), OPTIONS_PAGE);
    const viaApi = await env.raw('/tabs/open?profile=extension', { method: 'POST', body: JSON.stringify({ url: OPTIONS_PAGE }) });
    expect(viaApi.status).toBe(400);
    expect((await viaApi.json()).error.message).toMatch(/chrome-extension: URLs are refused/);
    expect(await sharedPage.evaluate(() => location.href)).toContain('user=1');
  });

  it('are never shared by a click, and a shared tab that reaches one by itself is suspended at once', async () => {
    const optionsTab = await openTab(cdp(), OPTIONS_PAGE);
    // A person clicks on a page that is there: the options page has committed.
    await waitFor(async () => (await pageTargets(cdp())).find((target) => target.targetId === optionsTab.pageTargetId)?.url === OPTIONS_PAGE, {
      message: 'the options page never committed',
    });
    await triggerExtensionAction(cdp(), EXTENSION_ID, optionsTab.tabTargetId);
    let badge = { text: '', title: '' };
    await waitFor(async () => (badge = await badgeOf(cdp(), optionsTab.pageTargetId)).text === '!', { message: 'no error badge on the options page' }).catch(
      (error: Error) => {
        throw new Error(`${error.message}; the badge was ${JSON.stringify(badge)}`);
      },
    );
    expect(badge.title).toMatch(/does not share chrome-extension: pages/);
    expect(env.server.relay.bridge.sharedTabs().some((tab) => tab.url.startsWith('chrome-extension:'))).toBe(false);
    await cdp().send('Target.closeTarget', { targetId: optionsTab.pageTargetId });

    // Shared through the API, then taken to the options page by the user's own navigation (history, a link): not through the relay.
    const leaving = await env.client('extension').openTab(env.fixtures.url('index.html?will-leave=1'));
    expect(env.server.relay.bridge.findTab(leaving.targetId)?.url).toContain('will-leave=1');
    const { sessionId } = await cdp().send<{ sessionId: string }>('Target.attachToTarget', { targetId: leaving.targetId, flatten: true });
    await cdp().send('Page.navigate', { url: OPTIONS_PAGE }, sessionId);
    await waitFor(() => !env.server.relay.bridge.findTab(leaving.targetId), { message: 'the tab on the options page is still shared' });
    await waitFor(async () => (badge = await badgeOf(cdp(), leaving.targetId)).text === '!', { message: 'no suspended badge' });
    expect(badge.title).toMatch(/does not share chrome-extension: pages/);
    await cdp().send('Target.closeTarget', { targetId: leaving.targetId });
  });
});

describe('2. local files', () => {
  it('are refused through the relay', async () => {
    await refusesLocalFiles(scene());
  });

  it.each(['clawd', 'extension'])('are refused by the control API on the %s profile, with javascript: and data: too', async (profile) => {
    for (const url of ['file:///etc/hostname', 'javascript:alert(1)', 'data:text/html,<h1>x</h1>', 'chrome://settings']) {
      await expect(env.client(profile).navigate(url)).rejects.toThrow(BadRequestError);
      await expect(env.client(profile).openTab(url)).rejects.toThrow(/Navigation refused: .* URLs are refused/);
    }
  });
});

describe("3. other sites' cookies", () => {
  it('reads see only the shared site; naming the unshared site is refused: read, write, delete, clear its storage', async () => {
    // The bank tab was opened while the shared tab was in front; it is still not shared.
    expect(env.server.relay.bridge.sharedTabs().map((tab) => tab.url)).toEqual([expect.stringContaining('user=1')]);
    await scopesCookies(scene());
  });

  it("Playwright's context.cookies() and addCookies() still work for the shared site; clearCookies() clears only it", async () => {
    await scopesPlaywrightCookies(scene());
  });
});

describe('13. tabs not shared', () => {
  it('do not exist for a client, by any Target or Browser method', async () => {
    await hidesUnlentTabs(scene(), [bankTab.pageTargetId, bankTab.tabTargetId]);
  });
});

describe("12. clawd-browser's own logins", () => {
  let consoleTab: { pageTargetId: string; tabTargetId: string };
  const consoleOrigin = () => `http://127.0.0.1:${env.server.control.port}`;
  /** Where the person's console lives: its login cookie is sent only there. */
  let consolePath = '';

  beforeAll(async () => {
    // The person is logged into clawd's console in a tab of their own browser (not shared): its cookie is 127.0.0.1's, like the shared tab's site.
    consoleTab = await openTab(cdp(), (await env.client('clawd').dashboardLink()).url);
    await waitFor(async () => (await allCookiesInUserBrowser()).some((cookie) => cookie.name.startsWith('clawd_dashboard')), {
      message: 'the console login set no cookie',
    });
    consolePath = ((await allCookiesInUserBrowser()) as unknown as Array<{ name: string; path: string }>).find((cookie) =>
      cookie.name.startsWith('clawd_dashboard'),
    )!.path;
    expect(consolePath).toMatch(/^\/console\/[\w-]{20,}\/$/);
    await cdp().send('Storage.setCookies', { cookies: [{ name: 'shop', value: 'shared-site-cookie', domain: '127.0.0.1', path: '/' }] });
  });
  afterAll(async () => {
    await cdp()
      .send('Target.closeTarget', { targetId: consoleTab.pageTargetId })
      .catch(() => {});
  });

  it('are never read, set or deleted by a client, though a shared tab of the same host has its cookies in scope; its pages are never opened for one', async () => {
    await keepsClawdLoginsOut(scene(), env.server.control.port);
    expect((await allCookiesInUserBrowser()).some((cookie) => cookie.name.startsWith('clawd_dashboard'))).toBe(true);
  });

  it('are never used through a shared tab: no request of it reaches clawd-browser, whatever sends it', async () => {
    // The shared page (another port of 127.0.0.1) fetches, frames and loads the console with the person's cookie: none of it leaves the browser.
    const fetched = await sharedPage.evaluate(
      (at) =>
        fetch(`${at}sessions`, { credentials: 'include' }).then(
          (answer) => answer.status,
          () => 'failed',
        ),
      `${consoleOrigin()}${consolePath}`,
    );
    expect(fetched).toBe('failed');
    await sharedPage.evaluate((origin) => {
      const frame = document.createElement('iframe');
      frame.id = 'console-frame';
      frame.src = `${origin}sessions`;
      document.body.append(frame);
    }, `${consoleOrigin()}${consolePath}`);
    const framed = (await sharedPage.frameLocator('#console-frame').locator('body').textContent({ timeout: 10_000 })) ?? '';
    expect(framed).not.toMatch(/"sessions"|answer their own pages only/);
    await sharedPage.evaluate(() => document.getElementById('console-frame')?.remove());
    // Nor by a redirect the browser follows, the client intercepting every answer, nor a request it rewrites.
    const redirector = await startTestSite((request, response, url) => {
      const to = url.searchParams.get('to');
      if (to) return void response.writeHead(302, { location: to }).end();
      response.writeHead(200, { 'content-type': 'text/html' }).end('<title>elsewhere</title>');
    });
    try {
      const sessions = (await env.client('clawd').sessions()).sessions.map((session) => session.id);
      await reachesNoOwnOrigin(scene(), {
        target: `${consoleOrigin()}${consolePath}sessions`,
        redirector: `${redirector.url}/go`,
        secrets: ['"sessions"', ...sessions],
        closeInPerson: (targetId) =>
          cdp()
            .send('Target.closeTarget', { targetId })
            .then(() => {}),
      });
    } finally {
      await redirector.close();
    }
  });

  it('are never lent by a click: a tab of the console is not shared', async () => {
    // A tab just opened is the active one, where a click acts: the console's page, committed.
    const another = await openTab(cdp(), `${consoleOrigin()}${consolePath}`);
    await cdp().send('Target.closeTarget', { targetId: consoleTab.pageTargetId });
    consoleTab = another;
    await waitFor(
      async () => (await pageTargets(cdp())).find((target) => target.targetId === consoleTab.pageTargetId)?.url === `${consoleOrigin()}${consolePath}`,
      { message: 'the console never committed' },
    );
    await triggerExtensionAction(cdp(), EXTENSION_ID, consoleTab.tabTargetId);
    let badge = { text: '', title: '' };
    await waitFor(async () => (badge = await badgeOf(cdp(), consoleTab.pageTargetId)).text === '!', { message: 'no error badge on the console tab' }).catch(
      (error: Error) => {
        throw new Error(`${error.message}; the badge was ${JSON.stringify(badge)}`);
      },
    );
    expect(badge.title).toMatch(/clawd-browser's own pages/);
    expect(env.server.relay.bridge.sharedTabs().some((tab) => tab.url.startsWith(consoleOrigin()))).toBe(false);
  });
});

describe('5. an impostor on /extension', () => {
  const open = (path: string, options: WebSocket.ClientOptions = {}) =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${relayPort()}${path}`, options);
      socket.once('open', () => resolve(socket));
      socket.once('unexpected-response', (_request, response) =>
        reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { status: response.statusCode })),
      );
      socket.once('error', reject);
    });
  const closeCode = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const received: string[] = [];

  it('is refused without the extension Origin, token or not', async () => {
    await expect(open(`/extension?token=${token()}`)).rejects.toMatchObject({ status: 403 });
    await expect(open(`/extension?token=${token()}`, { origin: 'chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh' })).rejects.toMatchObject({ status: 403 });
  });

  it('cannot say hello, nor finish the handshake, without the extension key', async () => {
    const fake = { tabId: 999, targetId: 'FAKE', url: 'https://fake.example/', title: 'fake' };
    const straight = await open('/extension', { origin: EXTENSION_ORIGIN });
    straight.on('message', (data) => received.push(data.toString()));
    const straightClosed = closeCode(straight);
    straight.send(encodeExtensionFrame({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION, browser: FAKE_BROWSER, tabs: [fake], proof: '00'.repeat(32) }));
    expect(await straightClosed).toBe(1008);

    const guessing = await open('/extension', { origin: EXTENSION_ORIGIN });
    const challenge = new Promise<{ type: string; nonce: string }>((resolve) => guessing.once('message', (data) => resolve(JSON.parse(data.toString()))));
    guessing.send(encodeExtensionFrame({ type: 'auth', nonce: 'ab'.repeat(32) }));
    expect((await challenge).type).toBe('auth');
    guessing.on('message', (data) => received.push(data.toString()));
    const guessingClosed = closeCode(guessing);
    guessing.send(encodeExtensionFrame({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION, browser: FAKE_BROWSER, tabs: [fake], proof: 'cd'.repeat(32) }));
    expect(await guessingClosed).toBe(1008);
    expect(env.server.relay.bridge.findTab('FAKE')).toBeUndefined();
  });

  it('never displaces the live extension, even holding the key', async () => {
    const rival = await connectFakeExtension({ port: relayPort(), key: env.server.extensionKey, tabs: [] });
    expect(await closeCode(rival)).toBe(4002);
    expect(env.server.relay.bridge.extensionState).toBe('connected');
  });

  it('never receives what clients type: the real page does', async () => {
    await sharedPage.evaluate(() => {
      const input = Object.assign(document.createElement('input'), { id: 'typed-here' });
      document.body.append(input);
      input.focus();
    });
    await pageSession.send('Input.insertText', { text: 'typed through the relay' });
    const targetId = env.server.relay.bridge.sharedTabs().find((tab) => tab.url.includes('user=1'))!.targetId;
    expect(await inUserBrowser<string>(targetId, `document.getElementById('typed-here').value`)).toBe('typed through the relay');
    expect(received.join('\n')).not.toContain('typed through the relay');
    expect(received.filter((message) => !message.includes('"auth"'))).toEqual([]);
  });
});

describe('7. floods', () => {
  it('half-open connections that exhaust the relay leave the control API answering', async () => {
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        const socket = connect(relayPort(), '127.0.0.1');
        socket.on('error', () => {});
        socket.write('GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // never finished
        sockets.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const status = await env.raw('/?profile=extension');
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ profile: 'extension', extension: 'connected' });
      // The relay dropped what it could not hold, rather than holding it all.
      expect(sockets.filter((socket) => socket.destroyed || socket.readyState === 'closed').length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    await waitFor(async () => (await fetch(`http://127.0.0.1:${relayPort()}/status`, { headers: auth() }).catch(() => undefined))?.status === 200, {
      message: 'the relay did not answer again once the flood ended',
    });
  });
});

describe('8. uploads', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'clawd-consent-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("read only the upload folders: never $CLAWD_HOME's secrets, and say nothing about files outside", async () => {
    const tab = await env.client('extension').openTab(env.fixtures.url('upload.html'));
    const hook = async (body: object) => {
      const response = await env.raw('/hooks/file-chooser?profile=extension', {
        method: 'POST',
        body: JSON.stringify({ targetId: tab.targetId, element: '#file', ...body }),
      });
      return { status: response.status, message: ((await response.json()) as { error?: { message: string } }).error?.message ?? '' };
    };
    for (const secret of ['token', 'extension-key', 'config.json']) {
      const answer = await hook({ paths: [join(env.home, secret)] });
      expect(answer.status).toBe(400);
      // The test's home sits in the temp dir, an upload folder: the refusal says why it is refused all the same.
      expect(answer.message).toMatch(/is in clawd-browser's own folder .*, which is never an upload source/);
      expect(answer.message).not.toContain(token());
    }
    const exists = await hook({ paths: ['/etc/passwd'] });
    const missing = await hook({ paths: ['/etc/no-such-file-here'] });
    expect(exists.status).toBe(400);
    expect(exists.message.replace('/etc/passwd', 'P')).toBe(missing.message.replace('/etc/no-such-file-here', 'P'));
    symlinkSync('/etc/hostname', join(scratch, 'innocent.txt'));
    expect((await hook({ paths: [join(scratch, 'innocent.txt')] })).message).toMatch(/not inside an upload folder/);
    expect(await env.client('extension').evaluate('() => document.querySelector("#result").textContent', { targetId: tab.targetId })).toMatchObject({
      result: 'none',
    });

    // A remote agent sends contents inline instead of a path.
    const inline = await hook({ files: [{ name: 'inline.txt', base64: Buffer.from('inline body').toString('base64') }] });
    expect(inline).toEqual({ status: 200, message: '' });
    await waitFor(
      async () =>
        (await env.client('extension').evaluate('() => document.querySelector("#result").textContent', { targetId: tab.targetId })).result ===
        'inline.txt:inline body',
      {
        message: 'the inline file did not reach the page',
      },
    );
    expect((await hook({ files: [{ name: '../escape.txt', base64: '' }] })).message).toMatch(/bare file name/);
    await env.client('extension').closeTab(tab.targetId);
  });
});

describe('9. secrets in logs', () => {
  it('a malformed /json URL is a 400, and the token in it is never logged', async () => {
    const response = await fetch(`http://127.0.0.1:${relayPort()}/json/activate/%E0%A4%A?token=${token()}`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).not.toContain(token());
  });

  it('a failed fill says what went wrong without what was typed, in the answer and in the log', async () => {
    const api = env.client('clawd');
    const tab = await api.openTab(env.fixtures.url('upload.html'));
    const { text } = await api.snapshot({ targetId: tab.targetId });
    const button = refOf(text ?? '', 'button "Choose file"');
    const response = await env.raw('/act?profile=clawd', {
      method: 'POST',
      body: JSON.stringify({ kind: 'fill', targetId: tab.targetId, fields: [{ ref: button, value: TYPED_SECRET }] }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const body = JSON.stringify(await response.json());
    expect(body).toMatch(/fill|input/i);
    expect(body).not.toContain(TYPED_SECRET);
    await api.closeTab(tab.targetId);
  });

  it('nothing logged so far holds the token, the extension key, a typed secret or a cookie value', () => {
    const log = logLines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [token(), env.server.extensionKey, TYPED_SECRET, BANK_SECRET]) expect(log).not.toContain(secret);
  });
});

describe('10. Host headers', () => {
  const get = (port: number, path: string, host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path, headers: { host, ...auth() } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end();
    });

  it('are matched exactly on both servers, and endpoint URLs come from the listening address', async () => {
    for (const host of ['localhost:x@evil.com', '[::1]evil.com', 'localhost.', 'evil.com']) {
      expect((await get(relayPort(), '/json/version', host)).status, host).toBe(403);
      expect((await get(env.server.control.port, '/', host)).status, host).toBe(403);
    }
    const version = await get(relayPort(), '/json/version', 'localhost:1234');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body).webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${relayPort()}/cdp`);
  });
});

describe('11. a managed port someone else took', () => {
  let impostor: Server | undefined;
  afterAll(() => impostor?.close());

  it('is never asked anything: a managed browser speaks over its pipe, not a port', async () => {
    const profile = await env.client('clawd').createProfile({ name: 'squatted' });
    const seen: string[] = [];
    impostor = createServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ Browser: 'Chrome/1', webSocketDebuggerUrl: `ws://127.0.0.1:${profile.cdpPort}/devtools/browser/x` }));
    });
    impostor.on('upgrade', (request, socket) => {
      seen.push(`UPGRADE ${request.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => impostor!.listen(profile.cdpPort, '127.0.0.1', resolve));
    const tab = await env.client('squatted').openTab(env.fixtures.url('index.html'));
    expect(await env.client('squatted').evaluate('() => location.pathname', { targetId: tab.targetId })).toMatchObject({ result: '/index.html' });
    expect(seen).toEqual([]);
    await env.client('clawd').deleteProfile('squatted');
  });
});

describe('4. a process squatting on the relay port while serve is down', () => {
  it('learns no secret and gets nothing obeyed; the extension hangs up on it', async () => {
    const port = relayPort();
    const t0 = Date.now();
    const mark = (what: string) => process.env.RELAY_LOG === '1' && console.log(`squat ${Date.now() - t0} ms: ${what}`);
    const shared = env.server.relay.bridge.sharedTabs().find((tab) => tab.url.includes('user=1'))!;
    const secrets = [token(), env.server.extensionKey];
    await browser.close();
    mark('client closed');
    await env.server.close();
    mark('serve closed');

    const seen = { urls: [] as string[], frames: [] as string[], closes: [] as number[] };
    const squatUrl = env.fixtures.url('index.html?squatted=1');
    const squatter = new WebSocketServer({ host: '127.0.0.1', port });
    squatter.on('connection', (socket, request) => {
      mark(`connection ${request.url}`);
      seen.urls.push(request.url ?? '');
      socket.on('message', (data) => seen.frames.push(data.toString()));
      socket.on('close', (code) => {
        mark(`closed ${code}`);
        seen.closes.push(code);
      });
      // What a relay would send, and what the extension used to obey at once.
      socket.send(JSON.stringify({ type: 'createTab', id: 1, url: squatUrl, active: true }));
      socket.send(JSON.stringify({ type: 'cdp', id: 2, tabId: shared.tabId, method: 'Runtime.evaluate', params: { expression: 'document.title = "pwned"' } }));
      socket.send(JSON.stringify({ type: 'auth', nonce: 'ab'.repeat(32), proof: 'cd'.repeat(32) }));
    });
    try {
      await waitFor(() => seen.closes.length > 0, { timeoutMs: 20_000, message: 'the extension never reached (or never left) the squatter' });
      expect(seen.closes[0]).toBe(4008);
      for (const secret of secrets) {
        expect(seen.urls.join('\n')).not.toContain(secret);
        expect(seen.frames.join('\n')).not.toContain(secret);
      }
      expect(seen.urls.every((url) => url === '/extension')).toBe(true);
      // One frame, the extension's challenge; no hello, no tab list, no answers.
      expect(seen.frames.map((frame) => JSON.parse(frame.split('\n')[0]).type)).toEqual(['auth']);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await pageTargets(cdp())).some((target) => target.url.includes('squatted=1'))).toBe(false);
      expect(await inUserBrowser<string>(shared.targetId, 'document.title')).not.toBe('pwned');
    } finally {
      for (const socket of squatter.clients) socket.terminate();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
