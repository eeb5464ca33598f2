import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowseEvent,
  type BrowseResult,
  BrowseResultSchema,
  BrowseRunSchema,
  BrowseStartSchema,
  BrowseStepSchema,
} from '../../relay/src/api/browse-schemas.js';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient, ConflictError, NotFoundError, TooManyError } from '../../relay/src/client/browser-client.js';
import { EventStreamReader } from '../../relay/src/client/browse-client.js';
import { createLogger } from '../../relay/src/log.js';
import { startAnthropicStandIn } from '../harness/model-standins/anthropic-standin.js';
import { startOpenAiChatStandIn } from '../harness/model-standins/openai-chat-standin.js';
import { startOpenAiResponsesStandIn } from '../harness/model-standins/openai-responses-standin.js';
import type { StandIn } from '../harness/model-standins/standin-server.js';
import { freePortPair } from '../harness/ports.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * The browse runtime (spec §24) end to end: a real server with its task
 * sessions' real Chromium, and the three model APIs as protocol-faithful
 * stand-ins on loopback (tests/harness/model-standins/), each driven by a
 * rule-based policy that reads the snapshot or the screenshot it is sent.
 * Every task is scored by the page's own state (what the site recorded),
 * never by the model's words.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);

const KEYS = { chat: 'sk-chat-test-4f1b', gpt: 'sk-gpt-test-9c2e', claude: 'sk-ant-test-77aa' };
let server: ClawdServer;
let home: string;
let client: BrowserClient;
let chat: StandIn;
let claude: StandIn;
let gpt: StandIn;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** What the site's pages told it: the page's own state. */
let state: { form?: { name: string }; clicks: number } = { clicks: 0 };

const FORM = `<!doctype html><title>Form</title>
<form id="f"><label>Full name <input id="n"></label> <button>Send</button></form><p id="out"></p>
<script>f.onsubmit = async (event) => { event.preventDefault(); const name = n.value;
  await fetch('/state', { method: 'POST', body: JSON.stringify({ form: { name } }) }); out.textContent = 'Result: Thanks, ' + name; };</script>`;
const GREEN = `<!doctype html><title>Target</title><style>body{margin:0;background:#fff}#t{position:absolute;left:300px;top:200px;width:160px;height:160px;background:#00a000}</style>
<div id="t"></div><script>t.onclick = () => { t.style.background = '#2040c0'; fetch('/state', { method: 'POST', body: JSON.stringify({ click: true }) }); };</script>`;

beforeAll(async () => {
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/state') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        const told = JSON.parse(body) as { form?: { name: string }; click?: boolean };
        if (told.form) state.form = told.form;
        if (told.click) state.clicks++;
        response.writeHead(204).end();
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(url.pathname === '/green' ? GREEN : FORM);
  });
  chat = await startOpenAiChatStandIn({ key: KEYS.chat });
  claude = await startAnthropicStandIn({ key: KEYS.claude });
  gpt = await startOpenAiResponsesStandIn({ key: KEYS.gpt });
  const ports = await freePortPair();
  home = freshHome({
    controlUrl: `http://127.0.0.1:${ports.control}`,
    headless: true,
    noSandbox: true,
    sessionIsolation: 'process',
    sessionSpares: 0,
    // localhost is this machine too: denied, so that a model meets a refusal it can read.
    urlPolicy: { mode: 'any', deny: ['localhost'] },
    browse: {
      defaultProvider: 'chat',
      maxRuns: 2,
      providers: {
        chat: { api: 'openai-chat', model: 'stand-in-chat', baseUrl: `${chat.url}/v1`, apiKeyEnv: 'CLAWD_TEST_CHAT_KEY' },
        claude: { api: 'anthropic', model: 'stand-in-claude', baseUrl: claude.url, apiKeyFile: '' },
        gpt: { api: 'openai-responses', model: 'stand-in-cua', baseUrl: `${gpt.url}/v1`, apiKeyEnv: 'CLAWD_TEST_GPT_KEY', runtime: 'computer' },
      },
    },
  });
  // Keys come from the environment and from a file; neither is ever written to config.json.
  const keyFile = join(home, 'claude.key');
  writeFileSync(keyFile, `${KEYS.claude}\n`, { mode: 0o600 });
  const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
  config.browse.providers.claude.apiKeyFile = keyFile;
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  process.env.CLAWD_TEST_CHAT_KEY = KEYS.chat;
  process.env.CLAWD_TEST_GPT_KEY = KEYS.gpt;
  server = await startServer({ home, logger: createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn') });
  client = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: server.token });
}, 90_000);

