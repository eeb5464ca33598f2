import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTab, pageTargets, waitFor } from '../harness/chromium.js';
import { type ChromeEnv, startChromeEnv } from '../harness/chrome-env.js';
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

/**
 * The person's own Chrome, attached through its remote-debugging consent
 * (spec §25), on real Chromium: tabs on two sites, clawd-browser attached
 * through DevToolsActivePort, the person (Playwright driving the picker
 * page) lends one tab, and a client with the token sees exactly that tab,
 * drives it, and reaches nothing else by the methods the extension's
 * consent tests try.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
let env: ChromeEnv;
let shop: { pageTargetId: string };
let bank: { pageTargetId: string };
let other: { pageTargetId: string };
let picker: Page;
const relayCdp = () => `${env.server.relay.cdpUrl}?profile=chrome&token=${env.server.token}`;
const lentTabs = () => env.server.relay.chrome.bridge.sharedTabs();

/** Evaluates in a page of the person's browser over the test's own pipe (the person's hands), not through clawd-browser. */
async function inPersonBrowser<T>(targetId: string, expression: string): Promise<T> {
  const cdp = env.person.cdp;
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  try {
    const { result } = await cdp.send<{ result: { value: T } }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
    return result.value;
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

async function lendInPicker(targetId: string, lent: boolean): Promise<void> {
  const toggle = picker.locator(`li[data-target-id="${targetId}"] input[type=checkbox]`);
  // The picker shows the tab as it is now (it refreshes every 2 s) before the person changes it.
  const now = lentTabs().some((tab) => tab.targetId === targetId);
  await waitFor(async () => (await toggle.isChecked()) === now && (await toggle.isEnabled()), { message: 'the picker does not show the tab as it is' });
  if (lent) await toggle.check();
  else await toggle.uncheck();
  await waitFor(() => lentTabs().some((tab) => tab.targetId === targetId) === lent, { message: `the tab was not ${lent ? 'lent' : 'taken back'}` });
}

beforeAll(async () => {
  env = await startChromeEnv();
  shop = await openTab(env.person.cdp, env.fixtures.url('index.html?shop=1'));
  bank = await openTab(env.person.cdp, env.fixtures.crossOriginUrl('index.html?bank=1'));
  other = await openTab(env.person.cdp, env.fixtures.url('form.html?other=1'));
  await env.person.cdp.send('Storage.setCookies', {
    cookies: [
      { name: 'bank-session', value: 'bank-secret', domain: 'localhost', path: '/', httpOnly: true },
      { name: 'shop', value: 'shop-cookie', domain: '127.0.0.1', path: '/' },
    ],
  });
}, 90_000);

afterAll(async () => {
  await env?.close();
});

describe('attaching', () => {
  it('finds the running browser through DevToolsActivePort and attaches', async () => {
    const answer = await env.raw('/chrome/attach', { method: 'POST', body: JSON.stringify({ waitSeconds: 15 }) });
    const status = await answer.json();
    expect(answer.status).toBe(200);
    expect(status).toMatchObject({ state: 'attached', lentTabs: 0, browser: { userDataDir: env.userDataDir } });
    expect(status.browser.product).toMatch(/Chrome\/\d+/);
  });
});

describe('the picker', () => {
  it("opens in the person's browser and lists their tabs; clawd-browser's own pages, the picker among them, are never offered", async () => {
    picker = await env.openPicker();
    const items = picker.locator('#tabs li');
    await waitFor(async () => (await items.count()) >= 4, { message: 'the picker lists too few tabs' });
    expect(await picker.locator(`li[data-target-id="${shop.pageTargetId}"] .title`).textContent()).toBe('Fixture Home');
    expect(await picker.locator(`li[data-target-id="${bank.pageTargetId}"] .url`).textContent()).toContain('bank=1');
    const own = picker.locator('li', { hasText: '/chrome/picker' });
    expect(await own.locator('input').isDisabled()).toBe(true);
    expect(await own.locator('.why').first().textContent()).toMatch(/clawd-browser's own pages/);
    expect(lentTabs()).toEqual([]);
  });

  it("opens from the console too, in the person's Chrome, once however often asked, and never offers the console's own tab", async () => {
    const person = await env.personPlaywright();
    const pickers = () =>
      person
        .contexts()[0]
        .pages()
        .filter((page) => /\/chrome\/picker\/[\w-]{20,}\/$/.test(page.url()));
    await picker.close();
    const consolePage = await person.contexts()[0].newPage();
    await consolePage.goto((await (await env.raw('/dashboard/link', { method: 'POST' })).json()).url);
    await consolePage.locator('#chrome-pick').click();
    await waitFor(() => pickers().length === 1, { message: 'the console did not open the picker' });
    [picker] = pickers();
    const consoleItem = picker.locator('li', { has: picker.locator('.url', { hasText: /^http:\/\/127\.0\.0\.1:\d+\/console\/[\w-]+\/$/ }) });
    await consoleItem.waitFor();
    expect(await consoleItem.locator('input').isDisabled()).toBe(true);
    // Asked again (the console, the CLI, an agent): the picker open comes to the front, no other tab opens.
    for (let i = 0; i < 3; i++) expect((await env.raw('/chrome/picker/open', { method: 'POST' })).status).toBe(200);
    await consolePage.locator('#chrome-pick').click();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pickers()).toHaveLength(1);
    await consolePage.close();
  });

  it('lends the tab the person ticks, and that tab only', async () => {
    await lendInPicker(shop.pageTargetId, true);
    expect(lentTabs().map((tab) => tab.targetId)).toEqual([shop.pageTargetId]);
    await waitFor(async () => (await picker.locator(`li[data-target-id="${shop.pageTargetId}"]`).getAttribute('class')) === 'lent', {
      message: 'the picker does not show the tab lent',
    });
  });
});

describe('the CLI and doctor', () => {
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [CLI, '--url', `http://127.0.0.1:${env.server.control.port}`, ...args],
        { env: { ...process.env, CLAWD_HOME: env.home } },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      ),
    );

  it('`clawd-browser chrome` says what is attached and lent; doctor names the browser, and the other tool attached to its tabs', async () => {
    const { code, stdout } = await cli('chrome');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^attached to \\S*Chrome/\\d[\\d.]* \\(${env.userDataDir}\\): 1 tab\\(s\\) lent`));
    const report = JSON.parse((await cli('--json', 'doctor')).stdout) as { checks: Array<{ name: string; verdict: string; detail: string; fix?: string }> };
    const chrome = report.checks.filter((check) => check.name === 'chrome');
    expect(chrome[0]).toMatchObject({ verdict: 'ok', detail: expect.stringMatching(/^attached to .*Chrome\/.*; 1 tab\(s\) lent$/) });
    // The person's own Playwright (this test's) is attached to every tab of theirs: another tool driving the same browser.
    expect(chrome[1]).toMatchObject({ verdict: 'warn', detail: expect.stringMatching(/another DevTools client .* attached to \d+ of your tabs/) });
    // `chrome pick`: attached already, so the picker open comes to the front.
    const pick = await cli('chrome', 'pick');
    expect(pick).toEqual({ code: 0, stdout: expect.stringMatching(/^the tab picker is open in your Chrome/) });
    expect(
      (await env.personPlaywright())
        .contexts()[0]
        .pages()
        .filter((page) => /\/chrome\/picker\/[\w-]{20,}\/$/.test(page.url())),
    ).toHaveLength(1);
  });
});

describe('a client with the token', () => {
  let browser: Browser;
  let page: Page;
  let browserSession: CDPSession;
  let pageSession: CDPSession;
  const scene = (): BoundaryScene => ({
    browser,
    lentPage: page,
    browserSession,
    pageSession,
    bankUrl: env.fixtures.crossOriginUrl('index.html?bank=1'),
    bankSecret: 'bank-secret',
    lentOrigin: new URL(env.fixtures.url('/')).origin,
    personCookies: async () => (await env.person.cdp.send<{ cookies: Array<{ name: string; value: string; domain: string }> }>('Storage.getCookies')).cookies,
    personPages: () => pageTargets(env.person.cdp),
    jsonNew: async (url) =>
      (
        await fetch(`http://127.0.0.1:${env.server.relay.port}/json/new?${url}&profile=chrome`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${env.server.token}` },
        })
      ).status,
  });

  beforeAll(async () => {
    browser = await chromium.connectOverCDP(relayCdp());
    [page] = browser.contexts()[0].pages();
    browserSession = await browser.newBrowserCDPSession();
    pageSession = await browser.contexts()[0].newCDPSession(page);
  });
  afterAll(async () => {
    await browser?.close().catch(() => {});
  });

  it('sees exactly the lent tab with Playwright, and drives it', async () => {
    expect(
      browser
        .contexts()[0]
        .pages()
        .map((each) => each.url()),
    ).toEqual([env.fixtures.url('index.html?shop=1')]);
    await page.click('#btn');
    expect(await page.textContent('#count')).toBe('1');
    // The person's own tab says so, read outside clawd-browser.
    expect(await inPersonBrowser<string>(shop.pageTargetId, "document.getElementById('count').textContent")).toBe('1');
  });

  it('sees exactly the lent tab with Puppeteer', async () => {
    const pptr = await puppeteer.connect({ browserWSEndpoint: relayCdp(), defaultViewport: null });
    try {
      const pages = await pptr.pages();
      expect(pages.map((each) => each.url())).toEqual([env.fixtures.url('index.html?shop=1')]);
      await pages[0].click('#btn');
      expect(await pages[0].$eval('#count', (element) => element.textContent)).toBe('2');
    } finally {
      await pptr.disconnect();
    }
  });

  it('finds the lent tab only, at /json/list?profile=chrome and through the control API', async () => {
    const list = await (
      await fetch(`http://127.0.0.1:${env.server.relay.port}/json/list?profile=chrome`, { headers: { authorization: `Bearer ${env.server.token}` } })
    ).json();
    expect(list.map((entry: { id: string }) => entry.id)).toEqual([shop.pageTargetId]);
    const version = await (await fetch(`http://127.0.0.1:${env.server.relay.port}/json/version?profile=chrome&token=${env.server.token}`)).json();
    expect(version.webSocketDebuggerUrl).toBe(relayCdp());
    expect((await env.client().tabs()).map((tab) => tab.targetId)).toEqual([shop.pageTargetId]);
    const { text } = await env.client().snapshot({ targetId: shop.pageTargetId });
    expect(text).toContain('Fixture Home');
  });

  it('cannot reach the tabs not lent, by any Target or Browser method', async () => {
    await hidesUnlentTabs(scene(), [bank.pageTargetId, other.pageTargetId]);
  });

  it('opens no local file, and no extension or browser page', async () => {
    await refusesLocalFiles(scene());
    await refusesExtensionPages(scene(), 'chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/options.html');
    await expect(browserSession.send('Target.createTarget', { url: 'chrome://settings' })).rejects.toThrow(/Navigation refused: chrome: URLs are refused/);
  });

  it("reads and writes the lent site's cookies only, never the bank's", async () => {
    await scopesCookies(scene());
    await scopesPlaywrightCookies(scene());
  });

  it("never reaches clawd-browser's own logins (the picker's cookie is in this very browser)", async () => {
    await keepsClawdLoginsOut(scene(), env.server.control.port);
    expect((await scene().personCookies()).some((cookie) => cookie.name === 'clawd_picker')).toBe(true);
  });

  it("never opens the picker's tab, nor lends itself a tab, through the token", async () => {
    for (const [path, init] of [
      ['/chrome/picker/tabs', {}],
      ['/chrome/picker/lend', { method: 'POST', body: JSON.stringify({ targetId: bank.pageTargetId, lent: true }) }],
      ['/chrome/picker', {}],
    ] as const) {
      const answer = await env.raw(path, init);
      expect(answer.status, path).toBe(403);
      expect((await answer.json()).error.message).toMatch(/Only the person at the browser lends its tabs/);
    }
    // Not with the console's cookie either: the token can mint one.
    const login = await fetch((await (await env.raw('/dashboard/link', { method: 'POST' })).json()).url, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const consolePath = /Path=([^;]+)/.exec(login.headers.get('set-cookie')!)![1];
    const viaConsole = await fetch(`http://127.0.0.1:${env.server.control.port}${consolePath}chrome/picker/lend`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ targetId: bank.pageTargetId, lent: true }),
    });
    expect(viaConsole.status).toBe(403);
    expect((await fetch(`http://127.0.0.1:${env.server.control.port}/chrome/picker/login?code=guessed`, { redirect: 'manual' })).status).toBe(401);
    expect(lentTabs().map((tab) => tab.targetId)).toEqual([shop.pageTargetId]);
  });

  it("never reaches clawd-browser's own pages from the lent tab, whatever sends the request: the picker's tab list stays the person's", async () => {
    // Another server of this host the agent may use: it redirects wherever it is asked.
    const redirector = await startTestSite((request, response, url) => {
      const to = url.searchParams.get('to');
      if (to) return void response.writeHead(302, { location: to }).end();
      response.writeHead(200, { 'content-type': 'text/html' }).end('<title>elsewhere</title>');
    });
    try {
      // The picker's cookie is in this very browser, sent only under the picker's own path, a random one.
      const cookie = ((await scene().personCookies()) as unknown as Array<{ name: string; path: string; httpOnly: boolean; sameSite: string }>).find(
        (each) => each.name === 'clawd_picker',
      )!;
      expect(cookie).toMatchObject({ path: expect.stringMatching(/^\/chrome\/picker\/[\w-]{20,}\/$/), httpOnly: true, sameSite: 'Strict' });
      // Even knowing that path (the test reads it from the person's browser; an agent never sees it), nothing of the lent tab gets there.
      const list = `${picker.url().replace(/\/?$/, '/')}tabs`;
      await reachesNoOwnOrigin(scene(), {
        target: list,
        redirector: `${redirector.url}/go`,
        secrets: ['bank=1', 'other=1'],
        closeInPerson: (targetId) => env.person.cdp.send('Target.closeTarget', { targetId }).then(() => {}),
      });
      await waitFor(() => lentTabs().length === 1, { message: 'the probe tab is still lent' });
      expect(lentTabs().map((tab) => tab.targetId)).toEqual([shop.pageTargetId]);
      // The person's own picker still works, in its own tab.
      expect(await picker.evaluate(() => fetch('tabs').then((answer) => answer.status))).toBe(200);
    } finally {
      await redirector.close();
    }
  });

  it("takes a lent tab's popup along, never a tab the person opens", async () => {
    await page.goto(env.fixtures.url('popup.html'));
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#blank')]);
    await popup.waitForLoadState();
    expect(popup.url()).toContain('blank=1');
    expect(await popup.textContent('h1')).toBe('Fixture Home');
    await waitFor(async () => (await picker.locator('li.lent').count()) === 2, { message: 'the picker does not show the popup lent' });
    const beside = await openTab(env.person.cdp, env.fixtures.url('index.html?person-opened=1'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lentTabs().map((tab) => tab.targetId)).not.toContain(beside.pageTargetId);
    expect(
      browser
        .contexts()[0]
        .pages()
        .map((each) => each.url()),
    ).not.toContain(env.fixtures.url('index.html?person-opened=1'));
    await popup.close();
    await env.person.cdp.send('Target.closeTarget', { targetId: beside.pageTargetId });
  });

  it("hears of the lent tab's downloads (Playwright's download event), saved where the person's Chrome saves them", async () => {
    await page.goto(env.fixtures.url('download.html'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#report')]);
    expect(download.suggestedFilename()).toBe('report.txt');
    expect(readFileSync((await download.path())!, 'utf8')).toBe('clawd report');
    // GET /downloads lists it where the person's Chrome saved it (as Chrome reported), beside the driver's own copy.
    const { downloads } = await env.client().downloads();
    const saved = downloads.filter((each) => each.targetId === shop.pageTargetId && each.state === 'complete' && !each.path?.startsWith(env.home));
    expect(saved.map((each) => readFileSync(each.path!, 'utf8'))).toEqual(['clawd report']);
  });

  it('may open a tab of its own, which is lent to it and marked so in the picker', async () => {
    const own = await browser.contexts()[0].newPage();
    await own.goto(env.fixtures.url('index.html?agent-opened=1'));
    const targetId = lentTabs().find((tab) => tab.url.includes('agent-opened=1'))?.targetId;
    expect(targetId).toBeDefined();
    await waitFor(async () => (await picker.locator(`li[data-target-id="${targetId}"] .why`).allTextContents()).includes('Opened by an agent'), {
      message: 'the picker does not say the agent opened it',
    });
    await own.close();
    await waitFor(() => !lentTabs().some((tab) => tab.targetId === targetId), { message: 'the closed tab is still lent' });
  });

  it("is taken back the moment the lent tab goes to clawd-browser's own pages, and lent again when it leaves", async () => {
    const { sessionId } = await env.person.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: shop.pageTargetId, flatten: true });
    const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
    await env.person.cdp.send('Page.navigate', { url: `http://127.0.0.1:${env.server.control.port}/chrome/picker` }, sessionId);
    await closed;
    expect(lentTabs().some((tab) => tab.targetId === shop.pageTargetId)).toBe(false);
    await waitFor(
      async () => (await picker.locator(`li[data-target-id="${shop.pageTargetId}"] .why`).allTextContents()).join(' ').includes('Taken back for now'),
      { message: 'the picker does not say the tab is taken back' },
    );
    await env.person.cdp.send('Page.navigate', { url: env.fixtures.url('index.html?shop=again') }, sessionId);
    await env.person.cdp.send('Target.detachFromTarget', { sessionId });
    await waitFor(() => lentTabs().some((tab) => tab.targetId === shop.pageTargetId && tab.url.includes('shop=again')), {
      message: 'the tab was not lent again',
    });
    await waitFor(
      () =>
        browser
          .contexts()[0]
          .pages()
          .some((each) => each.url().includes('shop=again')),
      { message: 'the client did not get the tab back' },
    );
    page = browser
      .contexts()[0]
      .pages()
      .find((each) => each.url().includes('shop=again'))!;
  });

  it('loses the tab when the person takes it back in the picker', async () => {
    const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
    await lendInPicker(shop.pageTargetId, false);
    await closed;
    expect(browser.contexts()[0].pages()).toEqual([]);
    expect(await env.client().tabs()).toEqual([]);
    // The person's tab itself is as it was.
    expect(await inPersonBrowser<string>(shop.pageTargetId, 'location.search')).toBe('?shop=again');
  });
});

