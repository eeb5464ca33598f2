import { readFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/**
 * Downloads seen by unmodified clients on a shared tab. Chrome's download
 * events belong to the browser target, which chrome.debugger does not
 * have; the relay makes them from what the extension sees
 * (chrome.downloads), and copies the file where Playwright looks for it.
 */

let env: RelayEnv;
beforeAll(async () => {
  env = await startRelayEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

describe('downloads for unmodified clients, through the relay', () => {
  it("Playwright's waitForEvent('download') fires, and download.path() holds the file", async () => {
    await env.share(env.fixtures.url('download.html?client=playwright'));
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = browser
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().includes('client=playwright'))!;
      // Twice: the second is saved as "report (1).txt" in the folder, yet the site's name is what the client is told.
      for (let round = 0; round < 2; round++) {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#report')]);
        expect(download.suggestedFilename()).toBe('report.txt');
        const path = await download.path();
        expect(await readFile(path, 'utf8')).toBe('clawd report');
      }
    } finally {
      await browser.close();
    }
  });

  it("Puppeteer's download events fire", async () => {
    await env.share(env.fixtures.url('download.html?client=puppeteer'));
    const browser = await puppeteer.connect({ browserWSEndpoint: env.cdpUrl(), defaultViewport: null });
    try {
      const session = await browser.target().createCDPSession();
      const events: Array<{ method: string; state?: string; suggestedFilename?: string }> = [];
      session.on('Browser.downloadWillBegin', (event) => events.push({ method: 'begin', suggestedFilename: event.suggestedFilename }));
      session.on('Browser.downloadProgress', (event) => events.push({ method: 'progress', state: event.state }));
      await session.send('Browser.setDownloadBehavior', { behavior: 'allow', eventsEnabled: true });
      const page = (await browser.pages()).find((candidate) => candidate.url().includes('client=puppeteer'))!;
      await page.click('#report');
      await waitFor(() => events.some((event) => event.state === 'completed'), { message: 'no completed download event' });
      expect(events[0]).toEqual({ method: 'begin', suggestedFilename: 'report.txt' });
      expect(events.at(-1)).toEqual({ method: 'progress', state: 'completed' });
    } finally {
      await browser.disconnect();
    }
  });
});
