import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { launchChromium, openTab, setExtensionStorage, triggerExtensionAction, waitFor } from '../harness/chromium.js';
import { type FixtureServer, startFixtureServer } from '../harness/fixture-server.js';
import { freePortPair } from '../harness/ports.js';
import { badgeOf, EXTENSION_DIR, extensionReady } from '../harness/relay-env.js';

/**
 * A toolbar click is a person's consent: it shares the tab, or the badge
 * says why not. Clicked the way a person who just installed the extension
 * would: at once, on a page still loading, in a Chrome just started (the
 * extension's first start, before its worker listens), and at once after
 * `serve` restarted with a new config on another port. `serve` runs as its
 * own process and the extension is paired through the real native host.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);
const ROUNDS = Number(process.env.CLICK_ROUNDS ?? 3);

let fixtures: FixtureServer;
const temporary: string[] = [];
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

async function startServe(env: NodeJS.ProcessEnv, controlPort: number, token: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env, stdio: 'ignore' });
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${controlPort}/`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined))?.ok === true,
    {
      timeoutMs: 20_000,
      message: 'serve did not answer',
    },
  );
  return child;
}

async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('a toolbar click', () => {
  it(
    `shares at once after Chrome starts and after serve restarts on another port (${ROUNDS} rounds)`,
    async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const home = tempDir('clawd-click-');
        let ports = await freePortPair();
        writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}` }));
        const env = { ...process.env, CLAWD_HOME: home };
        const token = (await run(process.execPath, [CLI, 'token'], { env })).stdout.trim();
        let serve = await startServe(env, ports.control, token);
        const userDataDir = tempDir('click-profile-');
        await run(process.execPath, [CLI, 'install-native-host', '--browser', 'chromium', '--user-data-dir', userDataDir], { env });
        const browser = await launchChromium({ userDataDir, extensionDir: EXTENSION_DIR });
        try {
          // No wait for the extension's worker: the click may come before it listens.
          const clickAndWait = async (label: string) => {
            const url = fixtures.url(`index.html?${label}=${round}`);
            const { tabTargetId } = await openTab(browser.cdp, url);
            await triggerExtensionAction(browser.cdp, EXTENSION_ID, tabTargetId);
            const listed = await waitFor(
              async () => {
                const answer = await fetch(`http://127.0.0.1:${ports.control}/tabs?profile=extension`, { headers: { authorization: `Bearer ${token}` } }).catch(
                  () => undefined,
                );
                const { tabs } = ((await answer?.json().catch(() => ({}))) ?? {}) as { tabs?: Array<{ url: string }> };
                return tabs?.some((tab) => tab.url === url) === true;
              },
              { timeoutMs: 15_000 },
            ).then(
              () => 'shared',
              () => 'NOT SHARED within 15 s',
            );
            outcomes.push(`round ${round}, ${label}: ${listed}`);
          };
          await clickAndWait('just-started');
          await stopServe(serve);
          ports = await freePortPair();
          writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true }));
          serve = await startServe(env, ports.control, token);
          await clickAndWait('after-restart');
        } finally {
          await browser.close();
          await stopServe(serve);
        }
      }
      expect(outcomes.filter((outcome) => !outcome.endsWith(': shared'))).toEqual([]);
    },
    60_000 + ROUNDS * 60_000,
  );

  it('that cannot reach the relay shows ! with the reason, not a wait without end', async () => {
    const browser = await launchChromium({ extensionDir: EXTENSION_DIR });
    try {
      await extensionReady(browser.cdp);
      // Paired by hand with a relay that is not running (nothing listens on that port).
      const { relay } = await freePortPair();
      await setExtensionStorage(browser.cdp, EXTENSION_ID, 'local', { pairing: { relayUrl: `ws://127.0.0.1:${relay}`, key: 'a'.repeat(64), via: 'manual' } });
      const { pageTargetId, tabTargetId } = await openTab(browser.cdp, fixtures.url('index.html?unreached=1'));
      await triggerExtensionAction(browser.cdp, EXTENSION_ID, tabTargetId);
      await waitFor(async () => (await badgeOf(browser.cdp, pageTargetId)).text === '!', {
        timeoutMs: 15_000,
        message: 'the badge never said the relay is unreachable',
      });
      expect((await badgeOf(browser.cdp, pageTargetId)).title).toMatch(
        new RegExp(`not connected to clawd-browser: cannot reach the relay at ws://127\\.0\\.0\\.1:${relay}`),
      );
    } finally {
      await browser.close();
    }
  }, 60_000);
});
