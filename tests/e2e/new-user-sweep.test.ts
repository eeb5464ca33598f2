import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { PACKAGE_VERSION } from '../../relay/src/config/package-root.js';
import { ConflictError, NotFoundError } from '../../relay/src/errors.js';
import { remedy } from '../../relay/src/mcp/mcp-server.js';
import { ensureRelay } from '../../relay/src/native-host/operations.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { refOf } from '../harness/refs.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * What a new user met trying every tool (issue: one request killed the
 * server; answers that were slow, late or wrong). `serve` runs in its own
 * process, as users run it, so a crash shows as a dead process; it is started
 * on a port config.json does not name, so every command must find it by the
 * address it wrote into $CLAWD_HOME.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);

const PAGE = `<!doctype html><title>Sweep</title>
<h1>Sweep</h1>
<label>Fruit <select id="fruit"><option>Apple</option><option value="b">Banana</option></select></label>
<button disabled>Disabled one</button>
<div style="position: relative; width: 200px; height: 40px">
  <button id="under" style="width: 200px; height: 40px" onclick="window.underClicks = (window.underClicks || 0) + 1">Under a banner</button>
  <div style="position: absolute; inset: 0; background: white">Cookie banner</div>
</div>
<button style="width: 0; height: 0; padding: 0; border: 0; overflow: hidden">Zero size</button>
<a href="/report">Get the report</a>
<a href="/other" target="_blank">Elsewhere</a>
<button id="plain" onclick="window.plainClicks = (window.plainClicks || 0) + 1">Opens no chooser</button>
<ul>${Array.from({ length: 12 }, (_, i) => `<li><button onclick="window.last = ${i}">Item ${i}</button></li>`).join('')}</ul>`;

let server: ChildProcess;
let serverLog = '';
let home: string;
let controlPort: number;
let client: BrowserClient;
let site: Awaited<ReturnType<typeof startTestSite>>;
let env: NodeJS.ProcessEnv;

const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env })).stdout.trim();
const cliFailure = (...args: string[]) =>
  run(process.execPath, [CLI, ...args], { env }).then(
    () => {
      throw new Error(`clawd-browser ${args.join(' ')} succeeded`);
    },
    (error: { code: number; stderr: string }) => error,
  );
const raw = async (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${controlPort}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${readFileSync(join(home, 'token'), 'utf8').trim()}`, 'content-type': 'application/json', ...init.headers },
  });
const serverAnswers = async () => (await raw('/').catch(() => undefined))?.status === 200;

beforeAll(async () => {
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/report') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' });
      return void response.end('the report');
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(url.pathname === '/other' ? '<title>Other</title><p>another page</p>' : PAGE);
  });
  const unused = (await freePortPair()).control;
  ({ control: controlPort } = await freePortPair());
  home = freshHome({
    controlUrl: `http://127.0.0.1:${unused}`,
    headless: true,
    noSandbox: true,
    profiles: { clawd: { cdpPort: (await freePortPair()).control } },
  });
  env = { ...process.env, CLAWD_HOME: home };
  delete env.CLAWD_URL;
  server = spawn(process.execPath, [CLI, 'serve', '--port', String(controlPort), '--log-level', 'warn'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (chunk) => (serverLog += chunk));
  server.stderr!.on('data', (chunk) => (serverLog += chunk));
  await waitFor(serverAnswers, { timeoutMs: 20_000, message: 'serve did not come up' });
  client = new BrowserClient({ baseUrl: `http://127.0.0.1:${controlPort}`, token: readFileSync(join(home, 'token'), 'utf8').trim() });
});

