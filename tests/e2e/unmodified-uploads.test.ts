import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/chromium.js';
import { type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/**
 * Uploads by unmodified clients on a shared tab. chrome.debugger refuses
 * DOM.setFileInputFiles to extensions; Puppeteer's uploadFile (and
 * Playwright, where it does not read the files itself) send it with paths
 * anyway. The relay reads the files (upload folders only) and sets their
 * contents through the page: the page's own FileReader proves names and
 * bytes arrived.
 */

let env: RelayEnv;
let uploads: string;
let home: string;

beforeAll(async () => {
  uploads = mkdtempSync(join(tmpdir(), 'clawd-uploads-'));
  home = mkdtempSync(join(tmpdir(), 'clawd-uploads-home-'));
  writeFileSync(join(uploads, 'a.txt'), 'hello from a');
  writeFileSync(join(uploads, 'b.txt'), 'hello from b');
  writeFileSync(join(home, 'token'), 'the-secret-token');
  env = await startRelayEnv({ uploadPolicy: () => ({ dirs: [uploads, home], clawdHome: home }) });
}, 90_000);
afterAll(async () => {
  await env?.close();
  for (const dir of [uploads, home]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('uploads by unmodified clients, through the relay', () => {
  it("Playwright's setInputFiles and file chooser, with paths", async () => {
    await env.share(env.fixtures.url('upload.html?client=playwright'));
    const browser = await chromium.connectOverCDP(env.cdpUrl());
    try {
      const page = browser
        .contexts()[0]
        .pages()
        .find((candidate) => candidate.url().includes('client=playwright'))!;
      await page.setInputFiles('#file', [join(uploads, 'a.txt'), join(uploads, 'b.txt')]);
      await waitFor(async () => (await page.textContent('#result')) !== 'none');
      expect(await page.textContent('#result')).toBe('a.txt:hello from a;b.txt:hello from b');

      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#choose')]);
      await chooser.setFiles(join(uploads, 'b.txt'));
      await waitFor(async () => (await page.textContent('#chooser-result')) !== 'none');
      expect(await page.textContent('#chooser-result')).toBe('b.txt:hello from b');
    } finally {
      await browser.close();
    }
  });

  it("Puppeteer's uploadFile", async () => {
    await env.share(env.fixtures.url('upload.html?client=puppeteer'));
    const browser = await puppeteer.connect({ browserWSEndpoint: env.cdpUrl(), defaultViewport: null });
    try {
      const page = (await browser.pages()).find((candidate) => candidate.url().includes('client=puppeteer'))!;
      const input = (await page.$('input#file')) as import('puppeteer-core').ElementHandle<HTMLInputElement>;
      await input.uploadFile(join(uploads, 'a.txt'));
      await page.waitForFunction(() => document.getElementById('result')!.textContent !== 'none');
      expect(await page.$eval('#result', (element) => element.textContent)).toBe('a.txt:hello from a');
      // The relay reads the files, so its rule holds: $CLAWD_HOME's secrets never leave, even from inside an upload folder.
      await expect(input.uploadFile(join(home, 'token'))).rejects.toThrow(
        /Upload refused: Upload path .* is in clawd-browser's own folder .*, which is never an upload source/,
      );
      await expect(input.uploadFile('/etc/passwd')).rejects.toThrow(/Upload refused/);
      expect(await page.$eval('#result', (element) => element.textContent)).toBe('a.txt:hello from a');
    } finally {
      await browser.disconnect();
    }
  });
});
