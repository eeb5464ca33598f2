import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { openTab } from '../harness/chromium.js';
import { startTestSite } from '../harness/test-site.js';
import { tempDirs } from '../harness/temp-dirs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * The CDP agent tools people already use, from npm and unmodified, on
 * clawd-browser's endpoints (spec §21): Chrome DevTools MCP and Playwright
 * MCP, each started as its MCP client starts it (a process on stdio, driven
 * here by the MCP SDK's client) and given the endpoint `clawd-browser
 * cdp-url` prints. On a managed profile, on the tabs a person shared (and
 * nothing else of their browser), and on a task session with its own key,
 * each lists its pages, goes to a page and clicks its button; the page
 * itself, read through clawd-browser, says it was pressed.
 */

const require = createRequire(import.meta.url);
const DEVTOOLS_MCP = join(dirname(require.resolve('chrome-devtools-mcp/package.json')), 'build/src/bin/chrome-devtools-mcp.js');
const PLAYWRIGHT_MCP = join(dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');

/** Where each server writes what it saves by itself (Playwright MCP's snapshots): never the work tree. */
const outputDir = tempDirs('clawd-cdp-tools-');
let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((_request, response, url) =>
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>${url.pathname.slice(1)}</title><button onclick="this.textContent = 'pressed'">Press</button>`),
  );
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

type Said = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (answer: unknown) => (answer as Said).content.map((part) => part.text ?? '').join('\n');

/** One of the two servers, started on `endpoint` as an MCP client would start it. */
async function start(server: 'devtools' | 'playwright', endpoint: string): Promise<Client> {
  const dir = outputDir();
  const args =
    server === 'devtools'
      ? [DEVTOOLS_MCP, '--wsEndpoint', endpoint, '--performanceCrux=false', '--usageStatistics=false']
      : [PLAYWRIGHT_MCP, '--cdp-endpoint', endpoint, '--output-dir', dir];
  const client = new Client({ name: `${server}-on-clawd`, version: '1' });
  // (CI and the flag keep Chrome DevTools MCP from reporting usage; the machine has no network anyway.)
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: dir,
      env: { ...process.env, CI: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' } as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  return client;
}

/** Goes to `url` and clicks its button, as each server's tools do it; answers the page listing seen first. */
async function pressThrough(server: 'devtools' | 'playwright', client: Client, url: string): Promise<string> {
  if (server === 'devtools') {
    const pages = textOf(await client.callTool({ name: 'list_pages', arguments: {} }));
    const selected = /^(\d+): .*\[selected\]/m.exec(pages)?.[1] ?? /^(\d+): /m.exec(pages)![1];
    const pageId = Number(selected);
    expect(textOf(await client.callTool({ name: 'navigate_page', arguments: { pageId, type: 'url', url } }))).toContain(url);
    const snapshot = textOf(await client.callTool({ name: 'take_snapshot', arguments: { pageId } }));
    const uid = /uid=(\S+) button "Press"/.exec(snapshot)![1];
    const clicked = await client.callTool({ name: 'click', arguments: { pageId, uid } });
    expect((clicked as Said).isError, textOf(clicked)).toBeFalsy();
    return pages;
  }
  const pages = textOf(await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
  await client.callTool({ name: 'browser_navigate', arguments: { url } });
  const snapshot = textOf(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
  const ref = /button "Press" \[ref=(\w+)\]/.exec(snapshot)![1];
  const clicked = await client.callTool({ name: 'browser_click', arguments: { element: 'Press', target: ref } });
  expect((clicked as Said).isError, textOf(clicked)).toBeFalsy();
  return pages;
}

/** The tab at `url` in `browser`, read through clawd-browser: its button's text. */
async function buttonAt(browser: BrowserClient, url: string): Promise<string> {
  const tab = (await browser.tabs()).find((each) => each.url === url);
  expect(tab, `no tab at ${url}`).toBeDefined();
  return (await browser.snapshot({ targetId: tab!.targetId })).text;
}

describe.each(['devtools', 'playwright'] as const)("%s MCP, from npm, on clawd-browser's endpoints", (server) => {
  it('drives a managed profile, which has a page to work in from the start', async () => {
    const manager = env.server.manager;
    const endpoint = `${manager.cdpUrlOf(manager.driver('clawd'))}&token=${env.server.token}`;
    const client = await start(server, endpoint);
    try {
      const url = `${site.url}/managed-${server}`;
      const pages = await pressThrough(server, client, url);
      expect(pages).not.toBe('');
      expect(await buttonAt(env.client('clawd'), url)).toContain('button "pressed"');
    } finally {
      await client.close();
    }
  });

  it('sees exactly the tabs a person shared, and drives them', async () => {
    // The person has a tab of their own open, not shared.
    await openTab(env.userBrowser.cdp, `${site.url}/private-${server}`);
    const shared = env.server.relay.bridge.sharedTabs();
    const client = await start(server, `${env.server.relay.cdpUrl}?token=${env.server.token}`);
    try {
      const url = `${site.url}/shared-${server}`;
      const pages = await pressThrough(server, client, url);
      for (const tab of shared) expect(pages).toContain(tab.url);
      expect(pages).not.toContain(`private-${server}`);
      expect(await buttonAt(env.client('extension'), url)).toContain('button "pressed"');
    } finally {
      await client.close();
    }
  });

  it("drives a task session with the session's own key", async () => {
    const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
    const client = await start(server, `${session.cdpUrl}&token=${session.key}`);
    try {
      const url = `${site.url}/session-${server}`;
      await pressThrough(server, client, url);
      expect(await buttonAt(new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key! }), url)).toContain(
        'button "pressed"',
      );
    } finally {
      await client.close();
      await env.client('clawd').closeSession(session.id);
    }
  });
});
