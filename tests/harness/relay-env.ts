import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { createLogger } from '../../relay/src/log.js';
import { type RelayServer, type RelayServerOptions, startRelayServer } from '../../relay/src/server/relay-server.js';
import type { PipeCdp } from './pipe-cdp.js';
import {
  evaluateInWorker,
  extensionReady as actionListenerReady,
  type LaunchedChromium,
  launchChromium,
  openTab,
  setExtensionStorage,
  triggerExtensionAction,
  waitFor,
} from './chromium.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';

/**
 * One end-to-end setup: the real relay, a real Chromium with the real built
 * extension (paired by writing its storage, as the options page would), and a
 * loopback fixture server. Tabs are shared by simulated toolbar clicks.
 */

export const EXTENSION_DIR = fileURLToPath(new URL('../../dist/extension', import.meta.url));

export interface RelayEnv {
  relay: RelayServer;
  token: string;
  /** The extension key the relay and the extension prove to each other. */
  extensionKey: string;
  browser: LaunchedChromium;
  fixtures: FixtureServer;
  /** ws://…/cdp?token=… for connectOverCDP / puppeteer.connect. */
  cdpUrl(): string;
  /** Opens a tab in the browser (not shared yet). */
  openTab(url: string): Promise<{ pageTargetId: string; tabTargetId: string }>;
  /** Opens a tab and clicks the toolbar button on it; resolves once the relay lists it. */
  share(url: string): Promise<{ pageTargetId: string; tabTargetId: string }>;
  /** Clicks the toolbar button on a tab. */
  click(tabTargetId: string): Promise<void>;
  isShared(pageTargetId: string): boolean;
  /** Stops the relay and starts a new one on the same port with the same token. */
  restartRelay(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Waits until our extension's worker can take a toolbar click. */
export function extensionReady(cdp: PipeCdp): Promise<void> {
  return actionListenerReady(cdp, EXTENSION_ID);
}

/** The badge text and tooltip the user sees on a tab. */
export function badgeOf(cdp: PipeCdp, pageTargetId: string): Promise<{ text: string; title: string }> {
  return evaluateInWorker(
    cdp,
    EXTENSION_ID,
    `(async () => {
      const target = (await chrome.debugger.getTargets()).find((t) => t.id === ${JSON.stringify(pageTargetId)});
      return { text: await chrome.action.getBadgeText({ tabId: target.tabId }), title: await chrome.action.getTitle({ tabId: target.tabId }) };
    })()`,
  );
}

export async function startRelayEnv(relayOptions: Partial<RelayServerOptions> = {}, { pair = true } = {}): Promise<RelayEnv> {
  if (!existsSync(`${EXTENSION_DIR}/manifest.json`))
    throw new Error(`The extension is not built at ${EXTENSION_DIR}: run \`npm run build\` first (npm test does).`);
  const token = randomBytes(32).toString('hex');
  const extensionKey = randomBytes(32).toString('hex');
  const options = { token, extensionKey, port: 0, logger: createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn', 'relay'), ...relayOptions };
  let relay = await startRelayServer(options);
  const fixtures = await startFixtureServer();
  const browser = await launchChromium({ extensionDir: EXTENSION_DIR });
  const cdp = browser.cdp;
  await extensionReady(cdp);
  if (pair) {
    await setExtensionStorage(cdp, EXTENSION_ID, 'local', {
      pairing: { relayUrl: `ws://127.0.0.1:${relay.port}`, key: extensionKey, via: 'manual' },
    });
    await waitFor(() => relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: 'the extension never connected to the relay' });
  }

  const env: RelayEnv = {
    get relay() {
      return relay;
    },
    token,
    extensionKey,
    browser,
    fixtures,
    cdpUrl: () => `${relay.cdpUrl}?token=${token}`,
    openTab: (url) => openTab(cdp, url),
    async share(url) {
      const tab = await openTab(cdp, url);
      await env.click(tab.tabTargetId);
      await waitFor(() => env.isShared(tab.pageTargetId), { timeoutMs: 10_000, message: `tab ${url} was not shared` });
      return tab;
    },
    click: (tabTargetId) => triggerExtensionAction(cdp, EXTENSION_ID, tabTargetId),
    isShared: (pageTargetId) => relay.bridge.sharedTabs().some((tab) => tab.targetId === pageTargetId),
    async restartRelay(downMs = 300) {
      const port = relay.port;
      await relay.close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      relay = await startRelayServer({ ...options, port });
    },
    async close() {
      await browser.close();
      await relay.close();
      await fixtures.close();
    },
  };
  return env;
}
