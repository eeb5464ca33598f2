/**
 * The toolbox, one scripted agent task per part, through MCP over HTTP
 * against `clawd-browser serve` in its own process (as an agent uses it):
 * the tokens of the tool definitions (the default list and each group), and
 * per task the calls, the tokens of the results, the wall time, and the
 * page's own state at the end. Run with `npm run bench:toolbox`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encode } from 'gpt-tokenizer';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { startServe } from './serve-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tokens = (text: string) => encode(text).length;

interface TaskFigure {
  task: string;
  calls: number;
  resultTokens: number;
  ms: number;
  pageState: unknown;
}

async function connect(port: number, token: string, caps?: string): Promise<Client> {
  const client = new Client({ name: 'toolbox-bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp${caps ? `?caps=${caps}` : ''}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function definitionTokens(client: Client): Promise<number> {
  const { tools } = await client.listTools();
  return tokens(JSON.stringify(tools.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations }))));
}

const home = mkdtempSync(join(tmpdir(), 'clawd-bench-toolbox-'));
const fixtures = await startFixtureServer();
const { control } = await freePortPair();
writeFileSync(
  join(home, 'config.json'),
  JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, noSandbox: true, urlPolicy: { mode: 'any' } }),
);
const serve = await startServe(home, control);
const figures: TaskFigure[] = [];
try {
  const definitions: Record<string, number> = {};
  for (const caps of [undefined, 'emulation', 'network', 'storage', 'all']) {
    const client = await connect(control, serve.token, caps);
    definitions[caps ?? 'default'] = await definitionTokens(client);
    await client.close();
  }

  const client = await connect(control, serve.token, 'all');
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text?: string; type: string }>; isError?: boolean };
    const text = result.content.map((part) => part.text ?? `<${part.type}>`).join('\n');
    if (result.isError) throw new Error(`${name}: ${text}`);
    return text;
  };
  const pageSays = async (targetId: string, fn: string) =>
    JSON.parse((await call('browser_act', { targetId, kind: 'evaluate', fn })).split('\n')[0].split(' → ')[1] ?? 'null') as unknown;
  const opened = await call('browser_tabs', { action: 'open', url: fixtures.url('index.html') });
  const targetId = /^Opened (\S+)/.exec(opened)![1];

  /** One task: its calls' result tokens and wall time; the page's state is read after (not counted). */
  const task = async (name: string, steps: Array<[string, Record<string, unknown>]>, state: () => Promise<unknown>) => {
    const started = performance.now();
    let resultTokens = 0;
    for (const [tool, args] of steps) resultTokens += tokens(await call(tool, args));
    const ms = Math.round(performance.now() - started);
    figures.push({ task: name, calls: steps.length, resultTokens, ms, pageState: await state() });
  };

  await task(
    'emulation: a phone in Tokyo, in the dark',
    [
      ['browser_emulate', { targetId, device: 'iPhone 13', timezone: 'Asia/Tokyo', locale: 'ja-JP', colorScheme: 'dark' }],
      ['browser_navigate', { targetId, url: fixtures.url('index.html?phone') }],
    ],
    () =>
      pageSays(
        targetId,
        '() => [screen.width, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language, matchMedia("(prefers-color-scheme: dark)").matches]',
      ),
  );
  await call('browser_emulate', { targetId, reset: true });

  await task(
    "routes: answer the page's API call, block its images",
    [
      ['browser_route', { targetId, action: 'fulfill', url: '**/api/profile', body: '{"name":"Ada"}', contentType: 'application/json' }],
      ['browser_route', { targetId, action: 'abort', url: '**/*.png' }],
      ['browser_act', { targetId, kind: 'evaluate', fn: "() => fetch('/api/profile').then((r) => r.json()).then((p) => p.name)" }],
      ['browser_route', { action: 'list' }],
    ],
    () => pageSays(targetId, "() => fetch('/api/profile').then((r) => r.text())"),
  );

  await task(
    "init script: a flag set before the page's own scripts",
    [
      ['browser_init_script', { targetId, action: 'add', script: 'window.__agent = "present"' }],
      ['browser_navigate', { targetId, url: fixtures.url(`echo?body=${encodeURIComponent('<script>document.title = window.__agent</script>')}`) }],
    ],
    () => pageSays(targetId, '() => document.title'),
  );

  await call('browser_navigate', { targetId, url: fixtures.url('index.html') });
  await task(
    'storage: set an item, save the state, clear, load it back',
    [
      ['browser_storage', { targetId, action: 'set', items: [{ name: 'cart', value: '3 items' }] }],
      ['browser_storage', { action: 'state', path: 'bench-state.json' }],
      ['browser_storage', { targetId, action: 'clear' }],
      ['browser_storage', { action: 'load-state', path: 'bench-state.json' }],
    ],
    () => pageSays(targetId, "() => localStorage.getItem('cart')"),
  );

  await task(
    'page text: an article as Markdown',
    [
      ['browser_navigate', { targetId, url: fixtures.url('article.html') }],
      ['browser_snapshot', { targetId, markdown: true }],
    ],
    async () => (await call('browser_snapshot', { targetId, markdown: true })).split('\n')[1],
  );
  await client.close();

  console.log('\nMCP definitions (o200k tokens, annotations included)');
  for (const [caps, count] of Object.entries(definitions))
    console.log(`  ${caps.padEnd(10)} ${String(count).padStart(5)}${caps !== 'default' && caps !== 'all' ? `  (+${count - definitions.default})` : ''}`);
  console.log('\nOne scripted task per part (MCP over HTTP, serve in its own process)');
  console.log(`  ${'task'.padEnd(56)} ${'calls'.padStart(5)} ${'tokens'.padStart(7)} ${'ms'.padStart(6)}   page state after`);
  for (const figure of figures)
    console.log(
      `  ${figure.task.padEnd(56)} ${String(figure.calls).padStart(5)} ${String(figure.resultTokens).padStart(7)} ${String(figure.ms).padStart(6)}   ${JSON.stringify(figure.pageState)}`,
    );
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/toolbox.json'), `${JSON.stringify({ definitions, tasks: figures }, null, 2)}\n`);
} finally {
  await serve.stop();
  await fixtures.close();
  rmSync(home, { recursive: true, force: true });
}
