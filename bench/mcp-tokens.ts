/**
 * Tokens an agent receives for one scripted task, through clawd-browser's
 * MCP server and through @playwright/mcp, both driving the same Chromium
 * (clawd through a remote profile on its CDP endpoint, Playwright MCP with
 * --cdp-endpoint). Counted with a real tokenizer (gpt-tokenizer, o200k):
 * the tool definitions once, plus every tool result. Each side uses its
 * defaults, and takes every ref from its own previous results, as an agent
 * would. Run alone with `npm run bench:mcp`; `npm run bench` runs it too.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { encode } from 'gpt-tokenizer';
import { launchChromium } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface McpTokenFigures {
  task: string;
  side: string;
  definitions: number;
  tools: number;
  results: number[];
  total: number;
  finalTodos: unknown;
}

const tokens = (text: string) => encode(text).length;

function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((part) => part.text ?? `<${part.type}>`).join('\n');
}

/** The ref on the first line matching, skipping a diff's removed lines. */
function ref(text: string, pattern: RegExp): string {
  const line = text.split('\n').find((candidate) => pattern.test(candidate) && /\[ref=/.test(candidate) && !/^-\s+-\s/.test(candidate));
  const found = line && /\[ref=(\w+)\]/.exec(line)?.[1];
  if (!found) throw new Error(`no ref for ${pattern} in:\n${text}`);
  return found;
}

interface Side {
  name: string;
  client: Client;
  /** The task's steps in this server's tools; each returns the result text. */
  run(call: (name: string, args: Record<string, unknown>) => Promise<string>, url: string): Promise<void>;
  /** The page's own state at the end (not counted). */
  check(client: Client): Promise<unknown>;
}

async function measure(task: string, side: Side, url: string): Promise<McpTokenFigures> {
  const { tools } = await side.client.listTools();
  // Everything tools/list sends is counted, annotations (read-only hints) included.
  const definitions = tokens(JSON.stringify(tools.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations }))));
  const results: number[] = [];
  await side.run(async (name, args) => {
    const result = await side.client.callTool({ name, arguments: args });
    const text = resultText(result);
    if ((result as { isError?: boolean }).isError) throw new Error(`${side.name} ${name}: ${text}`);
    results.push(tokens(text));
    if (process.env.BENCH_VERBOSE) console.log(`--- ${side.name} ${name} ${JSON.stringify(args)}\n${text}`);
    return text;
  }, url);
  const finalTodos = await side.check(side.client);
  return { task, side: side.name, definitions, tools: tools.length, results, total: definitions + results.reduce((a, b) => a + b, 0), finalTodos };
}

const TODO_STATE = '() => window.todos.map((todo) => todo.title + (todo.done ? " (done)" : ""))';

