/**
 * Tokens a coding agent spends driving a browser through a CLI in a shell:
 * clawd-browser's CLI beside Playwright's (`@playwright/cli`, installed from
 * npm), both on one Chromium (started here as a plain process: clawd through
 * a remote profile on its CDP endpoint, playwright-cli with `attach --cdp`).
 * Every command line counts as written, every output as read (o200k, a real
 * tokenizer), and each side's skill once per task, as an agent loads it. Each
 * side does what its own skill teaches, takes every ref from its own outputs,
 * and the page's own state is read at the end (not counted) to show the task
 * was done. Playwright's CLI is measured twice: reading snapshots for refs,
 * and with its `find`. Run alone with `npm run bench:cli`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { encode } from 'gpt-tokenizer';
import { chromium } from 'playwright-core';
import { launchChromium } from '../tests/harness/chromium.js';
import { freePortPair } from '../tests/harness/ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const run = promisify(execFile);
const tokens = (text: string) => encode(text).length;

const PLAYWRIGHT_CLI = join(dirname(require.resolve('@playwright/cli/package.json')), 'playwright-cli.js');
const SKILLS = {
  clawd: join(ROOT, 'skills/clawd-browser/SKILL.md'),
  playwright: join(dirname(require.resolve('@playwright/cli/package.json')), 'skills/playwright-cli/SKILL.md'),
};
const PYTHON_DOCS = '/usr/share/doc/python3-doc/html';

export interface CliFigures {
  task: string;
  side: string;
  commands: number;
  written: number;
  read: number;
  skill: number;
  /** What the agent wrote and read, the skill left out. */
  withoutSkill: number;
  withSkill: number;
  /** What the page itself holds at the end (the app's count, the heading landed on): read, not counted. */
  done: string;
}

/** One shell: each command as an agent writes it, and what it reads back. */
interface Shell {
  (line: string): Promise<string>;
}

/** Splits a command line as a shell would (double quotes only: what the scripts below write). */
function argv(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
}

/** The ref on the first line that matches, as either CLI prints refs. */
function ref(text: string, pattern: RegExp): string {
  const line = text.split('\n').find((candidate) => pattern.test(candidate) && /\[ref=/.test(candidate));
  const found = line && /\[ref=(\w+)\]/.exec(line)?.[1];
  if (!found) throw new Error(`no ref for ${pattern} in:\n${text.slice(0, 4000)}`);
  return found;
}

/** The ref of the link whose `/url:` line (Playwright's outline names a link by its URL below it when its words are code) ends with `address`. */
function linkTo(text: string, address: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => /^\s*- \/url: "?/.test(line) && line.replace(/"$/, '').endsWith(address));
  const found = at > 0 && /link\b.*\[ref=(\w+)\]/.exec(lines[at - 1])?.[1];
  if (!found) return ref(text, new RegExp(`link "${address.split('#')[1]}"`));
  return found;
}