describe('the browser stopping and starting again', () => {
  it('takes every lent tab back when the browser dies, and says the port file it left is stale', async () => {
    await lendInPicker(shop.pageTargetId, true);
    await env.stopPerson({ kill: true });
    await waitFor(() => env.server.relay.chrome.attachment.status().state === 'failed', { message: 'the lost browser was not noticed' });
    expect(lentTabs()).toEqual([]);
    expect(env.server.relay.chrome.attachment.status().problem?.kind).toBe('lost');
    const status = await (await env.raw('/chrome/attach', { method: 'POST', body: JSON.stringify({ waitSeconds: 5 }) })).json();
    expect(status).toMatchObject({ state: 'failed', problem: { kind: 'stale' } });
    expect(status.problem.fix).toMatch(/start your browser again/);
    await expect(env.client().tabs()).rejects.toThrow(/DevToolsActivePort names port \d+, where nothing listens/);
  });

  it('attaches to the browser started again, whose tabs the person lends afresh', async () => {
    await env.startPerson();
    const again = await openTab(env.person.cdp, env.fixtures.url('index.html?after-restart=1'));
    const status = await (await env.raw('/chrome/attach', { method: 'POST', body: JSON.stringify({ waitSeconds: 15 }) })).json();
    expect(status).toMatchObject({ state: 'attached', lentTabs: 0 });
    picker = await env.openPicker();
    await lendInPicker(again.pageTargetId, true);
    const browser = await chromium.connectOverCDP(relayCdp());
    try {
      expect(
        browser
          .contexts()[0]
          .pages()
          .map((each) => each.url()),
      ).toEqual([env.fixtures.url('index.html?after-restart=1')]);
    } finally {
      await browser.close();
    }
  });
});
