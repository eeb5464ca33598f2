import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * The MCP server as an agent meets it: the SDK's own client spawns
 * `clawd-browser mcp` (stdio) or speaks to `/mcp` (HTTP), lists the tools,
 * and does a task on the todo fixture using only refs that tool results
 * handed it. After each step the page's own state (window.todos) says
 * whether it happened.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

type Call = (name: string, args?: Record<string, unknown>) => Promise<string>;

function caller(client: Client): Call {
  return async (name, args = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
    const text = result.content.map((part) => part.text ?? `<${part.type}>`).join('\n');
    if (result.isError) throw new Error(`${name} failed: ${text}`);
    return text;
  };
}

/** The ref on the first line that matches, as an agent reads it from a tool result (a diff's removed lines are gone). */
function ref(text: string, pattern: RegExp): string {
  const line = text.split('\n').find((candidate) => pattern.test(candidate) && /\[ref=/.test(candidate) && !/^-\s+-\s/.test(candidate));
  const found = line && /\[ref=([\w]+)\]/.exec(line)?.[1];
  if (!found) throw new Error(`no line matching ${pattern} with a ref in:\n${text}`);
  return found;
}

interface TodoState {
  todos: Array<{ title: string; done: boolean }>;
  filter: string;
}

/** Add two items, tick one, filter, clear: every ref comes from a tool's answer. */
async function todoTask(call: Call, profile: string, targetId: string, pageState: () => Promise<TodoState>): Promise<void> {
  const snapshot = await call('browser_snapshot', { profile, targetId, interactive: true });
  expect(snapshot).toMatch(/textbox "New todo"/);
  const input = ref(snapshot, /textbox "New todo"/);

  const added = await call('browser_act', { profile, targetId, kind: 'type', ref: input, text: 'Milk', submit: true });
  expect(added.split('\n')[0]).toBe('type: done');
  expect(added).toMatch(/^\+ .*checkbox "Milk"/m);
  expect((await pageState()).todos).toEqual([{ title: 'Milk', done: false }]);

  // The app renders its list anew on every change, so the diff shows the items with new refs.
  const second = await call('browser_act', { profile, targetId, kind: 'type', ref: input, text: 'Eggs', submit: true });
  expect((await pageState()).todos.map((todo) => todo.title)).toEqual(['Milk', 'Eggs']);

  const ticked = await call('browser_act', { profile, targetId, kind: 'click', ref: ref(second, /checkbox "Milk"/) });
  expect(ticked).toMatch(/checkbox "Milk" \[checked\]/);
  expect((await pageState()).todos).toEqual([
    { title: 'Milk', done: true },
    { title: 'Eggs', done: false },
  ]);

  const filtered = await call('browser_act', { profile, targetId, kind: 'click', ref: ref(snapshot, /button "Active"/) });
  expect(filtered).toMatch(/button "Active" \[pressed\]/);
  expect((await pageState()).filter).toBe('active');

  const cleared = await call('browser_act', { profile, targetId, kind: 'click', ref: ref(snapshot, /button "Clear completed"/) });
  expect(cleared).not.toMatch(/\+ .*Milk/);
  expect((await pageState()).todos).toEqual([{ title: 'Eggs', done: false }]);
  // Answers stayed small: a line and a diff, never the page.
  for (const answer of [added, ticked, filtered, cleared]) expect(answer.length).toBeLessThan(600);
}

const state = (profile: string, targetId: string) => async (): Promise<TodoState> =>
  (await env.client(profile).evaluate('() => ({ todos: window.todos.map(({ title, done }) => ({ title, done })), filter: window.filter })', { targetId }))
    .result as TodoState;

describe('clawd-browser mcp (stdio)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--caps', 'recording,vision'],
        env: { ...process.env, CLAWD_HOME: env.home } as Record<string, string>,
        stderr: 'inherit',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the tools with the API schemas and short descriptions', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.sort()).toEqual([
      'browser_act',
      'browser_computer',
      'browser_console',
      'browser_labelled_screenshot',
      'browser_navigate',
      'browser_page_tool',
      'browser_record',
      'browser_screenshot',
      'browser_snapshot',
      'browser_status',
      'browser_tabs',
    ]);
    const snapshot = tools.find((tool) => tool.name === 'browser_snapshot')!;
    expect(Object.keys(snapshot.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['profile', 'targetId', 'interactive', 'ref', 'selector', 'find', 'depth', 'maxChars', 'diff']),
    );
    // Every act kind of the HTTP API is one browser_act away.
    const act = tools.find((tool) => tool.name === 'browser_act')!;
    const kinds = (act.inputSchema.properties as { kind: { description: string } }).kind.description.split('; ').map((part) => part.split(' ')[0]);
    expect(kinds).toEqual([
      'click',
      'type',
      'press',
      'hover',
      'move',
      'mousedown',
      'mouseup',
      'drag',
      'select-text',
      'scroll',
      'select',
      'fill',
      'wait',
      'resize',
      'evaluate',
    ]);
    for (const tool of tools) expect(tool.description!.length, tool.name).toBeLessThanOrEqual(140);
  });

  it('does the todo task on the managed profile', async () => {
    const call = caller(client);
    const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('todo.html') });
    const targetId = /^Opened (\S+)/.exec(opened)![1];
    await todoTask(call, 'clawd', targetId, state('clawd', targetId));
  }, 90_000);

  it("does the todo task on a tab shared from the user's browser", async () => {
    const call = caller(client);
    const [shared] = await env.client('extension').tabs();
    await call('browser_navigate', { profile: 'extension', targetId: shared.targetId, url: env.fixtures.url('todo.html') });
    await todoTask(call, 'extension', shared.targetId, state('extension', shared.targetId));
  }, 90_000);

  it("records a tab's requests with browser_record, and writes them as HAR", async () => {
    const call = caller(client);
    const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('index.html') });
    const targetId = /^Opened (\S+)/.exec(opened)![1];
    expect(await call('browser_record', { profile: 'clawd', targetId, action: 'network-start' })).toBe(`Recording ${targetId}'s requests.`);
    await call('browser_navigate', { profile: 'clawd', targetId, url: env.fixtures.url('todo.html') });
    // The URLs a page requested are its words: fenced.
    expect(await call('browser_record', { profile: 'clawd', targetId, action: 'network', type: 'document' })).toMatch(
      /^<page (\d+)>\n#\d+ GET 200 document http:\/\/127\.0\.0\.1:\d+\/todo\.html \d+ms\n<\/page \1>$/,
    );
    expect(await call('browser_record', { profile: 'clawd', targetId, action: 'har' })).toMatch(/^Written: .*\/recordings\/clawd\/.*\.har$/);
  }, 60_000);

  it('looks and clicks with the vision group: numbers from a labelled screenshot, a click at a box, a fresh picture back', async () => {
    const call = caller(client);
    const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('todo.html') });
    const targetId = /^Opened (\S+)/.exec(opened)![1];
    const labelled = (await client.callTool({ name: 'browser_labelled_screenshot', arguments: { profile: 'clawd', targetId } })) as {
      content: Array<{ type: string; text?: string; mimeType?: string }>;
    };
    expect(labelled.content[0]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    const input = /^(\d+) textbox "New todo"$/m.exec(labelled.content[1].text!)![1];
    await call('browser_act', { profile: 'clawd', targetId, kind: 'type', ref: `e${input}`, text: 'Milk', submit: true });
    // Where the new checkbox is, as a model would see it in the next picture.
    const { labels } = await env.client('clawd').vision.labelledScreenshot({ targetId });
    const box = labels.find((label) => label.role === 'checkbox' && label.name === 'Milk')!.box;
    const clicked = (await client.callTool({
      name: 'browser_computer',
      arguments: { profile: 'clawd', targetId, actions: [{ action: 'left_click', coordinate: [box.x + box.width / 2, box.y + box.height / 2] }] },
    })) as { content: Array<{ type: string; text?: string }> };
    expect(clicked.content[0].type).toBe('image');
    expect(clicked.content[1].text).toMatch(/^1 done; cursor at \d+,\d+; screen \d+×\d+$/);
    expect(
      await call('browser_act', {
        profile: 'clawd',
        targetId,
        kind: 'evaluate',
        fn: '() => window.todos.map((todo) => todo.title + (todo.done ? " (done)" : ""))',
      }),
    ).toMatch(/\["Milk \(done\)"\]/);
  }, 60_000);

  it('reads a page as Markdown with browser_snapshot {markdown}', async () => {
    const call = caller(client);
    const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('article.html') });
    const targetId = /^Opened (\S+)/.exec(opened)![1];
    const page = await call('browser_snapshot', { profile: 'clawd', targetId, markdown: true });
    expect(page).toMatch(/^<page \d+>\nRelease notes — http:\/\/127\.0\.0\.1:\d+\/article\.html\n# Release notes\n/);
    expect(page).toContain('- Faster [benchmarks](https://example.com/bench?x=1)');
    expect(await call('browser_snapshot', { profile: 'clawd', targetId, markdown: true, selector: '#appendix' })).toMatch(
      /^<page (\d+)>\n(?:[^]*\n)?## Appendix\n\nLast words\.\n<\/page \1>$/,
    );
  }, 60_000);

  it('a plain checkbox says it turned, calmly; a click that navigated says where to, though this session never saw the tab', async () => {
    const call = caller(client);
    // Opened and read by another client (the CLI, another agent): this MCP session knows nothing of the tab's URL.
    const { targetId } = await env.client('clawd').openTab(env.fixtures.url('effects.html'));
    const { text } = await env.client('clawd').snapshot({ targetId });
    const agree = await call('browser_act', { profile: 'clawd', targetId, kind: 'click', ref: ref(String(text), /checkbox "Agree"/) });
    expect(agree.split('\n')[0]).toBe('click: done (checked: true); nothing else on the page changed');
    expect((await env.client('clawd').evaluate('() => document.querySelector("#agree").checked', { targetId })).result).toBe(true);
    const home = await call('browser_act', { profile: 'clawd', targetId, kind: 'click', ref: ref(String(text), /link "Home"/) });
    // Where to is the page's words: inside the answer's fence.
    expect(home).toMatch(
      new RegExp(
        `^click: done\\nNavigated; take a snapshot to see the page\\.\\n<page (\\d+)>\\n${env.fixtures.url('index.html').replace(/[.?]/g, '\\$&')} "Fixture Home"\\n</page \\1>$`,
      ),
    );
    expect((await env.client('clawd').evaluate('() => location.href', { targetId })).result).toBe(env.fixtures.url('index.html'));
  }, 60_000);

  it('says what to do when a ref is stale or a tab unknown', async () => {
    const result = (await client.callTool({ name: 'browser_act', arguments: { profile: 'clawd', kind: 'click', ref: 'e999' } })) as {
      content: Array<{ text: string }>;
      isError: boolean;
    };
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^Error: .*e999.*[Tt]ake a new snapshot/);
    const tab = (await client.callTool({ name: 'browser_tabs', arguments: { profile: 'clawd', action: 'focus', targetId: 'NO-SUCH-TAB' } })) as {
      content: Array<{ text: string }>;
      isError: boolean;
    };
    expect(tab.content[0].text).toMatch(/No tab with targetId.*browser_tabs/);
  });
});