/** The ref of the checkbox in the row whose text is `title`: the checkbox line nearest above it, in a row of its own (what an agent reads off a snapshot). */
function rowCheckbox(text: string, title: string): string {
  const lines = text.split('\n');
  const named = lines.find((line) => /checkbox/.test(line) && line.includes(`"${title}"`) && /\[ref=/.test(line));
  if (named) return /\[ref=(\w+)\]/.exec(named)![1];
  const at = lines.findIndex((line) => /^\s*- /.test(line) && line.includes(title) && !/checkbox/.test(line));
  for (let index = at - 1; at > 0 && index >= 0; index--) {
    const found = /checkbox\b.*\[ref=(\w+)\]/.exec(lines[index])?.[1];
    if (found) return found;
  }
  throw new Error(`no checkbox for ${title} in:\n${text.slice(0, 4000)}`);
}

interface Task {
  name: string;
  url: string;
  /** The task's steps, in one CLI's commands. */
  clawd(shell: Shell, url: string): Promise<void>;
  playwright(shell: Shell, url: string, find: boolean): Promise<void>;
  /** What the page shows at the end, read from the page itself. */
  done: string;
}

/** TodoMVC: add three, complete the second, show Active, read the count the app shows. */
function todoTask(app: string, site: string): Task {
  const url = `${site}/examples/${app}/index.html`;
  const titles = ['Buy milk', 'Walk the dog', 'Read a book'];
  return {
    name: `todomvc ${app}`,
    url,
    async clawd(shell) {
      await shell(`clawd-browser open ${url}`);
      const page = await shell('clawd-browser snapshot -i');
      const field = ref(page, /textbox "What needs to be done\?"/);
      for (const title of titles) await shell(`clawd-browser type ${field} "${title}" --submit`);
      const found = await shell(`clawd-browser find "${titles[1]}"`);
      await shell(`clawd-browser click ${rowCheckbox(found, titles[1])}`);
      const filter = await shell('clawd-browser find Active');
      await shell(`clawd-browser click ${ref(filter, /link "Active"/)}`);
      await shell('clawd-browser find "left"');
    },
    async playwright(shell, _url, find) {
      await shell(`playwright-cli goto ${url}`);
      const look = (text: string) => shell(find ? `playwright-cli find "${text}"` : 'playwright-cli snapshot');
      const field = ref(await look('What needs to be done'), /textbox "What needs to be done\?"/);
      for (const title of titles) await shell(`playwright-cli fill ${field} "${title}" --submit`);
      await shell(`playwright-cli click ${rowCheckbox(await look(titles[1]), titles[1])}`);
      await shell(`playwright-cli click ${ref(await look('Active'), /link "Active"/)}`);
      await look('left');
    },
    // The app's own count, and which filter it shows.
    done: "() => `${document.querySelector('#todo-count')?.textContent?.trim()}, ${document.querySelector('#filters .selected')?.textContent?.trim()} shown`",
  };
}

/** Python's `os` documentation: follow the `os.path` link, and check the heading of where it lands. */
function docsTask(site: string): Task {
  const url = `${site}/library/os.html`;
  const link = /link "os\.path"/;
  return {
    name: 'python docs',
    url,
    async clawd(shell) {
      await shell(`clawd-browser open ${url}`);
      const found = await shell('clawd-browser find "os.path"');
      await shell(`clawd-browser click ${ref(found, link)}`);
      await shell('clawd-browser find "os.path —"');
    },
    async playwright(shell, _url, find) {
      await shell(`playwright-cli goto ${url}`);
      const found = await shell(find ? 'playwright-cli find "os.path"' : 'playwright-cli snapshot');
      await shell(`playwright-cli click ${linkTo(found, 'os.path.html#module-os.path')}`);
      await shell(find ? 'playwright-cli find "os.path —"' : 'playwright-cli snapshot');
    },
    done: "() => `${location.pathname}: ${document.querySelector('h1')?.textContent?.trim()}`",
  };
}

/** A site of the todomvc package and Python's docs, on loopback. */
async function startSite(): Promise<{ url: string; server: Server }> {
  const todomvc = dirname(require.resolve('todomvc/package.json'));
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.css': 'text/css',
    '.js': 'text/javascript',
    '.png': 'image/png',
    '.svg': 'image/svg+xml',
    '.json': 'application/json',
  };
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://site').pathname);
    const root = pathname.startsWith('/library/') || pathname.startsWith('/_static/') ? PYTHON_DOCS : todomvc;
    const path = join(root, pathname);
    if (!path.startsWith(root) || !existsSync(path)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function measureCliTokens(): Promise<CliFigures[]> {
  const browser = await launchChromium({ remoteDebuggingPort: 0 });
  const site = await startSite();
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-cli-'));
  const work = join(home, 'playwright-work');
  mkdirSync(work);
  const { control } = await freePortPair();
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, defaultProfile: 'bench', profiles: { bench: { cdpUrl: browser.httpEndpoint } } }),
  );
  writeFileSync(join(home, 'token'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const env = { ...process.env, CLAWD_HOME: home };
  const serve = execFile(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), 'serve'], { env });
  const figures: CliFigures[] = [];
  try {
    await waitForServer(control);
    const tasks = [todoTask('react', site.url), todoTask('vue', site.url), ...(existsSync(PYTHON_DOCS) ? [docsTask(site.url)] : [])];
    for (const task of tasks) {
      const clawd = async (line: string) => {
        const [, ...args] = argv(line);
        const answer = await run(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), ...args], { env, maxBuffer: 64 * 1024 * 1024 }).catch(
          (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
        );
        return answer.stdout + answer.stderr;
      };
      await freshStart(browser.httpEndpoint!, site.url);
      figures.push(await measure(task, 'clawd-browser CLI', SKILLS.clawd, (shell) => task.clawd(shell, task.url), clawd, browser.httpEndpoint!));
      for (const find of [false, true]) {
        const pw = async (line: string) => {
          const [, ...args] = argv(line);
          const answer = await run(process.execPath, [PLAYWRIGHT_CLI, ...args], {
            cwd: work,
            env: { ...process.env, PLAYWRIGHT_CLI_NO_UPDATE_CHECK: '1' },
            maxBuffer: 64 * 1024 * 1024,
          }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
          return answer.stdout + answer.stderr;
        };
        await freshStart(browser.httpEndpoint!, site.url);
        figures.push(
          await measure(
            task,
            `playwright-cli${find ? ' + find' : ', reading snapshots'}`,
            SKILLS.playwright,
            async (shell) => {
              await shell(`playwright-cli attach --cdp=${browser.httpEndpoint}`);
              try {
                await task.playwright(shell, task.url, find);
              } finally {
                await shell('playwright-cli detach');
              }
            },
            pw,
            browser.httpEndpoint!,
          ),
        );
      }
    }
    return figures;
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
    site.server.close();
    await browser.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function measure(
  task: Task,
  side: string,
  skillPath: string,
  steps: (shell: Shell) => Promise<void>,
  execute: (line: string) => Promise<string>,
  endpoint: string,
): Promise<CliFigures> {
  let written = 0;
  let read = 0;
  let commands = 0;
  const shell: Shell = async (line) => {
    commands++;
    written += tokens(line);
    const output = await execute(line);
    read += tokens(output);
    if (process.env.BENCH_VERBOSE) console.log(`$ ${line}\n${output}`);
    return output;
  };
  await steps(shell);
  const done = await pageState(endpoint, task);
  const skill = tokens(readFileSync(skillPath, 'utf8'));
  return { task: task.name, side, commands, written, read, skill, withoutSkill: written + read, withSkill: written + read + skill, done };
}

/** The task's page as the page itself says it (the one tab not blank): not counted, and not through either CLI. */
async function pageState(endpoint: string, task: Task): Promise<string> {
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    const page = browser
      .contexts()
      .flatMap((context) => context.pages())
      .find((candidate) => candidate.url() !== 'about:blank');
    return page ? String(await page.evaluate(`(${task.done})()`)) : 'no page';
  } finally {
    await browser.close();
  }
}

/** Each side starts as the other did: the apps' saved todos cleared, one blank tab. */
async function freshStart(endpoint: string, origin: string): Promise<void> {
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    const pages = browser.contexts().flatMap((context) => context.pages());
    await pages[0].goto(`${origin}/examples/react/index.html`);
    await pages[0].evaluate(() => localStorage.clear());
    await pages[0].goto('about:blank');
    for (const page of pages.slice(1)) await page.close();
  } finally {
    await browser.close();
  }
}

async function waitForServer(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (
      await fetch(`http://127.0.0.1:${port}/pressure`).then(
        (answer) => answer.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('serve did not start');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureCliTokens();
  console.log('| task | side | commands | written | read | without the skill | skill | with the skill | the page says |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const row of figures)
    console.log(
      `| ${row.task} | ${row.side} | ${row.commands} | ${row.written} | ${row.read} | ${row.withoutSkill.toLocaleString('en')} | ${row.skill.toLocaleString('en')} | ${row.withSkill.toLocaleString('en')} | ${row.done} |`,
    );
}
