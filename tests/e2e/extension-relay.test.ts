import { chromium, type Browser, type Page } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/**
 * The extension relay end to end: a real Chromium with the built extension,
 * tabs shared by simulated toolbar clicks, driven by unmodified Playwright
 * (connectOverCDP) and Puppeteer (connect) through the relay.
 */

let env: RelayEnv;
let sharedUrl: string;
let unsharedUrl: string;
let sharedPageId: string;

beforeAll(async () => {
  env = await startRelayEnv();
  sharedUrl = env.fixtures.url('index.html?shared=1');
  unsharedUrl = env.fixtures.url('index.html?unshared=1');
  await env.openTab(unsharedUrl);
  sharedPageId = (await env.share(sharedUrl)).pageTargetId;
});

afterAll(async () => {
  await env?.close();
});

async function connect(): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.connectOverCDP(env.cdpUrl());
  const pages = browser.contexts()[0].pages();
  const page = pages.find((p) => p.url() === sharedUrl) ?? pages[0];
  return { browser, page };
}

describe('Playwright over the relay', () => {
  it('sees exactly the shared tab, and drives it: evaluate, click, fill, keys, screenshot, goto', async () => {
    const { browser, page } = await connect();
    try {
      expect(browser.contexts()).toHaveLength(1);
      expect(
        browser
          .contexts()[0]
          .pages()
          .map((p) => p.url()),
      ).toEqual([sharedUrl]);

      expect(await page.evaluate(() => document.title)).toBe('Fixture Home');
      await page.click('#btn');
      await page.click('#btn');
      expect(await page.textContent('#count')).toBe('2');
      await page.fill('#name', 'clawd');
      expect(await page.inputValue('#name')).toBe('clawd');
      await page.focus('#name');
      await page.keyboard.press('X');
      await page.keyboard.press('Enter');
      expect(await page.textContent('#keys')).toContain('Enter');

      const png = await page.screenshot();
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.length).toBeGreaterThan(1000);

      await page.goto(env.fixtures.url('frame-child.html'));
      expect(await page.title()).toBe('Frame Child');
      await page.click('#inner');
      expect(await page.evaluate(() => document.body.dataset.clicked)).toBe('yes');
      await page.goto(sharedUrl);
      expect(await page.evaluate(() => location.search)).toBe('?shared=1');
    } finally {
      await browser.close();
    }
    // Browser.close from a client ends that client only: the tab stays shared.
    expect(env.isShared(sharedPageId)).toBe(true);
  });

  it('opens a new page with context.newPage(), which is shared, and closes it', async () => {
    const { browser } = await connect();
    try {
      const context = browser.contexts()[0];
      const page = await context.newPage();
      expect(env.relay.bridge.sharedTabs()).toHaveLength(2);
      await page.goto(env.fixtures.url('index.html?new=1'));
      expect(await page.title()).toBe('Fixture Home');
      await page.click('#btn');
      expect(await page.textContent('#count')).toBe('1');
      await page.close();
      await waitFor(() => env.relay.bridge.sharedTabs().length === 1, { message: 'closed page still shared' });
      expect(context.pages().map((p) => p.url())).toEqual([sharedUrl]);
    } finally {
      await browser.close();
    }
  });

  it('reaches a cross-origin (out-of-process) iframe through page.frames()', async () => {
    const { browser, page } = await connect();
    try {
      const child = env.fixtures.crossOriginUrl('frame-child.html');
      await page.goto(env.fixtures.url(`frame-host.html?src=${encodeURIComponent(child)}`));
      await waitFor(() => page.frames().some((f) => f.url() === child), { message: 'the cross-origin frame never appeared' });
      const frame = page.frames().find((f) => f.url() === child)!;
      expect(new URL(frame.url()).origin).not.toBe(new URL(page.url()).origin);
      // It travelled as a child session of the tab (an out-of-process iframe).
      // (Chrome attaches it before it commits its URL, so its targetInfo url is still empty.)
      expect(env.relay.bridge.childTargets()).toContainEqual(expect.objectContaining({ type: 'iframe' }));
      await frame.click('#inner');
      expect(await frame.evaluate(() => document.body.dataset.clicked)).toBe('yes');
      expect(await frame.title()).toBe('Frame Child');
    } finally {
      await page.goto(sharedUrl);
      await browser.close();
    }
  });

  it("goes to about:blank and back, the blank page being the tab's own (never the extension's origin)", async () => {
    const { browser, page } = await connect();
    try {
      expect(await page.goto('about:blank')).toBeNull();
      expect(page.url()).toBe('about:blank');
      // Still shared and driven: the blank page has the origin the tab had, not chrome-extension://.
      expect(await page.evaluate(() => origin)).toBe(new URL(sharedUrl).origin);
      expect(env.relay.bridge.sharedTabs().map((tab) => tab.url)).toContain('about:blank');
      await page.goto(sharedUrl);
      expect(await page.title()).toBe('Fixture Home');
    } finally {
      await page.goto(sharedUrl);
      await browser.close();
    }
  });

  it('shares popups (window.open, target=_blank) and shows them as new pages', async () => {
    const { browser, page } = await connect();
    try {
      await page.goto(env.fixtures.url('popup.html'));
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#open')]);
      await popup.waitForLoadState();
      expect(popup.url()).toContain('popup=1');
      expect(await popup.evaluate(() => document.title)).toBe('Fixture Home');
      const [blank] = await Promise.all([browser.contexts()[0].waitForEvent('page'), page.click('#blank')]);
      await blank.waitForLoadState();
      expect(blank.url()).toContain('blank=1');
      await blank.click('#btn');
      expect(await blank.textContent('#count')).toBe('1');
      expect(env.relay.bridge.sharedTabs()).toHaveLength(3);
      await popup.close();
      await blank.close();
      await waitFor(() => env.relay.bridge.sharedTabs().length === 1, { message: 'popups still shared after close' });
      // A popup of another site lands in another renderer process; each one is shown, at its page,
      // also when its opener is in the background behind the previous one.
      const crossSite = env.fixtures.url('index.html').replace('127.0.0.1', 'localhost');
      const others = [];
      for (let i = 0; i < 5; i++) {
        const [other] = await Promise.all([page.waitForEvent('popup'), page.evaluate((url) => void window.open(url), `${crossSite}?other=${i}`)]);
        expect(other.url()).toBe(`${crossSite}?other=${i}`);
        expect(await other.title()).toBe('Fixture Home');
        others.push(other);
      }
      for (const other of others) await other.close();
    } finally {
      await page.goto(sharedUrl);
      await browser.close();
    }
  });

  it('serves two clients at once; the second sees the page as the first does', async () => {
    const first = await connect();
    const second = await connect();
    try {
      const [a, b] = await Promise.all([first.page.evaluate(() => location.href), second.page.evaluate(() => location.href)]);
      expect(a).toBe(sharedUrl);
      expect(b).toBe(sharedUrl);
      await first.page.click('#btn');
      expect(await second.page.textContent('#count')).toBe('1');
      await first.browser.close();
      // The first client's departure leaves the second working.
      await second.page.click('#btn');
      expect(await second.page.textContent('#count')).toBe('2');
      expect(await second.page.evaluate(() => 6 * 7)).toBe(42);
    } finally {
      await second.browser.close();
    }
  });
});

