// Proves the harness itself works against real Chromium, so failures in other
// suites can be trusted to be about the code under test.

import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extensionReady,
  extensionServiceWorkerTarget,
  getExtensionStorage,
  launchChromium,
  openTab,
  pageTargets,
  setExtensionStorage,
  tabTargetForPage,
  tabTargets,
  triggerExtensionAction,
  waitFor,
  type LaunchedChromium,
} from '../harness/chromium.js';
import { startFixtureServer, type FixtureServer } from '../harness/fixture-server.js';

const TIMEOUT = 30_000;

/** Writes a minimal MV3 extension that records the tab of each toolbar click. */
async function writeClickRecorderExtension(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'harness-ext-'));
  const manifest = {
    manifest_version: 3,
    name: 'Harness click recorder',
    version: '1.0',
    action: {},
    permissions: ['storage'],
    background: { service_worker: 'background.js' },
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  await writeFile(
    join(dir, 'background.js'),
    `chrome.action.onClicked.addListener((tab) => {
  chrome.storage.local.set({ clicked: tab.id });
});
`,
  );
  return dir;
}

describe('fixture server', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server?.close());

  it('serves fixtures, echo pages and 404s', async () => {
    const index = await fetch(server.url('/index.html'));
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await index.text()).toContain('<title>Fixture Home</title>');

    const echo = await fetch(server.url(`/echo?body=${encodeURIComponent('<p id="x">hi</p>')}`));
    expect(await echo.text()).toBe('<p id="x">hi</p>');

    expect((await fetch(server.url('/missing.html'))).status).toBe(404);
    expect((await fetch(server.crossOriginUrl('frame-child.html'))).status).toBe(200);
  });
});

