/**
 * What an agent waits for on each CLI command: every command as a whole
 * process, spawned as an agent's shell spawns it and timed from spawn to
 * exit, against a `serve` already running on one page. Beside it, Node's
 * own start (`node -e 0`, the floor) and Playwright's CLI
 * (`@playwright/cli`, when installed: attached to a Chromium of its own,
 * on the same page, so neither side's tab waits in the background while
 * the other's is shown). The runs alternate (node, clawd, peer,
 * command after command), so the machine's load falls on every side alike;
 * medians of BENCH_RUNS (10). Then `serve` (spawn → its control API
 * answers) and `mcp` (spawn → its answer to `initialize`, the server
 * running). Each page counts its clicks, read at the end from the page
 * itself. BENCH_ROOT=/path/to/checkout measures another build; run with
 * `npm run bench:cli-start` (it starts Chromium: under the lock).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { launchChromium } from '../tests/harness/chromium.js';
import { freePortPair } from '../tests/harness/ports.js';
import { startServe } from './serve-process.js';

const ROOT = process.env.BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin/clawd-browser.js');
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 10));
const require = createRequire(import.meta.url);
const run = promisify(execFile);
/** GNU time, when the machine has it: the CPU a command spent, beside its wall time. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function playwrightCli(): string | undefined {
  try {
    return join(dirname(require.resolve('@playwright/cli/package.json')), 'playwright-cli.js');
  } catch {
    return undefined;
  }
}

/** Its button shows its count: a click the page reacts to at once, as most an agent makes (one that changes nothing waits a moment for a late reaction). */
const PAGE = `<!doctype html><title>Start-up</title><h1>Start-up</h1>
<p>A page an agent reads and clicks on while its commands are timed.</p>
<ul>${Array.from({ length: 10 }, (_, i) => `<li><a href="#s${i}">Section ${i + 1}</a></li>`).join('')}</ul>
<label>Name <input name="who"></label>
<button onclick="window.clicks = (window.clicks || 0) + 1; document.querySelector('output').textContent = window.clicks">Count</button>
<p>Clicked <output>0</output> times.</p>`;

interface Timed {
  ms: number;
  /** User + system CPU, when /usr/bin/time is there. */
  cpuMs?: number;
  stdout: string;
}

/** Where /usr/bin/time writes each command's CPU. */
const cpuFile = TIME && join(tmpdir(), `clawd-bench-cpu-${process.pid}`);