afterAll(async () => {
  await server?.close();
  for (const part of [chat, claude, gpt, site]) await part?.close();
});

const formGoal = () => `open ${site.url}/form, type "Ada" into "Full name", click "Send", then answer with the text after "Result:"`;

describe('the tools runtime: the page tools MCP serves, through each provider', () => {
  it('OpenAI-compatible chat, streamed, over POST /browse with server-sent events', async () => {
    state = { clicks: 0 };
    const response = await fetch(`http://127.0.0.1:${server.control.port}/browse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ goal: formGoal(), close: true }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events: Array<{ name: string; data: unknown }> = [];
    new EventStreamReader((name, data) => events.push({ name, data: JSON.parse(data) })).push(await response.text());
    expect(events[0].name).toBe('start');
    expect(events.at(-1)!.name).toBe('end');
    const result = events.at(-1)!.data as BrowseResult;
    // Each event has its documented shape (the OpenAPI document's BrowseResult among them).
    expect(() => BrowseStartSchema.parse(events[0].data)).not.toThrow();
    for (const event of events.filter((candidate) => candidate.name === 'step')) expect(() => BrowseStepSchema.parse(event.data)).not.toThrow();
    expect(() => BrowseResultSchema.parse(result)).not.toThrow();
    // The page's own state: the site got the name from the form.
    expect(state.form).toEqual({ name: 'Ada' });
    expect(result).toMatchObject({
      outcome: 'done',
      answer: 'Thanks, Ada',
      provider: 'chat',
      model: 'stand-in-chat',
      runtime: 'tools',
      lastStepFailed: false,
      sessionClosed: true,
    });
    const steps = events
      .filter((event) => event.name === 'step')
      .map((event) => event.data as { actions: Array<{ tool: string }>; total: { totalTokens: number } });
    expect(steps.flatMap((step) => step.actions.map((action) => action.tool))).toEqual([
      'browser_navigate',
      'browser_snapshot',
      'browser_act',
      'browser_snapshot',
      'browser_act',
      'browser_snapshot',
    ]);
    expect(result.steps).toBe(steps.length);
    expect(result.usage.totalTokens).toBe(steps.at(-1)!.total.totalTokens);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);
    // The model was given clawd's page tools (without profile: a run has its own), and the page's words came back as their answers.
    const sent = chat.requests.at(-1)!.body as {
      tools: Array<{ function: { name: string; parameters: { properties: object } } }>;
      messages: Array<{ role: string; content: string }>;
    };
    expect(sent.tools.map((tool) => tool.function.name)).toEqual(['browser_tabs', 'browser_navigate', 'browser_snapshot', 'browser_act', 'browser_screenshot']);
    expect(sent.tools.every((tool) => !('profile' in tool.function.parameters.properties))).toBe(true);
    expect(
      sent.messages
        .filter((message) => message.role === 'tool')
        .map((message) => message.content)
        .join('\n'),
    ).toContain('textbox "Full name"');
  });

  it('Anthropic Messages, its key read from a file, through the typed client', async () => {
    state = { clicks: 0 };
    const heard: BrowseEvent['kind'][] = [];
    const result = await client.browse({ goal: formGoal(), provider: 'claude', close: true }, { onEvent: (event) => heard.push(event.kind) });
    expect(state.form).toEqual({ name: 'Ada' });
    expect(result).toMatchObject({ outcome: 'done', answer: 'Thanks, Ada', provider: 'claude', runtime: 'tools' });
    expect(heard[0]).toBe('start');
    expect(heard.at(-1)).toBe('end');
    expect(claude.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEYS.claude}`);
  });

  it('OpenAI Responses with function tools, when the call asks for the tools runtime', async () => {
    state = { clicks: 0 };
    const result = await client.browse({ goal: formGoal(), provider: 'gpt', runtime: 'tools', close: true });
    expect(state.form).toEqual({ name: 'Ada' });
    expect(result).toMatchObject({ outcome: 'done', answer: 'Thanks, Ada', runtime: 'tools' });
  });
});

