import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { type LaunchedChromium, launchChromium, openTab, setExtensionStorage, triggerExtensionAction, waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { type FixtureServer, startFixtureServer } from '../harness/fixture-server.js';
import { freePortPair } from '../harness/ports.js';
import { startPackageSite } from '../harness/package-site.js';
import { EXTENSION_DIR } from '../harness/relay-env.js';

/**
 * The relay as a user runs it: `clawd-browser serve` in its own process, the
 * token and CDP URL from the CLI, and Chrome's /json HTTP endpoints.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), 'clawd-home-'));
const env = { ...process.env, CLAWD_HOME: home };
/** The relay's port; the control API is one below. */
let port: number;
let controlPort: number;
let server: ChildProcess;
let browser: LaunchedChromium;
let fixtures: FixtureServer;
let token: string;

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { env });
  return stdout.trim();
}

async function json(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
}

beforeAll(async () => {
  ({ control: controlPort, relay: port } = await freePortPair());
  // The managed profile gets a port of its own, so it never meets another Chromium on 18800.
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${controlPort}`, profiles: { clawd: { cdpPort: (await freePortPair()).control } } }),
  );
  server = spawn(process.execPath, [CLI, 'serve', '--port', String(controlPort), '--log-level', 'warn'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  token = await cli('token');
  await waitFor(async () => (await json('/json/version').catch(() => undefined))?.status === 200, {
    timeoutMs: 15_000,
    message: 'clawd-browser serve did not come up',
  });
  fixtures = await startFixtureServer();
  browser = await launchChromium({ extensionDir: EXTENSION_DIR });
  const key = await cli('extension-key');
  await setExtensionStorage(browser.cdp, EXTENSION_ID, 'local', { pairing: { relayUrl: `ws://127.0.0.1:${port}`, key, via: 'manual' } });
});