afterAll(async () => {
  // A server that died under a test is a failure of its own: its last words say why.
  if (server && (server.exitCode !== null || server.signalCode !== null))
    console.error(`serve exited (${server.exitCode ?? server.signalCode}) during the tests; its log:\n${serverLog}`);
  const exited = new Promise((resolve) => (server?.exitCode !== null ? resolve(undefined) : server.once('exit', resolve)));
  server?.kill('SIGTERM');
  await exited;
  await site?.close();
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

async function freshTab(): Promise<{ targetId: string; text: string }> {
  const { targetId } = await client.openTab(`${site.url}/`);
  const { text } = await client.snapshot({ targetId });
  return { targetId, text: String(text) };
}

describe('hooks and requests that outlive their request leave the server up', () => {
  it("a file-chooser hook with an unknown, a stale or a closed tab's ref is a 404, and nothing fires later", async () => {
    const { targetId, text } = await freshTab();
    const files = [{ name: 'a.txt', base64: 'aGk=' }];
    for (const ref of ['e99', 'e999']) {
      const answer = await raw('/hooks/file-chooser', { method: 'POST', body: JSON.stringify({ targetId, ref, timeoutMs: 1000, files }) });
      expect(answer.status).toBe(404);
      expect((await answer.json()).error.message).toMatch(new RegExp(`Unknown ref ${ref}`));
    }
    // Stale: a ref of the page before it reloaded.
    const plain = refOf(text, 'button "Opens no chooser"');
    await client.navigate(`${site.url}/?again`, targetId);
    const stale = await raw('/hooks/file-chooser', { method: 'POST', body: JSON.stringify({ targetId, ref: plain, timeoutMs: 1000, files }) });
    expect(stale.status).toBe(404);
    expect((await stale.json()).error.message).toMatch(/stale/);
    // A closed tab.
    await client.closeTab(targetId);
    const closed = await raw('/hooks/file-chooser', { method: 'POST', body: JSON.stringify({ targetId, ref: 'e1', timeoutMs: 1000, files }) });
    expect(closed.status).toBe(404);
    expect((await raw('/hooks/dialog', { method: 'POST', body: JSON.stringify({ targetId, accept: true, timeoutMs: 1000 }) })).status).toBe(404);
    // Past every hook's timeout, the server is still there.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.exitCode).toBeNull();
    expect(await serverAnswers()).toBe(true);
  });

  it('a click that opens no chooser times out as a 504 of its own; an aborted one disarms; the server stays', async () => {
    const { targetId, text } = await freshTab();
    const plain = refOf(text, 'button "Opens no chooser"');
    const files = [{ name: 'a.txt', base64: 'aGk=' }];
    const timedOut = await raw('/hooks/file-chooser', { method: 'POST', body: JSON.stringify({ targetId, ref: plain, timeoutMs: 500, files }) });
    expect(timedOut.status).toBe(504);
    expect((await timedOut.json()).error.message).toMatch(/No file chooser opened within 500 ms after clicking/);
    // Aborted: the caller goes while the hook waits; a wait and a live view go the same way.
    for (const [path, init] of [
      ['/hooks/file-chooser', { method: 'POST', body: JSON.stringify({ targetId, ref: plain, timeoutMs: 1000, files }) }],
      ['/act', { method: 'POST', body: JSON.stringify({ targetId, kind: 'wait', text: 'never there', timeoutMs: 1000 }) }],
      [`/screencast?targetId=${targetId}`, {}],
    ] as const) {
      const controller = new AbortController();
      const answer = raw(path, { ...init, signal: controller.signal });
      setTimeout(() => controller.abort(), 150);
      await answer.then((response) => response.body?.cancel()).catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await client.evaluate('() => window.plainClicks', { targetId })).toMatchObject({ result: 2 });
    expect(server.exitCode).toBeNull();
    expect(await serverAnswers()).toBe(true);
    await client.closeTab(targetId);
  });

  it('the server logged no internal error through all of it', () => {
    expect(serverLog).not.toMatch(/internal error|Unhandled|TimeoutError: No file chooser/);
  });
});

describe('answers that say why at once', () => {
  it('select with an option that is not there names the options, in well under the 30 s Playwright would wait', async () => {
    const { targetId, text } = await freshTab();
    const fruit = refOf(text, 'combobox "Fruit"');
    const started = performance.now();
    const error = await rejection(client.act({ kind: 'select', targetId, ref: fruit, values: ['Cherry'] }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(`${fruit} has no option "Cherry". Its options (by label; values work too): "Apple", "Banana".`);
    const fill = await rejection(client.act({ kind: 'fill', targetId, fields: [{ ref: fruit, value: 'Cherry' }] }));
    expect(fill.message).toMatch(/has no option "Cherry"/);
    expect(performance.now() - started).toBeLessThan(5_000);
    // By label and by value, it still chooses.
    await client.act({ kind: 'select', targetId, ref: fruit, values: ['Banana'] });
    expect((await client.evaluate('() => document.querySelector("#fruit").value', { targetId })).result).toBe('b');
    await client.closeTab(targetId);
  });

  it('a disabled, a covered and a zero-size button are each a 409 that says which, and nothing is clicked', async () => {
    const { targetId, text } = await freshTab();
    const started = performance.now();
    const disabled = await rejection(client.click(refOf(text, 'button "Disabled one"'), { targetId }));
    expect(disabled).toBeInstanceOf(ConflictError);
    expect(disabled.message).toMatch(/is disabled, so it cannot be clicked now/);
    const covered = await rejection(client.click(refOf(text, 'button "Under a banner"'), { targetId }));
    expect(covered.message).toMatch(/is covered by <div[^>]*>Cookie banner<\/div>, which would get the click/);
    const hover = await rejection(client.act({ kind: 'hover', targetId, ref: refOf(text, 'button "Under a banner"') }));
    expect(hover.message).toMatch(/is covered by/);
    const zero = await rejection(client.click(refOf(text, 'button "Zero size"'), { targetId }));
    expect(zero.message).toMatch(/is not visible/);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await client.evaluate('() => window.underClicks ?? 0', { targetId })).result).toBe(0);
    await client.closeTab(targetId);
  });

  it("wait's default timeout is one number: the API's 30 s, in the CLI's help and the docs", async () => {
    const help = await cli('wait', '--help');
    expect(help).toMatch(/default 30000, at most 120000/);
    const readme = readFileSync(fileURLToPath(new URL('../../docs/managed-profiles.md', import.meta.url)), 'utf8');
    expect(readme).toMatch(/\| `wait` \| .*`timeoutMs\?` \(default 30 s\)/);
  });
});

describe('an action reports what it set off in its own answer', () => {
  it('a click on a download link says "download started" in its answer, and the next action does not', async () => {
    const { targetId, text } = await freshTab();
    const answer = await client.click(refOf(text, 'link "Get the report"'), { targetId });
    expect(answer.events).toEqual([expect.stringMatching(/^download started: report\.txt/)]);
    const next = await client.act({ kind: 'press', targetId, key: 'Tab' });
    expect(next.events ?? []).toEqual([]);
    await client.closeTab(targetId);
  });

  it('a click that opens a tab names it in its answer', async () => {
    const { targetId, text } = await freshTab();
    const answer = await client.click(refOf(text, 'link "Elsewhere"'), { targetId });
    const opened = answer.events?.find((event) => event.startsWith('opened a new tab'));
    expect(opened).toMatch(new RegExp(`^opened a new tab: [0-9A-F]{32} ${site.url}/other$`));
    const newTab = /([0-9A-F]{32})/.exec(opened!)![1];
    expect((await client.tabs()).map((tab) => tab.targetId)).toContain(newTab);
    await client.closeTab(newTab);
    await client.closeTab(targetId);
  });
});

describe('errors that say the right thing', () => {
  it('a ref never handed out is unknown, not stale, when scoping a snapshot', async () => {
    const { targetId } = await freshTab();
    const answer = await raw(`/snapshot?targetId=${targetId}&ref=e999`);
    expect(answer.status).toBe(404);
    expect((await answer.json()).error).toMatchObject({ details: { ref: 'e999', problem: 'unknown' } });
    await client.closeTab(targetId);
  });

  it('refs past a limit cut stay usable, as past a maxChars cut', async () => {
    const { targetId } = await client.openTab(`${site.url}/`);
    const full = String((await client.snapshot({ targetId })).text);
    const last = refOf(full, 'button "Item 11"');
    await client.navigate(`${site.url}/?fresh`, targetId);
    const cut = await client.snapshot({ targetId, limit: 3 });
    expect(cut.truncated).toBe(true);
    expect(String(cut.text)).not.toContain('Item 11');
    // The fresh document hands out the same refs in the same order: the one past the cut works.
    await client.click(last, { targetId });
    expect((await client.evaluate('() => window.last', { targetId })).result).toBe(11);
    await client.closeTab(targetId);
  });

  it('MCP names its own tool as the next step, once, with no stray period', async () => {
    await client.openTab('about:blank').then((tab) => client.closeTab(tab.targetId));
    for (const tab of await client.tabs()) await client.closeTab(tab.targetId);
    const noTab = await rejection(client.snapshot({}));
    expect(noTab).toBeInstanceOf(NotFoundError);
    expect(remedy(noTab)).toBe('Profile clawd has no open tab: open one first (browser_tabs with action "open").');
    const { targetId } = await freshTab();
    const unknownRef = await rejection(client.click('e999', { targetId }));
    expect(remedy(unknownRef)).toMatch(
      /^Unknown ref e999: no snapshot of this tab handed it out\. Take a new snapshot and use a ref from it \(browser_snapshot\)\.$/,
    );
    expect(remedy(unknownRef)).not.toMatch(/\.\.|browser_tabs|POST \//);
    const noSuchTab = await rejection(client.snapshot({ targetId: 'FFFF0000' }));
    expect(remedy(noSuchTab)).toBe('No tab with targetId "FFFF0000" in profile clawd (browser_tabs).');
    // The CLI names its own command.
    const failure = await cliFailure('snapshot', '--target', 'FFFF0000');
    expect(failure.stderr.trim()).toBe('clawd-browser: No tab with targetId "FFFF0000" in profile clawd (clawd-browser tabs)');
    await client.closeTab(targetId);
  });
});

describe('two servers, one home', () => {
  it('every command finds the server where it listens (server.json), CLAWD_URL and --url override, and a second serve is refused', async () => {
    // config.json names another port: the CLI, cdp-url and the native host's ensure_relay follow server.json.
    const record = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8'));
    expect(record).toMatchObject({ pid: server.pid, controlUrl: `http://127.0.0.1:${controlPort}`, relayPort: controlPort + 1, version: PACKAGE_VERSION });
    expect(JSON.parse(await cli('--json', 'status'))).toMatchObject({ profile: 'clawd' });
    expect(await cli('cdp-url')).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${controlPort + 1}/cdp\\?token=`));
    expect(await ensureRelay({ home, version: PACKAGE_VERSION, cliPath: CLI })).toMatchObject({ state: 'running' });
    // An address given wins over the record.
    const wrong = `http://127.0.0.1:${(await freePortPair()).control}`;
    const viaFlag = await cliFailure('--url', wrong, 'status');
    expect(viaFlag.stderr).toContain(`Cannot reach the control API at ${wrong}`);
    const viaEnv = await run(process.execPath, [CLI, 'status'], { env: { ...env, CLAWD_URL: wrong } }).catch((error) => error);
    expect(viaEnv.stderr).toContain(`Cannot reach the control API at ${wrong}`);
    // A second server on the same home is refused, and the first one's record stays.
    const second = await run(process.execPath, [CLI, 'serve', '--port', String((await freePortPair()).control)], { env }).catch((error) => error);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(
      `clawd-browser: A clawd-browser server already runs for ${home} (pid ${server.pid}, http://127.0.0.1:${controlPort}). Use it (every command and \`mcp\` find it), stop it first, or set CLAWD_HOME to another folder for a second one.`,
    );
    expect(JSON.parse(readFileSync(join(home, 'server.json'), 'utf8')).pid).toBe(server.pid);
  });
});

describe('small ones', () => {
  it("profile names starting session- are the sessions', and are refused", async () => {
    const failure = await cliFailure('create-profile', '--name', 'session-abc123');
    expect(failure.stderr.trim()).toBe(
      'clawd-browser: Invalid profile name "session-abc123": names starting "session-" belong to task sessions; choose another',
    );
  });

  it('--json tabs is wrapped as the API answers', async () => {
    const { targetId } = await client.openTab('about:blank');
    expect(JSON.parse(await cli('--json', 'tabs'))).toEqual({ tabs: expect.arrayContaining([expect.objectContaining({ targetId })]) });
    await client.closeTab(targetId);
  });

  it('usage errors are a line and a pointer, not the whole help; numbers and wait say it in CLI words', async () => {
    const grant = await cliFailure('grant', '--tenant', 'acme');
    expect(grant.stderr.trim().split('\n')).toEqual([expect.stringMatching(/required option '--domain/), '(run with --help for usage)']);
    const resize = await cliFailure('resize', 'abc', '600');
    expect(resize.stderr).toMatch(/value 'abc' is invalid for argument 'width'\. must be a whole number/);
    expect(resize.stderr).not.toMatch(/null/);
    const wait = await cliFailure('wait');
    expect(wait.stderr.trim()).toBe('clawd-browser: wait needs --text, --text-gone, --selector or --time');
  });
});

describe('a task session that ended', () => {
  it('says it ended, and when, instead of "no profile named"', async () => {
    const session = await client.openSession({ credential_mode: 'clean' });
    await client.closeSession(session.id);
    const error = await rejection(client.withProfile(session.profile).tabs());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toMatch(new RegExp(`^Task session ${session.id} ended at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(closed\\)$`));
    expect(remedy(error)).toMatch(/\(a new task session \(POST \/sessions on the control API\)\)\.$/);
  });
});
