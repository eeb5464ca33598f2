import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { chromiumPath } from './chromium.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { registerSnapshotEngine } from '../../relay/src/snapshot/snapshot-engine.js';

/**
 * For suites that drive pages directly with Playwright (no relay, no
 * server): one Chromium and one fixture server per file, a fresh page per
 * test. Call at the top level of a test file; read `page` and `server` in
 * tests (they are set by the hooks this registers).
 */
export function pagePerTest(pageOptions: BrowserContextOptions = {}): { readonly page: Page; readonly server: FixtureServer } {
  let server: FixtureServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    server = await startFixtureServer();
    // The snapshot engine must be registered before the browser's contexts exist (snapshot-engine.ts).
    await registerSnapshotEngine();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser!.newPage(pageOptions);
  });
  afterEach(async () => {
    await page?.close();
  });
  return {
    get page() {
      if (!page) throw new Error('pagePerTest: no page outside a test');
      return page;
    },
    get server() {
      if (!server) throw new Error('pagePerTest: no fixture server outside a test');
      return server;
    },
  };
}