describe("the computer runtime: screenshots at the model's display, its actions through the computer-use executor", () => {
  for (const provider of ['gpt', 'claude'] as const) {
    it(`${provider}: the model finds the green square in the screenshot and clicks it`, async () => {
      state = { clicks: 0 };
      const result = await client.browse({
        goal: 'click the green square, then say what happened',
        provider,
        runtime: 'computer',
        startUrl: `${site.url}/green`,
        close: true,
      });
      expect(state.clicks).toBe(1);
      expect(result).toMatchObject({ outcome: 'done', answer: 'I clicked the green square; it is gone.', runtime: 'computer' });
      expect(result.screenshots).toBeGreaterThanOrEqual(2);
      const sent = (provider === 'gpt' ? gpt : claude).requests.at(-1)!.body as { tools: Array<Record<string, unknown>> };
      expect(sent.tools[0]).toMatchObject(
        provider === 'gpt'
          ? { type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'browser' }
          : { type: 'computer_20250124', name: 'computer', display_width_px: 1024 },
      );
    });
  }

  it('the chat API has no computer tool: a 400 that says which to use', async () => {
    const error = await rejection(client.browse({ goal: 'x', runtime: 'computer' }));
    expect(error.message).toMatch(/speaks openai-chat, which has no computer tool; use runtime tools/);
  });
});

describe('guardrails, and an honest outcome', () => {
  it('a run that never finishes stops at its step cap, and says so', async () => {
    const result = await client.browse({ goal: `open ${site.url}/form, then never stop`, maxSteps: 3, close: true });
    expect(result).toMatchObject({ outcome: 'stopped', stoppedBy: 'steps', steps: 3 });
  });

  it("a run stops at its token budget, counted from the provider's own usage", async () => {
    const result = await client.browse({ goal: `open ${site.url}/form, then never stop`, budget: { tokens: 600 }, close: true });
    expect(result).toMatchObject({ outcome: 'stopped', stoppedBy: 'budget' });
    expect(result.usage.totalTokens).toBeGreaterThanOrEqual(600);
    expect(result.steps).toBeLessThan(30);
  });

  it('a stalled step stops at the step timeout, and the provider sees its request dropped', async () => {
    chat.stall = true;
    try {
      const dropped = chat.dropped.length;
      const result = await client.browse({ goal: 'answer "late"', stepTimeoutMs: 1_500, close: true });
      expect(result).toMatchObject({ outcome: 'stopped', stoppedBy: 'step-timeout' });
      await expect.poll(() => chat.dropped.length).toBe(dropped + 1);
    } finally {
      chat.stall = false;
    }
  });

  it('DELETE /browse/{run} cancels mid-request: the provider sees its socket close, the answer says cancel', async () => {
    chat.stall = true;
    try {
      const dropped = chat.dropped.length;
      const asked = chat.requests.length;
      let runId = '';
      const running = client.browse({ goal: 'answer "never"', close: true }, { onEvent: (event) => void (event.kind === 'start' && (runId = event.data.run)) });
      await expect.poll(() => runId).not.toBe('');
      // The model request is in flight, held by the stand-in.
      await chat.arrived(asked + 1);
      expect((await client.browseRuns()).runs.map((entry) => entry.run)).toContain(runId);
      expect(BrowseRunSchema.parse(await client.cancelBrowse(runId))).toMatchObject({ run: runId, cancelling: true });
      expect(await running).toMatchObject({ outcome: 'stopped', stoppedBy: 'cancel' });
      await expect.poll(() => chat.dropped.length).toBe(dropped + 1);
      expect((await client.browseRuns()).runs).toEqual([]);
    } finally {
      chat.stall = false;
    }
  });

  it('a cancel reaches the act in flight: a wait stops at once, logged as aborted', async () => {
    let runId = '';
    const running = client.browse(
      { goal: `open ${site.url}/form, wait for "a text that never comes", then answer "seen"`, close: true },
      { onEvent: (event) => void (event.kind === 'start' && (runId = event.data.run)) },
    );
    // The wait is in flight once the server has logged the navigate and the model asked again.
    await expect
      .poll(
        async () =>
          (await client.actions({ limit: 50 })).actions.some(
            (action) => action.kind === 'tool_step' && action.browse?.run === runId && action.browse.tools?.[0] === 'browser_navigate',
          ),
        { timeout: 15_000 },
      )
      .toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancelledAt = Date.now();
    await client.cancelBrowse(runId);
    expect(await running).toMatchObject({ outcome: 'stopped', stoppedBy: 'cancel' });
    const wait = (await client.actions({ limit: 50 })).actions.filter((action) => action.kind === 'wait').at(-1)!;
    expect(wait.outcome).toBe('aborted');
    expect(Date.parse(wait.time) - cancelledAt).toBeLessThan(2_000);
  });

  it('more runs than browse.maxRuns at once is a 429; a caller that hangs up cancels its run', async () => {
    chat.stall = true;
    const callers = [new AbortController(), new AbortController()];
    try {
      const from = chat.requests.length;
      const runs = callers.map((caller) =>
        client.browse({ goal: 'answer "wait"', profile: 'clawd' }, { signal: caller.signal }).catch((error: unknown) => error),
      );
      await chat.arrived(from + 2);
      await expect(client.browse({ goal: 'answer "one more"', profile: 'clawd' })).rejects.toBeInstanceOf(TooManyError);
      const dropped = chat.dropped.length;
      for (const caller of callers) caller.abort(new Error('gone'));
      await Promise.all(runs);
      await expect.poll(() => chat.dropped.length).toBe(dropped + 2);
      await expect.poll(async () => (await client.browseRuns()).runs.length).toBe(0);
    } finally {
      chat.stall = false;
    }
  });

  it('a denied URL: the model reads the refusal, and a run whose last step failed is not done', async () => {
    const denied = site.url.replace('127.0.0.1', 'localhost');
    const result = await client.browse({ goal: `open ${denied}/form, then answer "opened"`, close: true });
    expect(result.outcome).toBe('failed');
    expect(result.lastStepFailed).toBe(true);
    expect(result.answer).toMatch(/^I could not do it: .*localhost/);
    // What the model was sent: the refusal, naming the rule.
    const told = (chat.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.find(
      (message) => message.role === 'tool',
    )!.content;
    expect(told).toMatch(/^Error: Navigation refused: urlPolicy deny: localhost/);
  });

  it("a provider on loopback works under a public-only policy: the policy governs pages, not the server's own calls", async () => {
    const path = join(home, 'config.json');
    const before = readFileSync(path, 'utf8');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(before), urlPolicy: { mode: 'public-only' } }));
    try {
      const result = await client.browse({ goal: `open ${site.url}/form, then answer "opened"`, close: true });
      // The model was reached (on 127.0.0.1), and the page on 127.0.0.1 was refused to it.
      expect(result.steps).toBe(2);
      expect(result.answer).toMatch(/^I could not do it:/);
    } finally {
      writeFileSync(path, before);
    }
  });
});