describe('chromium with an extension over the pipe', () => {
  let server: FixtureServer;
  let browser: LaunchedChromium;
  let extensionDir: string;
  let extensionId: string;

  beforeAll(async () => {
    server = await startFixtureServer();
    extensionDir = await writeClickRecorderExtension();
    browser = await launchChromium({ extensionDir });
    // An unpacked extension's ID depends on its path; read it off the worker URL.
    const worker = await extensionServiceWorkerTarget(browser.cdp, '', 15_000);
    extensionId = new URL(worker.url).host;
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (extensionDir) await rm(extensionDir, { recursive: true, force: true });
  }, TIMEOUT);

  it('reports CDP errors with the method name', async () => {
    await expect(browser.cdp.send('Nope.notAMethod')).rejects.toThrow(/Nope\.notAMethod.*wasn't found/);
  });

  it(
    'maps pages to their tab targets, even when two tabs show the same URL',
    async () => {
      const first = await openTab(browser.cdp, server.url('index.html'));
      const second = await openTab(browser.cdp, server.url('index.html'));
      expect(first.tabTargetId).not.toBe(second.tabTargetId);
      expect(first.tabTargetId).not.toBe(first.pageTargetId);

      const tabIds = (await tabTargets(browser.cdp)).map((t) => t.targetId);
      expect(tabIds).toEqual(expect.arrayContaining([first.tabTargetId, second.tabTargetId]));
      const pageIds = (await pageTargets(browser.cdp)).map((t) => t.targetId);
      expect(pageIds).toEqual(expect.arrayContaining([first.pageTargetId, second.pageTargetId]));

      expect((await tabTargetForPage(browser.cdp, second.pageTargetId)).targetId).toBe(second.tabTargetId);
      await expect(tabTargetForPage(browser.cdp, 'not-a-page')).rejects.toThrow(/not-a-page/);
    },
    TIMEOUT,
  );

  it(
    'triggers the toolbar action for a tab',
    async () => {
      const { tabTargetId } = await openTab(browser.cdp, server.url('index.html'));
      // A click before the worker has registered its listener is dropped by Chrome.
      await extensionReady(browser.cdp, extensionId);
      await triggerExtensionAction(browser.cdp, extensionId, tabTargetId);

      let stored: Record<string, any> = {};
      await waitFor(
        async () => {
          stored = await getExtensionStorage(browser.cdp, extensionId, 'local', ['clicked']);
          return stored.clicked !== undefined;
        },
        { timeoutMs: 10_000, message: 'extension did not record the action click' },
      );
      // chrome.tabs tab IDs are small integers, unrelated to CDP target IDs.
      expect(typeof stored.clicked).toBe('number');
    },
    TIMEOUT,
  );

  it('refuses to trigger the action of an extension that is not loaded', async () => {
    // Chromium itself would crash on an unknown ID instead of returning an error.
    const [tab] = await tabTargets(browser.cdp);
    await expect(triggerExtensionAction(browser.cdp, 'a'.repeat(32), tab.targetId)).rejects.toThrow(/not loaded/);
    expect(browser.process.exitCode).toBeNull();
  });

  it(
    'receives multi-megabyte CDP replies intact',
    async () => {
      const { pageTargetId } = await openTab(browser.cdp, server.url('big.html'));
      const { sessionId } = await browser.cdp.send('Target.attachToTarget', {
        targetId: pageTargetId,
        flatten: true,
      });
      await waitFor(
        async () => {
          const { result } = await browser.cdp.send('Runtime.evaluate', { expression: 'document.body?.dataset.ready', returnByValue: true }, sessionId);
          return result.value === '1';
        },
        { message: 'big.html did not finish drawing' },
      );
      // Full page: clip to the whole content size, not just the viewport.
      const { cssContentSize: size } = await browser.cdp.send('Page.getLayoutMetrics', {}, sessionId);
      const { data } = await browser.cdp.send(
        'Page.captureScreenshot',
        {
          format: 'png',
          captureBeyondViewport: true,
          clip: { x: 0, y: 0, width: size.width, height: size.height, scale: 1 },
        },
        sessionId,
      );
      const png = Buffer.from(data, 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(size.height).toBeGreaterThan(3000);
      expect(png.length).toBeGreaterThan(3_000_000); // ~5 MB: arrives in many pipe chunks.
      await browser.cdp.send('Target.closeTarget', { targetId: pageTargetId });
    },
    TIMEOUT,
  );

  it(
    'round-trips extension storage',
    async () => {
      await setExtensionStorage(browser.cdp, extensionId, 'local', { greeting: 'hi', n: 3 });
      expect(await getExtensionStorage(browser.cdp, extensionId, 'local', ['greeting', 'n'])).toEqual({
        greeting: 'hi',
        n: 3,
      });
      await setExtensionStorage(browser.cdp, extensionId, 'session', { token: 'abc' });
      expect(await getExtensionStorage(browser.cdp, extensionId, 'session')).toEqual({ token: 'abc' });
    },
    TIMEOUT,
  );
});

describe('extension storage without a running service worker', () => {
  it(
    'goes through a throwaway extension page',
    async () => {
      const extensionDir = await mkdtemp(join(tmpdir(), 'harness-ext-'));
      const manifest = { manifest_version: 3, name: 'No worker', version: '1.0', permissions: ['storage'] };
      await writeFile(join(extensionDir, 'manifest.json'), JSON.stringify(manifest));
      const browser = await launchChromium({ extensionDir });
      try {
        const { extensions } = await browser.cdp.send('Extensions.getExtensions');
        const extensionId: string = extensions[0].id;
        await setExtensionStorage(browser.cdp, extensionId, 'local', { answer: 42 });
        expect(await getExtensionStorage(browser.cdp, extensionId, 'local')).toEqual({ answer: 42 });
        // The helper cleans up the page it opened.
        const urls = (await pageTargets(browser.cdp)).map((t) => t.url);
        expect(urls.filter((url) => url.startsWith('chrome-extension://'))).toEqual([]);
      } finally {
        await browser.close();
        await rm(extensionDir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );
});

describe('chromium with a debugging port', () => {
  it(
    'exposes /json/version on the port Chromium picked',
    async () => {
      const browser = await launchChromium({ remoteDebuggingPort: 0 });
      try {
        expect(browser.wsEndpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\//);
        expect(browser.httpEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const version = await (await fetch(`${browser.httpEndpoint}/json/version`)).json();
        expect(version.Browser).toMatch(/^Chrome\//);
        expect(version.webSocketDebuggerUrl).toBe(browser.wsEndpoint);
      } finally {
        await browser.close();
      }
    },
    TIMEOUT,
  );

  it(
    'closes idempotently and removes its temporary profile',
    async () => {
      const browser = await launchChromium({});
      await Promise.all([browser.close(), browser.close()]);
      await browser.close();
      expect(browser.process.exitCode ?? browser.process.signalCode).not.toBeNull();
      expect(existsSync(browser.userDataDir)).toBe(false);
      await expect(browser.cdp.send('Browser.getVersion')).rejects.toThrow(/Browser\.getVersion/);
    },
    TIMEOUT,
  );
});