export async function measureMcpTokens(): Promise<McpTokenFigures[]> {
  const fixtures = await startFixtureServer();
  const browser = await launchChromium({ remoteDebuggingPort: 0 });
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-mcp-'));
  const { control } = await freePortPair();
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, profiles: { bench: { cdpUrl: browser.httpEndpoint } } }),
  );
  writeFileSync(join(home, 'token'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const env = { ...process.env, CLAWD_HOME: home } as Record<string, string>;
  const clawd = new Client({ name: 'bench', version: '1' });
  const playwright = new Client({ name: 'bench', version: '1' });
  try {
    await clawd.connect(
      new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/clawd-browser.js'), '--profile', 'bench', 'mcp'], env, stderr: 'ignore' }),
    );
    await playwright.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'node_modules/@playwright/mcp/cli.js'), '--cdp-endpoint', browser.httpEndpoint!, '--output-dir', join(home, 'playwright-mcp')],
        cwd: home,
        env,
        stderr: 'ignore',
      }),
    );
    const ours = await measure(
      'todo',
      {
        name: 'clawd-browser mcp',
        client: clawd,
        async run(call, url) {
          const opened = await call('browser_tabs', { action: 'open', url });
          const targetId = /^Opened (\S+)/.exec(opened)![1];
          const page = await call('browser_snapshot', { targetId, interactive: true });
          const input = ref(page, /textbox "New todo"/);
          await call('browser_act', { targetId, kind: 'type', ref: input, text: 'Milk', submit: true });
          const second = await call('browser_act', { targetId, kind: 'type', ref: input, text: 'Eggs', submit: true });
          await call('browser_act', { targetId, kind: 'click', ref: ref(second, /checkbox "Milk"/) });
          await call('browser_act', { targetId, kind: 'click', ref: ref(page, /button "Active"/) });
          await call('browser_act', { targetId, kind: 'click', ref: ref(page, /button "Clear completed"/) });
          this.targetId = targetId;
        },
        async check(client) {
          // The script's result is the page's: inside the answer's fence, on the line that starts with →.
          const said = resultText(
            await client.callTool({ name: 'browser_act', arguments: { targetId: this.targetId, kind: 'evaluate', fn: TODO_STATE } }),
          ).split('\n');
          return said.find((line) => line.startsWith('→ ')) ?? said[0];
        },
        targetId: '',
      } as Side & { targetId: string },
      fixtures.url('todo.html'),
    );
    const theirs = await measure(
      'todo',
      {
        name: '@playwright/mcp (defaults)',
        client: playwright,
        // Its actions save the page's snapshot to a file and answer with a link;
        // browser_snapshot answers inline. So: a snapshot where refs are needed.
        async run(call, url) {
          await call('browser_navigate', { url });
          const page = await call('browser_snapshot', {});
          const input = ref(page, /textbox "New todo"/);
          await call('browser_type', { element: 'New todo', target: input, text: 'Milk', submit: true });
          await call('browser_type', { element: 'New todo', target: input, text: 'Eggs', submit: true });
          const list = await call('browser_snapshot', {});
          await call('browser_click', { element: 'Milk checkbox', target: ref(list, /checkbox "Milk"/) });
          await call('browser_click', { element: 'Active filter', target: ref(list, /button "Active"/) });
          await call('browser_click', { element: 'Clear completed', target: ref(list, /button "Clear completed"/) });
        },
        async check(client) {
          const text = resultText(await client.callTool({ name: 'browser_evaluate', arguments: { function: TODO_STATE } }));
          return /\[[^\]]*\]/.exec(text)?.[0] ?? text.slice(0, 200);
        },
      },
      fixtures.url('todo.html'),
    );
    const figures = [ours, theirs];
    if (existsSync(PYTHON_DOCS)) figures.push(...(await measureDocsTask(clawd, playwright)));
    else console.log(`(the docs task needs Debian's python3-doc at ${PYTHON_DOCS}: skipped)`);
    return figures;
  } finally {
    await clawd.close().catch(() => {});
    await playwright.close().catch(() => {});
    // `clawd-browser mcp` started serve in the background for this home: stop it.
    await stopServe(home);
    await browser.close();
    await fixtures.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Python's own documentation, as Debian installs it (python3-doc): a page nobody here wrote, longer than a snapshot's default budget. */
const PYTHON_DOCS = '/usr/share/doc/python3-doc/html';
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * The second task: on `os`'s documentation page (290,000 characters of
 * outline), find the `os.path` link and follow it. Each side does what an
 * agent would with its defaults: navigate, look (clawd's agent with the
 * snapshot's `find`, which its tool description names), click the link by
 * its ref.
 */
async function measureDocsTask(clawd: Client, playwright: Client): Promise<McpTokenFigures[]> {
  const site = createServer((request, response) => {
    const path = join(PYTHON_DOCS, decodeURIComponent(new URL(request.url ?? '/', 'http://docs').pathname));
    if (!path.startsWith(PYTHON_DOCS) || !existsSync(path)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/library/os.html`;
  const landed = (text: string) => (/os\.path/.test(text) ? 'at os.path' : text.slice(0, 120));
  try {
    const ours = await measure(
      'docs',
      {
        name: 'clawd-browser mcp',
        client: clawd,
        async run(call, start) {
          const opened = await call('browser_tabs', { action: 'open', url: start });
          const targetId = /^Opened (\S+)/.exec(opened)![1];
          const link = /link "os\.path" \[url=\/library\/os\.path\.html/;
          // The agent knows what it looks for: it asks for it rather than reading the page.
          let page = await call('browser_snapshot', { targetId, find: 'os.path' });
          // Not in what was shown: a whole snapshot, whose cut note names the sections that follow; the agent reads the main one.
          if (!page.split('\n').some((line) => link.test(line))) page = await call('browser_snapshot', { targetId });
          if (!page.split('\n').some((line) => link.test(line))) {
            const handle = /next: .*?\bmain \[selector=(\w+)\]/.exec(page)?.[1];
            if (!handle) throw new Error(`the cut note gives no handle to the main section: ${page.slice(-400)}`);
            page = await call('browser_snapshot', { targetId, selector: handle });
          }
          this.landed = await call('browser_act', { targetId, kind: 'click', ref: ref(page, link) });
        },
        async check() {
          return landed(this.landed);
        },
        landed: '',
      } as Side & { landed: string },
      url,
    );
    const theirs = await measure(
      'docs',
      {
        name: '@playwright/mcp (defaults)',
        client: playwright,
        async run(call, start) {
          await call('browser_navigate', { url: start });
          const page = await call('browser_snapshot', {});
          // Its outline names this link by its child (`code: os.path`) and gives its URL on the next line.
          const lines = page.split('\n');
          const at = lines.findIndex((line, i) => /- link\b.*\[ref=/.test(line) && /\/url: os\.path\.html#module-os\.path/.test(lines[i + 1] ?? ''));
          if (at < 0) throw new Error("no os.path link in Playwright MCP's snapshot");
          this.landed = await call('browser_click', { element: 'os.path link', target: ref(lines[at], /link/) });
        },
        async check() {
          return landed(this.landed);
        },
        landed: '',
      } as Side & { landed: string },
      url,
    );
    return [ours, theirs];
  } finally {
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  }
}

/** The detached serve this benchmark's `mcp` started (its pid is in $CLAWD_HOME/relay.pid): ended, and waited for. */
async function stopServe(home: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(home, 'relay.pid'), 'utf8').trim());
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const MCP_TASKS: Record<string, { title: string; target: number }> = {
  todo: { title: 'the todo task (add two items, tick one, filter, clear)', target: 0.25 },
  docs: { title: "the docs task (os's documentation: find the os.path link, follow it)", target: 0.25 },
};

export function reportMcpTokens(figures: McpTokenFigures[]): void {
  const ratios: Record<string, number> = {};
  for (const [task, { title, target }] of Object.entries(MCP_TASKS)) {
    const [ours, theirs] = figures.filter((figure) => figure.task === task);
    if (!ours || !theirs) continue;
    console.log(`\nMCP: tokens the agent receives for ${title}, gpt-tokenizer o200k`);
    console.log(
      `${'server'.padEnd(30)} ${'tools'.padStart(5)} ${'definitions'.padStart(12)} ${'results'.padStart(9)} ${'total'.padStart(7)}   per call                       final state`,
    );
    for (const side of [ours, theirs]) {
      const results = side.results.reduce((a, b) => a + b, 0);
      console.log(
        `${side.side.padEnd(30)} ${String(side.tools).padStart(5)} ${String(side.definitions).padStart(12)} ${String(results).padStart(9)} ${String(side.total).padStart(7)}   ${side.results.join(' ').padEnd(30)} ${JSON.stringify(side.finalTodos)}`,
      );
    }
    ratios[task] = ours.total / theirs.total;
    console.log(`clawd / Playwright MCP total: ${ratios[task].toFixed(2)}   target ≤ ${target}${ratios[task] <= target ? ' ✓' : ' ✗'}`);
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/mcp-tokens.json'), `${JSON.stringify({ figures, ratios }, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportMcpTokens(await measureMcpTokens());
}