describe('continuation and close', () => {
  it('a later call naming the session goes on in its browser and its conversation; a closed session cannot', async () => {
    state = { clicks: 0 };
    const first = await client.browse({ goal: `open ${site.url}/form, type "Grace" into "Full name", then answer "typed"` });
    expect(first).toMatchObject({ outcome: 'done', answer: 'typed' });
    expect(first.session).toMatch(/^[0-9a-f]{12}$/);
    expect(state.form).toBeUndefined();

    const second = await client.browse({ goal: 'click "Send", then answer with the text after "Result:"', session: first.session, close: true });
    // The same browser: the name typed in the first run is what the form sent.
    expect(state.form).toEqual({ name: 'Grace' });
    expect(second).toMatchObject({ outcome: 'done', answer: 'Thanks, Grace', session: first.session, sessionClosed: true });
    // The same conversation: the model was sent the first run's goal again.
    expect(JSON.stringify(chat.requests.at(-1)!.body)).toContain('type \\"Grace\\" into');

    await expect(client.browse({ goal: 'answer "x"', session: first.session })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('one run at a time in a session: a second is a 409 while the first goes on', async () => {
    const opened = await client.openSession({ credential_mode: 'clean' });
    chat.stall = true;
    const caller = new AbortController();
    try {
      const asked = chat.requests.length;
      const first = client.browse({ goal: 'answer "slow"', session: opened.id }, { signal: caller.signal }).catch((error: unknown) => error);
      await chat.arrived(asked + 1);
      await expect(client.browse({ goal: 'answer "x"', session: opened.id })).rejects.toBeInstanceOf(ConflictError);
      caller.abort(new Error('done'));
      await first;
    } finally {
      chat.stall = false;
      await client.closeSession(opened.id);
    }
  });
});

describe('every way in, and the record', () => {
  it("runs spend the operator's model budget: a task session's key cannot start one, over HTTP or MCP", async () => {
    const session = await client.openSession({ credential_mode: 'clean' });
    try {
      const asSession = new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token: session.key! });
      const refused = await rejection(asSession.browse({ goal: 'answer "x"' }));
      expect(refused.message).toMatch(/A task session's key reaches its own session's browser routes and \/mcp only/);
      const mcp = new Client({ name: 'test', version: '1' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.control.port}/mcp?caps=browse`), {
          requestInit: { headers: { authorization: `Bearer ${session.key}` } },
        }),
      );
      const answer = (await mcp.callTool({ name: 'browser_browse', arguments: { goal: 'answer "x"' } })) as {
        content: Array<{ text?: string }>;
        isError?: boolean;
      };
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toMatch(/they are the main token's, not a task session key's/);
      await mcp.close();
    } finally {
      await client.closeSession(session.id);
    }
  });

  it('the action log has each run and each step, with provider, model, steps and tokens, and nothing of the goal or the keys', async () => {
    const { actions } = await client.actions({ limit: 1000 });
    const calls = actions.filter((action) => action.kind === 'browse_call');
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(calls[0].browse).toMatchObject({ provider: 'chat', model: 'stand-in-chat', runtime: 'tools', steps: 7 });
    expect(calls[0].browse!.inputTokens).toBeGreaterThan(0);
    const failed = actions.filter((action) => action.kind === 'browse_failed');
    expect(failed.map((action) => action.browse?.stoppedBy)).toEqual(expect.arrayContaining(['steps', 'step-timeout', 'cancel']));
    expect(actions.filter((action) => action.kind === 'tool_step' && action.browse?.run === calls[0].browse!.run)).toHaveLength(7);
    const file = readFileSync(join(home, 'logs', 'actions.jsonl'), 'utf8');
    for (const secret of [...Object.values(KEYS), 'Ada', 'Grace']) expect(file).not.toContain(secret);
  });

  it('clawd-browser browse: progress on stderr, the answer on stdout', async () => {
    state = { clicks: 0 };
    const { stdout, stderr } = await run(process.execPath, [CLI, '--url', `http://127.0.0.1:${server.control.port}`, 'browse', formGoal(), '--close'], {
      env: { ...process.env, CLAWD_HOME: home },
    });
    expect(stdout).toBe('Thanks, Ada\n');
    expect(stderr).toMatch(/^run [0-9a-f]+: chat \(stand-in-chat\), tools runtime/m);
    expect(stderr).toMatch(/^step 3: act type e\d+ \[\d+ tokens\]$/m);
    expect(stderr).toMatch(/^step 7: answered \[\d+ tokens\]$/m);
    expect(stderr).toMatch(/^Done \(7 steps/m);
    expect(state.form).toEqual({ name: 'Ada' });
  });

  it('MCP: browser_browse in its own group answers with the final answer only, with progress notifications', async () => {
    state = { clicks: 0 };
    const mcp = new Client({ name: 'test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.control.port}/mcp?caps=browse`), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    try {
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('browser_browse');
      const progress: string[] = [];
      const result = (await mcp.callTool({ name: 'browser_browse', arguments: { goal: formGoal(), close: true } }, undefined, {
        onprogress: (note) => progress.push(note.message ?? ''),
      })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
      expect(result.isError).toBeFalsy();
      expect(result.content).toHaveLength(1);
      expect(result.content[0].text).toMatch(/^Thanks, Ada\n\nDone \(7 steps, \d+ tokens\)\.$/);
      expect(progress[0]).toMatch(/^Browsing with chat \(stand-in-chat\)/);
      expect(progress.some((line) => /^Step 5: act click e\d+$/.test(line))).toBe(true);
      expect(state.form).toEqual({ name: 'Ada' });
    } finally {
      await mcp.close();
    }
    // Without the group turned on, it is not listed.
    const plain = new Client({ name: 'test', version: '1' });
    await plain.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.control.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    expect((await plain.listTools()).tools.map((tool) => tool.name)).not.toContain('browser_browse');
    await plain.close();
  });
});
