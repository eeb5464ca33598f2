import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { findProfileProcesses } from '../../relay/src/profiles/orphans.js';
import type { Logger } from '../../relay/src/log.js';
import { freePortPair } from '../harness/ports.js';
import { refOf } from '../harness/refs.js';
import { startTestSite } from '../harness/test-site.js';

/**
 * An agent's browser talks to the pages it is sent to and nothing else
 * (issue: every managed browser and session kept asking for
 * optimizationguide-pa, content-autofill, update and accounts.google.com,
 * and the egress log was full of them). Every connection a launched
 * browser makes goes through its egress proxy, which logs each it refuses.
 * With a URL policy that allows this machine's test site and `*.invalid`
 * only, anything the browser asks for by itself is refused there and
 * logged, on a machine with a network or without; a page's own request to
 * a `.invalid` name (which never resolves) is logged too. So the log must
 * hold the page's requests and nothing else: for a managed profile and a
 * task session, with a page loaded and a form typed into, over the first
 * seconds of each browser's life, when Chromium's services start.
 */

const PAGE = `<!doctype html><title>Quiet</title>
<form><label>Email <input name="email" autocomplete="email"></label><label>Address <input name="address" autocomplete="street-address"></label><button>Send</button></form>
<img src="http://pixel.invalid/asked-by-the-page.png" alt="">`;

let home: string;
let server: ClawdServer;
let site: Awaited<ReturnType<typeof startTestSite>>;
const lines: string[] = [];

beforeAll(async () => {
  site = await startTestSite((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  home = mkdtempSync(join(tmpdir(), 'clawd-quiet-'));
  const { control } = await freePortPair();
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      controlUrl: `http://127.0.0.1:${control}`,
      headless: true,
      noSandbox: true,
      sessionIsolation: 'process',
      sessionSpares: 0,
      profiles: { clawd: { cdpPort: (await freePortPair()).control } },
      urlPolicy: { mode: 'any', allow: ['127.0.0.1', '*.invalid'] },
    }),
  );
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  server = await startServer({ home, logger });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await site?.close();
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe('the browsers clawd-browser launches are quiet', () => {
  it("a managed profile and a task session: the egress log holds what their pages asked for, and nothing of Chromium's own", async () => {
    const client = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token, profile: 'clawd' });
    const session = await client.openSession({ credential_mode: 'clean', ttl: 120 });
    for (const browser of [client, client.withProfile(session.profile)]) {
      const { targetId } = await browser.openTab(`${site.url}/form`);
      const { text } = await browser.snapshot({ targetId });
      await browser.type(refOf(String(text), 'textbox "Email"'), 'ada@example.com', { targetId });
      await browser.type(refOf(String(text), 'textbox "Address"'), '1 Main St', { targetId });
      expect((await browser.evaluate('() => document.querySelector("[name=email]").value', { targetId })).result).toBe('ada@example.com');
    }
    // Chromium's services start over the first seconds of a browser's life (a Google account list at
    // about 1 s and again later, component and model checks, the network clock): both browsers get them.
    await sleep(15_000);

    const egress = lines.filter((line) => / egress (clawd|session-[0-9a-f]+): /.test(line));
    const notThePages = egress.filter((line) => !/ pixel\.invalid(:80)? refused: /.test(line));
    expect(notThePages).toEqual([]);
    // What the pages asked for is there, for each browser.
    expect(egress.filter((line) => line.includes('egress clawd: pixel.invalid')).length).toBeGreaterThan(0);
    expect(egress.filter((line) => line.includes(`egress ${session.profile}: pixel.invalid`)).length).toBeGreaterThan(0);

    // Both were launched with the switches (a task session's browser is the same launcher's).
    for (const dataDir of [join(home, 'browser', 'clawd', 'user-data'), join(home, 'sessions', session.id, 'user-data')]) {
      const argv = findProfileProcesses(dataDir)
        .map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
        .find((args) => args.includes('--remote-debugging-pipe'));
      expect(argv, dataDir).toEqual(
        expect.arrayContaining(['--disable-background-networking', '--disable-field-trial-config', '--gaia-url=http://127.0.0.1:9']),
      );
    }
    await client.closeSession(session.id);
  }, 90_000);
});