describe('Puppeteer over the relay', () => {
  it('connects, evaluates, clicks, and opens and closes a page', async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: env.cdpUrl(), defaultViewport: null });
    try {
      const pages = await browser.pages();
      expect(pages.map((p) => p.url())).toEqual([sharedUrl]);
      const page = pages[0];
      expect(await page.evaluate(() => document.title)).toBe('Fixture Home');
      await page.reload();
      await page.click('#btn');
      expect(await page.$eval('#count', (el) => el.textContent)).toBe('1');
      const fresh = await browser.newPage();
      await fresh.goto(env.fixtures.url('frame-child.html'));
      expect(await fresh.title()).toBe('Frame Child');
      await fresh.close();
      await waitFor(() => env.relay.bridge.sharedTabs().length === 1, { message: 'puppeteer page still shared' });
    } finally {
      await browser.disconnect();
    }
  });
});

describe('what is shared', () => {
  it('keeps unshared tabs invisible on /json/list and to clients', async () => {
    const response = await fetch(`http://127.0.0.1:${env.relay.port}/json/list`, { headers: { authorization: `Bearer ${env.token}` } });
    const list = (await response.json()) as Array<{ id: string; url: string; type: string }>;
    expect(list.map((t) => t.url)).toEqual([sharedUrl]);
    expect(list[0]).toMatchObject({ id: sharedPageId, type: 'page' });
    const { browser } = await connect();
    try {
      const urls = browser
        .contexts()[0]
        .pages()
        .map((p) => p.url());
      expect(urls).not.toContain(unsharedUrl);
    } finally {
      await browser.close();
    }
  });

  it('a second toolbar click un-shares the tab and clients see the page go', async () => {
    const { browser, page } = await connect();
    try {
      const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
      const { tabTargetForPage } = await import('../harness/chromium.js');
      const tab = await tabTargetForPage(env.browser.cdp, sharedPageId);
      await env.click(tab.targetId);
      await closed;
      expect(env.isShared(sharedPageId)).toBe(false);
      expect(browser.contexts()[0].pages()).toEqual([]);
      // Clicking again shares it again.
      await env.click(tab.targetId);
      await waitFor(() => env.isShared(sharedPageId), { message: 'tab not shared again' });
    } finally {
      await browser.close();
    }
  });
});