/** One command as a whole process: spawn → exit, its output read as it comes. */
async function timed(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Timed> {
  const [file, argv] = TIME && cpuFile ? [TIME, ['-f', '%U %S', '-o', cpuFile, command, ...args]] : [command, args];
  const started = performance.now();
  const child = spawn(file, argv, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.trim() || stdout.trim()}`);
  let cpuMs: number | undefined;
  if (cpuFile) {
    const [user, system] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    cpuMs = (user + system) * 1000;
  }
  return { ms, cpuMs, stdout };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The first `[ref=…]` on the line naming the button, as either CLI prints refs. */
function buttonRef(snapshot: string): string {
  const found = /button "Count".*\[ref=(\w+)\]/.exec(snapshot)?.[1];
  if (!found) throw new Error(`no ref for the Count button in:\n${snapshot.slice(0, 2000)}`);
  return found;
}

async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** The environment an agent's shell gives the CLI: this home, nothing else of clawd-browser's. */
function clawdEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CLAWD_HOME: home };
  for (const name of ['CLAWD_URL', 'CLAWD_KEY', 'CLAWD_AGENT']) delete env[name];
  return env;
}

interface Row {
  command: string;
  node: number[];
  clawd: number[];
  clawdCpu: number[];
  peer: number[];
}

/** `serve` from spawn to its control API answering, on a home of its own; stopped after each. */
async function serveStarts(): Promise<number[]> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-serve-'));
  const { control } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, noSandbox: true }));
  const times: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const serve = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env: clawdEnv(home), stdio: ['ignore', 'ignore', 'inherit'] });
      try {
        while (
          !(await fetch(`http://127.0.0.1:${control}/pressure`, { signal: AbortSignal.timeout(2_000) }).then(
            (answer) => answer.ok,
            () => false,
          ))
        ) {
          if (serve.exitCode !== null) throw new Error(`serve exited ${serve.exitCode}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        times.push(performance.now() - started);
      } finally {
        await stop(serve);
      }
    }
    return times;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `mcp` on stdio from spawn to its answer to `initialize`, the home's server already running. */
async function mcpStarts(home: string): Promise<number[]> {
  const times: number[] = [];
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  };
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const mcp = spawn(process.execPath, [CLI, 'mcp'], { env: clawdEnv(home), stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      mcp.stdin!.write(`${JSON.stringify(initialize)}\n`);
      await new Promise<void>((resolve, reject) => {
        let out = '';
        mcp.stdout!.on('data', (chunk: Buffer) => {
          out += chunk;
          if (out.includes('"id":1')) resolve();
        });
        mcp.once('exit', (code) => reject(new Error(`mcp exited ${code} before answering`)));
      });
      times.push(performance.now() - started);
    } finally {
      mcp.stdin!.end();
      await stop(mcp);
    }
  }
  return times;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** How many times the page's button was clicked, read from the page itself. */
async function clicksOnPage(endpoint: string): Promise<number> {
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    const pages = browser
      .contexts()
      .flatMap((context) => context.pages())
      .filter((page) => page.url().startsWith('http'));
    const counts = await Promise.all(pages.map((page) => page.evaluate(() => (window as unknown as { clicks?: number }).clicks ?? 0)));
    return counts.reduce((sum, count) => sum + count, 0);
  } finally {
    await browser.close();
  }
}

export async function measureCliStart(): Promise<{ rows: Row[]; serve: number[]; mcp: number[]; clicks: number[]; peer: boolean }> {
  const browser = await launchChromium({ remoteDebuggingPort: 0 });
  const peerCli = playwrightCli();
  const peerBrowser = peerCli ? await launchChromium({ remoteDebuggingPort: 0 }) : undefined;
  const site = await startSite();
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-start-'));
  const work = join(home, 'playwright-work');
  mkdirSync(work);
  const { control } = await freePortPair();
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, defaultProfile: 'bench', profiles: { bench: { cdpUrl: browser.httpEndpoint } } }),
  );
  const server = await startServe(home, control, ROOT);
  const peerEnv = { ...process.env, PLAYWRIGHT_CLI_NO_UPDATE_CHECK: '1' };
  const clawd = (args: string[]) => timed(process.execPath, [CLI, ...args], { env: clawdEnv(home) });
  const peer = (args: string[]) => timed(process.execPath, [peerCli!, ...args], { env: peerEnv, cwd: work });
  try {
    await clawd(['open', site.url]);
    const clawdRef = buttonRef((await clawd(['snapshot'])).stdout);
    let peerRef = '';
    if (peerCli) {
      await run(process.execPath, [peerCli, `attach`, `--cdp=${peerBrowser!.httpEndpoint}`], { env: peerEnv, cwd: work });
      await peer(['goto', site.url]);
      peerRef = buttonRef((await peer(['snapshot'])).stdout);
    }
    const commands = [
      { command: '--version', clawd: ['--version'], peer: ['--version'] },
      { command: 'tabs (playwright-cli: tab-list)', clawd: ['tabs'], peer: ['tab-list'] },
      { command: 'snapshot', clawd: ['snapshot'], peer: ['snapshot'] },
      { command: 'click <ref>', clawd: ['click', clawdRef], peer: ['click', peerRef] },
    ];
    const rows: Row[] = commands.map(({ command }) => ({ command, node: [], clawd: [], clawdCpu: [], peer: [] }));
    for (let i = 0; i < RUNS; i++) {
      for (const [index, command] of commands.entries()) {
        const row = rows[index];
        row.node.push((await timed(process.execPath, ['-e', '0'])).ms);
        const own = await clawd(command.clawd);
        row.clawd.push(own.ms);
        if (own.cpuMs !== undefined) row.clawdCpu.push(own.cpuMs);
        if (peerCli) row.peer.push((await peer(command.peer)).ms);
      }
    }
    const clicks = [await clicksOnPage(browser.httpEndpoint!), ...(peerBrowser ? [await clicksOnPage(peerBrowser.httpEndpoint!)] : [])];
    if (peerCli) await run(process.execPath, [peerCli, 'detach'], { env: peerEnv, cwd: work }).catch(() => undefined);
    const mcp = await mcpStarts(home);
    await server.stop();
    const serve = await serveStarts();
    return { rows, serve, mcp, clicks, peer: peerCli !== undefined };
  } finally {
    await server.stop();
    site.server.close();
    await browser.close();
    await peerBrowser?.close();
    rmSync(home, { recursive: true, force: true });
    if (cpuFile) rmSync(cpuFile, { force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, serve, mcp, clicks, peer } = await measureCliStart();
  console.log(`clawd-browser at ${ROOT}, ${RUNS} runs each, medians (wall, spawn → exit)\n`);
  console.log(`| command | \`node -e 0\` | clawd-browser | clawd − node | clawd CPU |${peer ? ' playwright-cli | clawd ÷ playwright-cli |' : ''}`);
  console.log(`| --- | ---: | ---: | ---: | ---: |${peer ? ' ---: | ---: |' : ''}`);
  for (const row of rows) {
    const [node, clawd] = [median(row.node), median(row.clawd)];
    const cpu = row.clawdCpu.length ? seconds(median(row.clawdCpu)) : '';
    const peerCells = peer ? ` ${seconds(median(row.peer))} | ${(clawd / median(row.peer)).toFixed(2)}× |` : '';
    console.log(`| ${row.command} | ${seconds(node)} | **${seconds(clawd)}** | ${seconds(clawd - node)} | ${cpu} |${peerCells}`);
  }
  console.log(`\n\`serve\`, spawn → control API answers: ${seconds(median(serve))} (${seconds(Math.min(...serve))}–${seconds(Math.max(...serve))})`);
  console.log(`\`mcp\`, spawn → initialize answered (server running): ${seconds(median(mcp))} (${seconds(Math.min(...mcp))}–${seconds(Math.max(...mcp))})`);
  console.log(`\nclicks each page counted (clawd's${peer ? ", playwright-cli's" : ''}): ${clicks.join(', ')} (${RUNS} each expected)`);
}
