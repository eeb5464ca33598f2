import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { launchChromium, type LaunchedChromium, waitFor } from '../harness/chromium.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Tools a page offers agents (WebMCP, spec §21), on real Chromium: a shop
 * registers tools by script (one consequential, one that throws, one that
 * never answers, one that removes another) and by a form (`toolname`,
 * autosubmit), and its iframe one more. They are listed with their schemas
 * and annotations, called with input checked against the schema, and the
 * page's own state shows each call's effect; through HTTP, the CLI, MCP
 * (the SDK's client), a task session with its key, and a shared tab of a
 * person's Chrome that has WebMCP on. A browser without it says so.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);
let env: ControlEnv;
let plain: LaunchedChromium | undefined;

beforeAll(async () => {
  // The person turned WebMCP on in their own Chrome, as clawd-browser's own browsers have it.
  env = await startControlEnv({ userBrowserArgs: ['--enable-features=WebMCP'] });
}, 90_000);
afterAll(async () => {
  await plain?.close();
  await env?.close();
});

const shop = () => env.fixtures.url('page-tools.html');
const pageText = async (client: BrowserClient, targetId: string, selector: string) => (await client.snapshot({ targetId, selector })).text;

describe('the tools a page offers', () => {
  it("are listed with their schemas and annotations, every frame's, and the snapshot says how many", async () => {
    const client = env.client('clawd');
    const tab = await client.openTab(shop());
    const { tools } = await client.pageTools.list({ targetId: tab.targetId });
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add_to_cart', 'broken', 'drop_temporary', 'pay', 'rate', 'search_catalog', 'stuck', 'temporary']);
    const add = tools.find((tool) => tool.name === 'add_to_cart')!;
    expect(add).toMatchObject({ description: 'Add an item to the cart', inputSchema: { required: ['sku'] } });
    expect(tools.find((tool) => tool.name === 'pay')!.annotations).toEqual({ consequential: true });
    expect(tools.find((tool) => tool.name === 'search_catalog')).toMatchObject({
      declaredBy: 'form',
      inputSchema: { properties: { q: { type: 'string', description: 'what to search for' } } },
    });
    // The iframe's tool comes after the main frame's, from a frame of its own.
    const rate = tools.find((tool) => tool.name === 'rate')!;
    expect(rate.frameId).not.toBe(add.frameId);
    expect(tools.at(-1)!.name).toBe('rate');
    const snapshot = await client.snapshot({ targetId: tab.targetId });
    expect(snapshot.text.split('\n')[0]).toBe('The page offers 8 tools for agents (page tools).');
    expect(snapshot.pageTools).toBe(8);
    await client.closeTab(tab.targetId);
  });

  it('are called with input checked against their schema; the answer says what the tool returned and what changed', async () => {
    const client = env.client('clawd');
    const tab = await client.openTab(shop());
    const added = await client.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { sku: 'x1', qty: 2 } });
    expect(added).toMatchObject({ tool: 'add_to_cart', status: 'Completed', output: { content: [{ type: 'text', text: 'added 2 of x1' }] }, changed: true });
    expect(await pageText(client, tab.targetId, '#cart')).toContain('cart: 2');

    const refused = await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { qty: 'two' } }));
    // The page's schema is its words: the error names the caller's fields, never the page's.
    expect(refused.message).toBe(
      "Invalid input for page tool add_to_cart: input: lacks a field the tool requires; input.qty: must be number (its inputSchema is in the list of the page's tools)",
    );
    expect(await pageText(client, tab.targetId, '#cart')).toContain('cart: 2');
    expect((await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'rate', input: { stars: 9 } }))).message).toMatch(
      /input\.stars: must be <= 5/,
    );

    // A tool of the iframe, called by name: the frame's own state changes.
    expect(await client.pageTools.call({ targetId: tab.targetId, name: 'rate', input: { stars: 4 } })).toMatchObject({
      status: 'Completed',
      output: { content: [{ text: 'rated 4' }] },
    });
    const frames = (await client.snapshot({ targetId: tab.targetId })).text;
    expect(frames).toContain('4 stars');

    // A tool that throws, one that never answers, one that is not there: each said by name.
    expect(await client.pageTools.call({ targetId: tab.targetId, name: 'broken', input: {} })).toMatchObject({
      status: 'Error',
      errorText: expect.stringContaining('out of stock'),
    });
    const stuck = await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'stuck', input: {}, timeoutMs: 1_000 }));
    expect(stuck).toMatchObject({ code: 'timeout', message: 'Page tool stuck did not answer within 1000 ms: its call was cancelled' });
    expect((await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'nope', input: {} }))).message).toMatch(
      /^The page offers no tool "nope"; it offers 8/,
    );
    // A caller that goes away cancels its call; the page goes on answering others.
    const leaving = new AbortController();
    const cancelled = rejection(client.withSignal(leaving.signal).pageTools.call({ targetId: tab.targetId, name: 'stuck', input: {} }));
    setTimeout(() => leaving.abort(new Error('the agent went away')), 300);
    expect((await cancelled).message).toBe('the agent went away');
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { sku: 'x2' } })).status).toBe('Completed');

    // A tool the page removes is gone.
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'drop_temporary', input: {} })).output).toEqual({
      content: [{ type: 'text', text: 'dropped' }],
    });
    expect((await client.pageTools.list({ targetId: tab.targetId })).tools.map((tool) => tool.name)).not.toContain('temporary');
    expect((await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'temporary', input: {} }))).message).toMatch(/offers no tool "temporary"/);

    // A form's tool submits (autosubmit): the call navigated, and the old page's tools went with it.
    const searched = await client.pageTools.call({ targetId: tab.targetId, name: 'search_catalog', input: { q: 'shoes' } });
    expect(searched).toMatchObject({ navigated: true, url: expect.stringContaining('search.html?q=shoes') });
    expect(await pageText(client, tab.targetId, '#results')).toContain('results for shoes');
    expect((await client.pageTools.list({ targetId: tab.targetId })).tools).toEqual([]);
    await client.closeTab(tab.targetId);
  });

  it("are reached through the CLI and through MCP, inside one tool of clawd's", async () => {
    const client = env.client('clawd');
    const tab = await client.openTab(shop());
    const cli = (...args: string[]) =>
      run(process.execPath, [CLI, '--url', `http://127.0.0.1:${env.server.control.port}`, ...args], { env: { ...process.env, CLAWD_HOME: env.home } });
    const listed = (await cli('page-tools', '--target', tab.targetId)).stdout;
    expect(listed).toContain('add_to_cart(sku: string*, qty: number): Add an item to the cart');
    expect(listed).toContain('pay() [consequential]: Pay for the cart');
    expect(listed).toContain('search_catalog(q: string*) [autosubmit] [a form]: Search the catalog by keyword');
    // What the tool returned is the page's words: fenced.
    expect((await cli('page-tool', 'add_to_cart', '--input', '{"sku":"c1","qty":3}', '--target', tab.targetId)).stdout).toMatch(
      /^add_to_cart: done\n<page (\d+)>\nadded 3 of c1\n<\/page \1>\n$/,
    );
    expect(await pageText(client, tab.targetId, '#cart')).toContain('cart: 3');

    const mcp = new Client({ name: 'page-tools-test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${env.server.control.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${env.server.token}` } },
      }),
    );
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toContain('browser_page_tool');
      // The page's tools are never MCP tools of their own: the page cannot name one.
      expect(tools.map((tool) => tool.name)).not.toContain('add_to_cart');
      const list = await mcp.callTool({ name: 'browser_page_tool', arguments: { targetId: tab.targetId } });
      expect((list.content as Array<{ text: string }>)[0].text).toContain('rate(stars: integer*): Rate the shop from 1 to 5 stars');
      const call = await mcp.callTool({ name: 'browser_page_tool', arguments: { targetId: tab.targetId, name: 'add_to_cart', input: { sku: 'm1' } } });
      expect((call.content as Array<{ text: string }>)[0].text).toMatch(/^add_to_cart: done\n<page (\d+)>\nadded 1 of m1\n<\/page \1>$/);
      expect(call.isError).toBeFalsy();
      // A tool that throws is a failed call, its message the page's words.
      const broken = await mcp.callTool({ name: 'browser_page_tool', arguments: { targetId: tab.targetId, name: 'broken' } });
      expect(broken.isError).toBe(true);
      expect((broken.content as Array<{ text: string }>)[0].text).toMatch(
        /^broken: error \(what it said is the page's, below\)\nNothing on the page changed\.\n<page (\d+)>\nError: out of stock\n<\/page \1>$/,
      );
      expect(await pageText(client, tab.targetId, '#cart')).toContain('cart: 4');
    } finally {
      await mcp.close();
    }
    await client.closeTab(tab.targetId);
  });

  it('are offered by out-of-process frames whenever they come, and go with them', async () => {
    const client = env.client('clawd');
    const tab = await client.openTab(shop());
    // After the tab's first navigation: a page whose partner frame is on another site (its own process).
    await client.navigate(env.fixtures.url('page-tools-cross.html'), tab.targetId);
    const offered = async () => (await client.pageTools.list({ targetId: tab.targetId })).tools;
    const names = async () => (await offered()).map((tool) => tool.name).sort();
    await waitFor(async () => (await names()).includes('rate'), { message: "the partner frame's tool was never listed" });
    expect(await client.pageTools.call({ targetId: tab.targetId, name: 'rate', input: { stars: 3 } })).toMatchObject({
      status: 'Completed',
      output: { content: [{ text: 'rated 3' }] },
    });
    expect((await client.snapshot({ targetId: tab.targetId })).text).toContain('3 stars');

    // A frame a script adds later, on another site too.
    await client.evaluate(
      `() => {
      const frame = Object.assign(document.createElement('iframe'), { id: 'later', allow: 'tools', src: 'http://localhost:' + location.port + '/page-tools-frame2.html' });
      document.body.append(frame);
    }`,
      { targetId: tab.targetId },
    );
    await waitFor(async () => (await names()).join() === 'rate,review', { message: "the later frame's tool was never listed" });
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'review', input: { text: 'fine' } })).status).toBe('Completed');
    expect((await client.snapshot({ targetId: tab.targetId })).text).toContain('review: fine');

    // A frame that navigates: the old document's tool goes, the new one's comes.
    await client.evaluate(`() => { document.getElementById('partner').src = 'http://localhost:' + location.port + '/page-tools-frame2.html'; }`, {
      targetId: tab.targetId,
    });
    await waitFor(async () => (await names()).join() === 'review,review', { message: 'the navigated frame still offers its old tool' });
    expect((await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'rate', input: { stars: 1 } }))).message).toMatch(/offers no tool "rate"/);
    const [first, second] = await offered();
    expect(first.frameId).not.toBe(second.frameId);
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'review', input: { text: 'named' }, frameId: second.frameId })).status).toBe(
      'Completed',
    );

    // A frame removed takes its tools with it.
    await client.evaluate(`() => document.getElementById('later').remove()`, { targetId: tab.targetId });
    await waitFor(async () => (await offered()).length === 1, { message: "the removed frame's tool is still listed" });
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'review', input: { text: 'alone' } })).status).toBe('Completed');
    await client.closeTab(tab.targetId);
  });

  it("are a task session's too, with its own key", async () => {
    const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
    try {
      const agent = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key! });
      const tab = await agent.openTab(shop());
      expect((await agent.pageTools.list({ targetId: tab.targetId })).tools.length).toBe(8);
      expect((await agent.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { sku: 's1' } })).status).toBe('Completed');
      expect(await pageText(agent, tab.targetId, '#cart')).toContain('cart: 1');
    } finally {
      await env.client('clawd').closeSession(session.id);
    }
  });

  it("are offered by a shared tab of a person's Chrome with WebMCP on, and a browser without it says so", async () => {
    const shared = env.client('extension');
    const tab = await shared.openTab(shop());
    expect((await shared.pageTools.list({ targetId: tab.targetId })).tools.map((tool) => tool.name)).toContain('add_to_cart');
    expect((await shared.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { sku: 'e1', qty: 5 } })).status).toBe('Completed');
    expect(await pageText(shared, tab.targetId, '#cart')).toContain('cart: 5');
    // An out-of-process frame of a shared tab offers its tools too.
    await shared.navigate(env.fixtures.url('page-tools-cross.html'), tab.targetId);
    await waitFor(async () => (await shared.pageTools.list({ targetId: tab.targetId })).tools.some((tool) => tool.name === 'rate'), {
      message: "the shared tab's partner frame offered nothing",
    });
    expect((await shared.pageTools.call({ targetId: tab.targetId, name: 'rate', input: { stars: 2 } })).status).toBe('Completed');
    await shared.closeTab(tab.targetId);

    // A browser of the person's own without WebMCP (a remote profile), on the same page.
    plain = await launchChromium({ remoteDebuggingPort: 0 });
    await env.client('clawd').createProfile({ name: 'without-webmcp', cdpUrl: plain.httpEndpoint! });
    const remote = env.client('without-webmcp');
    const there = await remote.openTab(shop());
    const answer = await remote.pageTools.list({ targetId: there.targetId });
    expect(answer.tools).toEqual([]);
    expect(answer.unavailable).toMatch(/^This browser offers no page tools: its WebMCP \(document\.modelContext\) is off/);
    await env.client('clawd').deleteProfile('without-webmcp');
  });
});
