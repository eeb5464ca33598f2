/**
 * A managed profile (issue 4): `POST /start` → first `GET /tabs` through
 * `clawd-browser serve` as users run it, against a plain Playwright
 * `chromium.launch()` of the same binary; and (issue 5) `GET /snapshot` of a
 * 5,000-element page against Playwright's own ariaSnapshot() of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { freePortPair } from '../tests/harness/ports.js';
import { startServe } from './serve-process.js';

const now = () => performance.now();

export interface SnapshotFigures {
  ours: number[];
  playwright: number[];
  snapshotChars: number;
  ariaChars: number;
  htmlChars: number;
}

export interface ManagedStartFigures {
  /** Playwright chromium.launch() of the same binary. */
  plainLaunch: number[];
  /** POST /start + GET /tabs through clawd-browser serve. */
  serveStart: number[];
  runs: number;
  snapshot: SnapshotFigures;
}

export async function measureManagedStart(manyUrl: string): Promise<ManagedStartFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-managed-'));
  const ports = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, noSandbox: true }));
  const server = await startServe(home, ports.control);
  const token = server.token;
  const base = `http://127.0.0.1:${ports.control}`;
  const call = (method: string, path: string) => fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const results: ManagedStartFigures = {
    plainLaunch: [],
    serveStart: [],
    runs: Number(process.env.BENCH_STARTS ?? 5),
    snapshot: { ours: [], playwright: [], snapshotChars: 0, ariaChars: 0, htmlChars: 0 },
  };
  try {
    // The first start seeds the profile; measure warm starts like a user's second launch.
    await call('POST', '/start');
    await call('POST', '/stop');
    for (let i = 0; i < results.runs; i++) {
      let start = now();
      const started = await call('POST', '/start');
      const tabs = await call('GET', '/tabs');
      if (!started.ok || !tabs.ok) throw new Error(`managed start failed: ${started.status} ${tabs.status}`);
      results.serveStart.push(now() - start);
      await call('POST', '/stop');

      start = now();
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
      const context = await browser.newContext();
      context.pages();
      results.plainLaunch.push(now() - start);
      await browser.close();
    }

    // Issue 5: GET /snapshot (ai) of a 5,000-element page, as an agent pays for it, against
    // Playwright's own ariaSnapshot() of the same page in the same browser.
    const opened = (await (
      await fetch(`${base}/tabs/open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: manyUrl }),
      })
    ).json()) as { targetId: string };
    // The profile's CDP, where clawd-browser serves it (its browser listens on no port).
    const playwright = await chromium.connectOverCDP(`ws://127.0.0.1:${ports.relay}/cdp?profile=clawd`, { headers: { authorization: `Bearer ${token}` } });
    const page = playwright
      .contexts()[0]
      .pages()
      .find((p) => p.url() === manyUrl)!;
    results.snapshot.htmlChars = await page.evaluate(() => document.documentElement.outerHTML.length);
    for (let i = 0; i < 7; i++) {
      let start = now();
      const snapshot = (await (await call('GET', `/snapshot?targetId=${opened.targetId}`)).json()) as { text: string };
      results.snapshot.ours.push(now() - start);
      results.snapshot.snapshotChars = snapshot.text.length;
      start = now();
      const aria = await page.locator('body').ariaSnapshot();
      results.snapshot.playwright.push(now() - start);
      results.snapshot.ariaChars = aria.length;
    }
    await playwright.close();
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
  return results;
}