describe('/mcp over HTTP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };

  it('does the todo task with the token', async () => {
    const client = new Client({ name: 'http-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${env.server.control.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${env.server.token}` } },
      }),
    );
    try {
      const call = caller(client);
      const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('todo.html') });
      const targetId = /^Opened (\S+)/.exec(opened)![1];
      await todoTask(call, 'clawd', targetId, state('clawd', targetId));
    } finally {
      await client.close();
    }
  }, 90_000);

  it('is refused without the token, and from a web page', async () => {
    const url = `http://127.0.0.1:${env.server.control.port}/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(anonymous.status).toBe(401);
    const fromWeb = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${env.server.token}`, origin: 'https://evil.example' },
      body: JSON.stringify(initialize),
    });
    expect(fromWeb.status).toBe(403);
    expect(((await fromWeb.json()) as { error: { message: string } }).error.message).toMatch(/[Oo]rigin/);
  });
});

describe('capability groups', () => {
  const connect = async (caps?: string) => {
    const client = new Client({ name: 'toolbox-agent', version: '1.0.0' });
    const url = new URL(`http://127.0.0.1:${env.server.control.port}/mcp${caps ? `?caps=${caps}` : ''}`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${env.server.token}` } } }));
    return client;
  };
  const pageSays = async (targetId: string, fn: string) => (await env.client('clawd').act({ kind: 'evaluate', targetId, fn })).result;

  it('are off by default: not listed, and a call says which group turns the tool on', async () => {
    const client = await connect();
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('browser_emulate');
      await expect(caller(client)('browser_emulate', { timezone: 'Asia/Tokyo' })).rejects.toThrow(
        /browser_emulate is in the emulation group, which is off: turn it on with `clawd-browser mcp --caps emulation` \(or \/mcp\?caps=emulation\)/,
      );
    } finally {
      await client.close();
    }
    const refused = await fetch(`http://127.0.0.1:${env.server.control.port}/mcp?caps=everything`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${env.server.token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Invalid caps: no group is named "everything"; the groups are vision, files, recording, dialogs, emulation, network, storage, handoff, browse, routines (or all)',
    );
  });

  it('emulation, network and storage: an agent emulates, routes, runs a script first, and carries storage in a file', async () => {
    const client = await connect('emulation,network,storage');
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['browser_emulate', 'browser_route', 'browser_init_script', 'browser_storage']));
      const call = caller(client);
      const opened = await call('browser_tabs', { profile: 'clawd', action: 'open', url: env.fixtures.url('index.html') });
      const targetId = /^Opened (\S+)/.exec(opened)![1];

      expect(await call('browser_emulate', { profile: 'clawd', targetId, timezone: 'Asia/Tokyo', colorScheme: 'dark' })).toBe(
        `Emulating on ${targetId}: {"timezone":"Asia/Tokyo","colorScheme":"dark"}`,
      );
      expect(await pageSays(targetId, '() => [Intl.DateTimeFormat().resolvedOptions().timeZone, matchMedia("(prefers-color-scheme: dark)").matches]')).toEqual([
        'Asia/Tokyo',
        true,
      ]);
      await expect(call('browser_emulate', { profile: 'clawd', targetId, device: 'Toaster' })).rejects.toThrow(/device: no preset is named "Toaster"/);
      expect(await call('browser_emulate', { profile: 'clawd', targetId, clear: ['colorScheme'] })).toBe(`Emulating on ${targetId}: {"timezone":"Asia/Tokyo"}`);
      expect(await call('browser_emulate', { profile: 'clawd', targetId, reset: true })).toBe(`Emulating on ${targetId}: nothing`);

      expect(await call('browser_route', { profile: 'clawd', targetId, action: 'fulfill', url: '**/api/greeting', body: 'hello from a route' })).toMatch(
        /^Route r\d+: fulfill \*\*\/api\/greeting \(tab\)\.$/,
      );
      expect(await pageSays(targetId, "() => fetch('/api/greeting').then((r) => r.text())")).toBe('hello from a route');
      expect(await call('browser_route', { profile: 'clawd', action: 'list' })).toMatch(/r\d+ fulfill \*\*\/api\/greeting \(tab \S+\): 1 hits/);
      expect(await call('browser_init_script', { profile: 'clawd', targetId, action: 'add', script: 'window.__first = true' })).toMatch(
        /^Init script s\d+ runs from the next navigation on \(tab\)\.$/,
      );
      await call('browser_navigate', {
        profile: 'clawd',
        targetId,
        url: env.fixtures.url(`echo?body=${encodeURIComponent('<script>document.title = String(window.__first)</script>')}`),
      });
      expect(await pageSays(targetId, '() => document.title')).toBe('true');

      await call('browser_navigate', { profile: 'clawd', targetId, url: env.fixtures.url('index.html') });
      expect(await call('browser_storage', { profile: 'clawd', targetId, action: 'set', items: [{ name: 'basket', value: 'two pears' }] })).toBe(
        'Set 1 items.',
      );
      // What the page stored is its words: fenced.
      expect(await call('browser_storage', { profile: 'clawd', targetId, action: 'get' })).toMatch(
        new RegExp(`^localStorage of ${new URL(env.fixtures.url('')).origin}:\\n<page (\\d+)>\\n\\{"basket":"two pears"\\}\\n</page \\1>$`),
      );
      await env.client('clawd').toolbox.setCookies({ cookies: [{ name: 'secretish', value: 'do-not-show', url: env.fixtures.url('') }] });
      const listed = await call('browser_storage', { profile: 'clawd', action: 'cookies' });
      expect(listed).toMatch(/^secretish 127\.0\.0\.1\/ session/m);
      expect(listed).not.toContain('do-not-show');
      const saved = await call('browser_storage', { profile: 'clawd', action: 'state', path: 'shop.json' });
      expect(saved).toMatch(/^Saved .*shop\.json: \d+ cookies \(values left out\), \d+ origins\.$/);
      await pageSays(targetId, '() => localStorage.clear()');
      expect(await call('browser_storage', { profile: 'clawd', action: 'load-state', path: 'shop.json' })).toMatch(/^Loaded \d+ cookies and \d+ origins\.$/);
      expect(await pageSays(targetId, "() => localStorage.getItem('basket')")).toBe('two pears');
      await expect(call('browser_storage', { profile: 'clawd', action: 'load-state', path: '../config.json' })).rejects.toThrow(/path must be a file in /);
      await env.client('clawd').toolbox.clearCookies({ name: 'secretish' });
      await call('browser_tabs', { profile: 'clawd', action: 'close', targetId });
    } finally {
      await client.close();
    }
  }, 90_000);
});