afterAll(async () => {
  await browser?.close();
  // serve stops its managed browsers before exiting; only then is the home quiet.
  const exited = new Promise((resolve) => server?.once('exit', resolve));
  server?.kill('SIGTERM');
  await exited;
  await fixtures?.close();
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe('clawd-browser CLI', () => {
  it('creates the token once, private to the user, and prints the CDP URL', async () => {
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(home, 'token')).mode & 0o777).toBe(0o600);
    expect(await cli('token')).toBe(token);
    expect(JSON.parse(await cli('--json', 'token'))).toEqual({ token });
    expect(await cli('cdp-url', '--port', String(controlPort))).toBe(`ws://127.0.0.1:${port}/cdp?token=${token}`);
  });

  it('fails with a one-line reason and a non-zero exit on bad arguments', async () => {
    const failure = await run(process.execPath, [CLI, 'serve', '--port', 'eighty'], { env }).catch((error) => error);
    expect(failure.code).not.toBe(0);
    expect(failure.stderr).toMatch(/port number/);
  });

  it('takes the relay port from config.json (controlUrl port + 1) and says what is wrong with a bad config', async () => {
    const other = mkdtempSync(join(tmpdir(), 'clawd-home-'));
    try {
      const otherEnv = { ...process.env, CLAWD_HOME: other };
      writeFileSync(join(other, 'config.json'), JSON.stringify({ controlUrl: 'http://127.0.0.1:29001' }));
      const { stdout } = await run(process.execPath, [CLI, 'cdp-url'], { env: otherEnv });
      expect(stdout.trim()).toMatch(/^ws:\/\/127\.0\.0\.1:29002\/cdp\?token=[0-9a-f]{64}$/);
      writeFileSync(join(other, 'config.json'), '{"headless": "sometimes"}');
      const failure = await run(process.execPath, [CLI, 'serve'], { env: otherEnv }).catch((error) => error);
      expect(failure.code).toBe(1);
      expect(failure.stderr.trim().split('\n')).toHaveLength(1);
      expect(failure.stderr).toMatch(/config\.json: headless: /);
    } finally {
      rmSync(other, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });

  it('a tab shared with the served relay is driven through `cdp-url`', async () => {
    const url = fixtures.url('index.html?cli=1');
    const { pageTargetId, tabTargetId } = await openTab(browser.cdp, url);
    await triggerExtensionAction(browser.cdp, EXTENSION_ID, tabTargetId);
    await waitFor(async () => ((await (await json('/json/list')).json()) as Array<{ id: string }>).some((t) => t.id === pageTargetId), {
      message: 'tab not listed by /json/list',
    });
    const client = await chromium.connectOverCDP(await cli('cdp-url', '--port', String(controlPort)));
    try {
      const [page] = client.contexts()[0].pages();
      expect(page.url()).toBe(url);
      await page.click('#btn');
      expect(await page.textContent('#count')).toBe('1');
    } finally {
      await client.close();
    }
  });
});

describe('browser commands against the running server', () => {
  const fail = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], { env }).then(
      () => {
        throw new Error(`clawd-browser ${args.join(' ')} succeeded`);
      },
      (error: { code: number; stderr: string }) => error,
    );

  it('drives the managed clawd profile: tabs, open, navigate, screenshot, console, close, status, stop', async () => {
    expect((await cli('tabs')).split('\n').length).toBeGreaterThanOrEqual(1); // starts the browser on first use
    const opened = await cli('open', fixtures.url('console.html'));
    const [targetId] = opened.split(/\s+/);
    expect(targetId).toMatch(/^[0-9A-F]{32}$/);
    expect(opened).toContain('Console Fixture');
    const listed = (JSON.parse(await cli('--json', 'tabs')) as { tabs: Array<{ targetId: string; url: string }> }).tabs;
    expect(listed).toContainEqual(expect.objectContaining({ targetId, url: fixtures.url('console.html') }));
    // (The fixture server has no favicon: Chrome logs that 404 as an error too.)
    expect(await cli('console', '--level', 'error', '--target', targetId.slice(0, 6))).toMatch(/^error: something broke$/m);

    const shot = join(home, 'shot.png');
    expect(await cli('screenshot', '--full-page', '--out', shot)).toBe(shot);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    // Labelled: the picture, and a line per label (the number is the ref).
    await cli('navigate', fixtures.url('form.html'));
    const labelled = (await cli('screenshot', '--labels', '--out', shot)).split('\n');
    expect(labelled[0]).toBe(shot);
    expect(labelled).toContainEqual(expect.stringMatching(/^\d+ button "Submit"$/));
    await expect(cli('screenshot', '--labels', '--element', 'form')).rejects.toThrow(/--labels draws on the page or the full page, not one element/);
    expect(await cli('navigate', fixtures.url('frame-child.html'))).toContain('Frame Child');
    // A tab's title and URL are the page's words: fenced, its id before them.
    expect(await cli('close', targetId.slice(0, 8))).toMatch(new RegExp(`^closed ${targetId}\\n<page (\\d+)>\\n.*Frame Child.*\\n</page \\1>$`));

    const status = JSON.parse(await cli('--json', 'status'));
    expect(status).toMatchObject({ profile: 'clawd', running: true, connected: true });
    expect(await cli('profiles')).toMatch(/\* clawd {2}clawd {2}#FF4500/);
    expect(await cli('stop')).toBe('stopped');
    expect(JSON.parse(await cli('--json', 'status'))).toMatchObject({ running: false });
  });

  it('snapshots and acts by ref: snapshot, type, select, fill, click, evaluate, upload, dialog, wait, resize', async () => {
    await cli('open', fixtures.url('form.html'));
    const outline = await cli('snapshot');
    const ref = (pattern: RegExp) => refOf(outline, pattern);
    await cli('type', ref(/textbox "Name"/), 'from the cli');
    // Each act says what it did (api/act-answer.ts): the option chosen is the page's word, fenced; a box that turned is said.
    expect(await cli('select', ref(/combobox "Fruit"/), 'cherry')).toMatch(/^select: done\n<page (\d+)>\nchosen: "cherry"\n<\/page \1>$/);
    expect(await cli('fill', '--fields', JSON.stringify([{ ref: ref(/checkbox "Subscribe"/), value: true }]))).toBe('fill: done (checked: true)');
    await cli('click', ref(/button "Submit"/));
    const result = JSON.parse(await cli('--json', 'evaluate', '--fn', '() => document.querySelector("#result").textContent')).result;
    expect(result).toContain('from the cli');
    expect(result).toContain('cherry');
    expect(JSON.parse(await cli('--json', 'snapshot', '--limit', '3')).truncated).toBe(true);

    await cli('open', fixtures.url('upload.html'));
    const uploadOutline = await cli('snapshot');
    const input = refOf(uploadOutline, /file|[Uu]pload/);
    // $CLAWD_HOME/uploads is an upload folder; the rest of $CLAWD_HOME never is.
    mkdirSync(join(home, 'uploads'), { recursive: true });
    const file = join(home, 'uploads', 'cli-upload.txt');
    writeFileSync(file, 'sent by the cli');
    expect(await cli('upload', file, '--input', input)).toBe('uploaded cli-upload.txt');
    await cli('wait', '--text', 'sent by the cli');

    await cli('open', fixtures.url('dialogs.html'));
    const dialogOutline = await cli('snapshot');
    expect(await cli('dialog', '--accept', '--prompt', 'typed')).toMatch(/armed/);
    await cli('click', refOf(dialogOutline, /[Pp]rompt/));
    await cli('wait', '--text', 'typed', '--timeout', '10000');
    expect(await cli('resize', '800', '600')).toBe('viewport 800x600');
    expect(JSON.parse(await cli('--json', 'evaluate', '--fn', '() => innerWidth')).result).toBe(800);
  });

  it('find, and rows told apart, on an app nobody here wrote (TodoMVC react from npm): the row found by its words brings its checkbox, which ticks that todo', async () => {
    const todomvc = await startPackageSite('todomvc');
    try {
      await cli('open', todomvc.url('/examples/react/index.html'));
      await cli('wait', '--selector', '#new-todo');
      const box = refOf(await cli('find', 'what needs to be done'), 'textbox "What needs to be done?"');
      for (const title of ['Buy milk', 'Walk the dog', 'Read a book']) await cli('type', box, title, '--submit');

      const found = await cli('find', 'walk the dog');
      // The page's words inside the answer's fence; only the row that says it, with its own checkbox.
      const fence = /^<page (\d+)>$/m.exec(found)?.[1];
      expect(found).toContain(`</page ${fence}>`);
      const outline = found.split('\n').filter((line) => /^\s*- /.test(line));
      expect(outline).toHaveLength(3);
      expect(outline[0]).toMatch(/^- listitem( \[ref=e\d+\])?:$/);
      expect(outline[2]).toBe('  - text: "Walk the dog"');
      expect(found).not.toContain('Buy milk');
      await cli('click', refOf(found, /checkbox/));
      const completed = JSON.parse(
        await cli('--json', 'evaluate', '--fn', '() => [...document.querySelectorAll("#todo-list li.completed label")].map((label) => label.textContent)'),
      ).result;
      expect(completed).toEqual(['Walk the dog']);

      // Interactive: each unnamed checkbox says its row, and the filter links come without their URLs.
      const interactive = await cli('snapshot', '-i');
      expect(interactive).toMatch(/- checkbox \[checked\] (\[focused\] )?\[in="Walk the dog"\] \[ref=e\d+\]/);
      expect(interactive).toMatch(/- checkbox \[in="Read a book"\] \[ref=e\d+\]/);
      expect(interactive).toMatch(/- link "Active" \[ref=e\d+\]/);
      expect(interactive).not.toContain('[url=');

      // A pattern, and what a find says when nothing matches or the pattern is broken.
      expect((await cli('find', '/^\\s*- text: "(buy|read)/i')).split('\n').filter((line) => /- text:/.test(line))).toEqual([
        '  - text: "Buy milk"',
        '  - text: "Read a book"',
      ]);
      // The note ends what the page's outline said, so it is inside the page's fence: only the first notes are counted as clawd's.
      expect((await cli('find', 'no such todo')).split('\n').at(-2)).toBe('[find "no such todo": nothing on the page matches]');
      const broken = await fail('find', '/(/');
      expect(broken.stderr).toMatch(/Invalid find "\/\(\/": .*regular expression as \/pattern\/flags/);
    } finally {
      await todomvc.close();
    }
  });

  it('the toolbox: emulate, route, init-script, storage, cookies, storage-state', async () => {
    const [targetId] = (await cli('open', fixtures.url('index.html'))).split(/\s+/);
    const page = async (fn: string) => JSON.parse(await cli('--json', 'evaluate', '--target', targetId, '--fn', fn)).result;
    expect(await cli('emulate', '--target', targetId, '--timezone', 'Asia/Tokyo', '--locale', 'ja-JP', '--header', 'x-from: cli')).toBe(
      `${targetId}:\n  timezone: Asia/Tokyo\n  locale: ja-JP\n  headers: {"values":{"x-from":"cli"}}`,
    );
    expect(await page('() => [Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language]')).toEqual(['Asia/Tokyo', 'ja-JP']);
    expect(await page(`() => fetch('/headers').then((r) => r.json()).then((h) => h['x-from'])`)).toBe('cli');
    const refused = await fail('emulate', '--timezone', 'Nowhere/Land');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('clawd-browser: timezone: must be an IANA timezone like Europe/Paris');
    expect(await cli('emulate', '--target', targetId, '--reset')).toBe(`${targetId}: nothing emulated`);

    const added = await cli('route', 'fulfill', '**/from-route', '--body', 'routed by the cli', '--content-type', 'text/plain', '--target', targetId);
    expect(added).toMatch(/^r\d+: fulfil \*\*\/from-route$/);
    expect(await page(`() => fetch('/from-route').then((r) => r.text())`)).toBe('routed by the cli');
    expect(await cli('route', 'list')).toMatch(/^r\d+ {2}fulfill {2}\*\*\/from-route {2}tab {2}1 hits$/);
    expect(await cli('route', 'remove', added.split(':')[0])).toBe(`removed ${added.split(':')[0]}`);

    const script = join(home, 'early.js');
    writeFileSync(script, 'window.__cli = "early"');
    const scriptId = (await cli('init-script', 'add', script, '--target', targetId)).split(':')[0];
    await cli('navigate', '--target', targetId, fixtures.url(`echo?body=${encodeURIComponent('<script>document.title = window.__cli</script>')}`));
    expect(await page('() => document.title')).toBe('early');
    expect(await cli('init-script', 'remove', scriptId)).toBe(`removed ${scriptId}`);

    await cli('navigate', '--target', targetId, fixtures.url('index.html'));
    expect(await cli('storage', 'set', 'theme=dark', '--target', targetId)).toBe(`set 1 in ${new URL(fixtures.url('')).origin}`);
    expect(await cli('storage', '--target', targetId)).toBe('theme=dark');
    expect(await cli('cookies', 'set', 'flavour=oat', '--for', fixtures.url(''))).toBe('set 1');
    expect(await cli('cookies', '--name', 'flavour')).toMatch(/^flavour=oat {2}127\.0\.0\.1\//);
    const state = join(home, 'state.json');
    expect(await cli('storage-state', 'save', state)).toMatch(/^saved .*state\.json: \d+ cookies, \d+ origins$/);
    expect(JSON.parse(readFileSync(state, 'utf8')).cookies).toContainEqual(expect.objectContaining({ name: 'flavour', value: 'oat' }));
    await cli('storage', 'clear', '--target', targetId);
    expect(await cli('cookies', 'clear', '--name', 'flavour')).toBe('cleared 1');
    expect(await cli('storage-state', 'load', state)).toMatch(/^loaded \d+ cookies, \d+ origins$/);
    expect(await page('() => [localStorage.getItem("theme"), document.cookie]')).toEqual(['dark', 'flavour=oat']);
    await cli('close', targetId);
  });

  it('fails with one line and exit 1: unknown profile, bad name, bad URL; --help works per command', async () => {
    for (const [args, reason] of [
      [['--profile', 'nope', 'tabs'], /No profile named "nope"/],
      [['create-profile', '--name', 'Bad'], /lowercase letters, digits and hyphens/],
      [['open', 'not-a-url'], /url: "not-a-url" is not a web address/],
      [['focus', 'ZZZZ'], /No tab with targetId "ZZZZ" in profile clawd/],
    ] as Array<[string[], RegExp]>) {
      const failure = await fail(...args);
      expect(failure.code).toBe(1);
      expect(failure.stderr.trim().split('\n')).toHaveLength(1);
      expect(failure.stderr).toMatch(reason);
    }
    expect(await cli('screenshot', '--help')).toMatch(/--full-page/);
  });

  it('says how to fix it when no server is running', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'clawd-home-'));
    try {
      writeFileSync(join(elsewhere, 'config.json'), JSON.stringify({ controlUrl: 'http://127.0.0.1:9' }));
      const failure = await run(process.execPath, [CLI, 'tabs'], { env: { ...process.env, CLAWD_HOME: elsewhere } }).catch((e) => e);
      expect(failure.code).toBe(1);
      expect(failure.stderr).toMatch(/Cannot reach the control API at http:\/\/127\.0\.0\.1:9: is `clawd-browser serve` running\?/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});

describe('/json endpoints', () => {
  it('/json/version names a WebSocket endpoint that works, with the token when it came as a query', async () => {
    const version = await (await json('/json/version')).json();
    expect(version.webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${port}/cdp`);
    expect(version.Browser).toMatch(/^Chrome\/\d+/);
    expect(version['User-Agent']).not.toContain('Headless');
    const viaQuery = await (await fetch(`http://127.0.0.1:${port}/json/version?token=${token}`)).json();
    expect(viaQuery.webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${port}/cdp?token=${token}`);
    // Playwright's connectOverCDP over HTTP, with the token as a header.
    const client = await chromium.connectOverCDP(`http://127.0.0.1:${port}`, { headers: { authorization: `Bearer ${token}` } });
    expect(client.contexts()[0].pages().length).toBeGreaterThan(0);
    await client.close();
  });

  it('/json/new opens a shared tab; /json/activate and /json/close act on it; unknown ids are 404', async () => {
    const url = fixtures.url('index.html?json-new=1');
    const created = await (await json(`/json/new?${url}`, { method: 'PUT' })).json();
    expect(created).toMatchObject({ type: 'page', id: expect.any(String) });
    await waitFor(async () => ((await (await json('/json/list')).json()) as Array<{ url: string }>).some((t) => t.url === url), {
      message: 'new tab never reached its URL',
    });
    const activate = await json(`/json/activate/${created.id}`);
    expect(activate.status).toBe(200);
    expect(await activate.text()).toBe('Target activated');
    const close = await json(`/json/close/${created.id}`);
    expect(await close.text()).toBe('Target is closing');
    await waitFor(async () => !((await (await json('/json/list')).json()) as Array<{ id: string }>).some((t) => t.id === created.id), {
      message: 'closed tab still listed',
    });
    const stale = await json(`/json/close/${created.id}`);
    expect(stale.status).toBe(404);
    expect(await stale.text()).toMatch(/No such target id/);
    expect((await json('/json/nonsense')).status).toBe(404);
  });
});
