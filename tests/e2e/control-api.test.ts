import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../relay/src/cli/serve.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { DisabledError, NotFoundError, UnavailableError } from '../../relay/src/errors.js';
import { createLogger } from '../../relay/src/log.js';
import { readProfilePreferences } from '../../relay/src/profiles/preferences.js';
import { chromiumPath, HEADLESS_TEST_FLAGS, launchChromium, waitFor } from '../harness/chromium.js';
import type { FixtureServer } from '../harness/fixture-server.js';
import type WebSocket from 'ws';
import { connectFakeExtension } from '../harness/fake-extension.js';
import { type ControlEnv, freshHome, startControlEnv } from '../harness/control-env.js';

/**
 * The control API (spec §6) end to end: `startServer` is what `serve` runs,
 * with real Chromium behind both the managed `clawd` profile and the
 * `extension` profile (a tab shared through the real extension). The route
 * assertions are the same for both: routes do not care what a profile is.
 */

let env: ControlEnv;
let home: string;
let fixtures: FixtureServer;

beforeAll(async () => {
  env = await startControlEnv();
  ({ home, fixtures } = env);
});

afterAll(async () => {
  await env?.close();
});

const client = (profile: string) => env.client(profile);
const raw = (path: string, init: RequestInit = {}) => env.raw(path, init);
const magic = (base64: string) => Buffer.from(base64, 'base64');

describe.each(['clawd', 'extension'])('the %s profile through the control API', (profile) => {
  const api = () => client(profile);

  it('starts, and reports its status', async () => {
    const started = await api().start();
    expect(started).toMatchObject({ profile, connected: true, running: true });
    const status = await api().status();
    expect(status).toMatchObject({ profile, driver: profile, enabled: true, running: true });
    if (profile === 'clawd') expect(status).toMatchObject({ cdpUrl: `ws://127.0.0.1:${env.server.relay.port}/cdp?profile=clawd`, pid: expect.any(Number) });
    else expect(status).toMatchObject({ attachedTabs: 1, extension: 'connected' });
  });

  it('opens, lists, navigates, focuses by prefix and closes tabs', async () => {
    const opened = await api().openTab(fixtures.url('index.html?opened=1'));
    expect(opened).toMatchObject({ url: fixtures.url('index.html?opened=1'), title: 'Fixture Home', type: 'page' });
    expect((await api().tabs()).map((t) => t.targetId)).toContain(opened.targetId);

    // No targetId: the last used tab, which is the one just opened.
    const moved = await api().navigate(fixtures.url('frame-child.html'));
    expect(moved).toMatchObject({ targetId: opened.targetId, title: 'Frame Child' });

    const focused = await api().focusTab(opened.targetId.slice(0, 8).toLowerCase());
    expect(focused.targetId).toBe(opened.targetId);
    await expect(api().focusTab('ZZZZ')).rejects.toThrow(NotFoundError);

    const closed = await api().closeTab(opened.targetId);
    expect(closed.targetId).toBe(opened.targetId);
    expect((await api().tabs()).map((t) => t.targetId)).not.toContain(opened.targetId);
    // A stale id is a 404 with a message, not a hang.
    const stale = await raw(`/tabs/${opened.targetId}?profile=${profile}`, { method: 'DELETE' });
    expect(stale.status).toBe(404);
    expect((await stale.json()).error).toMatchObject({ code: 'not_found', message: expect.stringContaining(opened.targetId) });
  });

  it('takes screenshots (viewport, full page, element; png and jpeg) and PDFs', async () => {
    const tab = await api().openTab(fixtures.url('big.html'));
    await waitFor(async () => (await api().console({ targetId: tab.targetId })).targetId === tab.targetId);
    const png = await api().screenshot({ targetId: tab.targetId });
    expect(magic(png.data).subarray(1, 4).toString()).toBe('PNG');
    const full = await api().screenshot({ targetId: tab.targetId, fullPage: true, type: 'jpeg', quality: 50 });
    expect(full.mimeType).toBe('image/jpeg');
    expect(magic(full.data).subarray(0, 2).toString('hex')).toBe('ffd8');
    await api().navigate(fixtures.url('index.html?shots=1'), tab.targetId);
    const element = await api().screenshot({ element: '#btn' });
    const viewport = await api().screenshot();
    expect(magic(element.data).length).toBeLessThan(magic(viewport.data).length);
    await expect(api().screenshot({ element: '#does-not-exist' })).rejects.toThrow(/No element matches/);
    const pdf = await api().pdf();
    expect(magic(pdf.data).subarray(0, 5).toString()).toBe('%PDF-');
    await api().closeTab(tab.targetId);
  });

  it('buffers console messages per tab, filtered by level', async () => {
    const tab = await api().openTab(fixtures.url('console.html'));
    await waitFor(async () => (await api().console({ targetId: tab.targetId })).messages.length >= 4, { message: 'console messages not buffered' });
    const all = await api().console({ targetId: tab.targetId });
    expect(all.messages.map((m) => `${m.level}:${m.text}`)).toEqual(['debug:quiet detail', 'log:hello log', 'warning:careful now', 'error:something broke']);
    const errors = await api().console({ targetId: tab.targetId, level: 'warning' });
    expect(errors.messages.map((m) => m.text)).toEqual(['careful now', 'something broke']);
    const bad = await raw(`/console?profile=${profile}&level=loud`);
    expect(bad.status).toBe(400);
    await api().closeTab(tab.targetId);
  });

  it('answers bad input with 400s that say what is wrong', async () => {
    const noUrl = await raw(`/navigate?profile=${profile}`, { method: 'POST', body: '{}' });
    expect(noUrl.status).toBe(400);
    expect((await noUrl.json()).error.message).toMatch(/url/);
    const malformed = await raw(`/tabs/open?profile=${profile}`, { method: 'POST', body: '{"url": ' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toMatch(/Malformed JSON/);
    const relative = await raw(`/tabs/open?profile=${profile}`, { method: 'POST', body: JSON.stringify({ url: 'not a url' }) });
    expect((await relative.json()).error.message).toMatch(/^url: "not a url" is not a web address/);
    const extra = await raw(`/screenshot?profile=${profile}`, { method: 'POST', body: JSON.stringify({ fullpage: true }) });
    expect((await extra.json()).error.message).toMatch(/fullpage/);
  });
});

describe('the extension profile', () => {
  it('shares tabs it opens and stops by disconnecting, leaving the user browser alone', async () => {
    const before = env.server.relay.bridge.sharedTabs().length;
    const tab = await client('extension').openTab(fixtures.url('index.html?agent=1'));
    expect(env.server.relay.bridge.sharedTabs().map((t) => t.targetId)).toContain(tab.targetId);
    await client('extension').closeTab(tab.targetId);
    await waitFor(() => env.server.relay.bridge.sharedTabs().length === before, { message: 'closed tab still shared' });
    await client('extension').stop();
    expect(await client('extension').status()).toMatchObject({ connected: false, extension: 'connected' });
    expect(env.server.relay.bridge.sharedTabs()).toHaveLength(before);
  });

  it('clawd-browser doctor sees the extension paired and connected', async () => {
    const cli = new URL('../../bin/clawd-browser.js', import.meta.url).pathname;
    const report = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [cli, '--json', '--url', `http://127.0.0.1:${env.server.control.port}`, 'doctor'],
        { env: { ...process.env, CLAWD_HOME: home } },
        (error, stdout) => (error && !stdout ? reject(error) : resolve(stdout)),
      ),
    );
    const checks = (JSON.parse(report) as { checks: Array<{ name: string; verdict: string; detail: string }> }).checks;
    expect(checks.find((check) => check.name === 'extension')).toMatchObject({ verdict: 'ok', detail: 'paired and connected' });
    expect(checks.find((check) => check.name === 'server')).toMatchObject({ verdict: 'ok' });
  });
});

describe('managed profiles', () => {
  it('run side by side, isolated (cookies) and in their own colours', async () => {
    const work = await client('clawd').createProfile({ name: 'work', color: '#1E88E5' });
    expect(work).toMatchObject({ name: 'work', driver: 'clawd', color: '#1E88E5', cdpPort: expect.any(Number) });
    const cookiePage = fixtures.url(`echo?body=${encodeURIComponent('<script>document.cookie = "who=clawd; path=/"</script>')}`);
    await client('clawd').openTab(cookiePage);
    const workTab = await client('work').openTab(fixtures.url('index.html'));
    const cookieOf = async (profile: string) => {
      const page = await env.server.manager.driver(profile).page();
      return page.evaluate(() => document.cookie);
    };
    expect(await cookieOf('clawd')).toContain('who=clawd');
    expect(await cookieOf('work')).toBe('');
    expect(workTab.url).toBe(fixtures.url('index.html'));

    const profiles = (await client('clawd').profiles()).profiles;
    const clawd = profiles.find((p) => p.name === 'clawd')!;
    expect(readProfilePreferences(clawd.userDataDir!)).toEqual({ name: 'clawd', color: '#FF4500' });
    expect(readProfilePreferences(work.userDataDir!)).toEqual({ name: 'work', color: '#1E88E5' });
    expect(profiles.find((p) => p.name === 'work')).toMatchObject({ running: true });

    // Delete stops its browser and removes its data.
    expect(existsSync(work.userDataDir!)).toBe(true);
    await client('clawd').deleteProfile('work');
    expect(existsSync(work.userDataDir!)).toBe(false);
    await expect(client('work').status()).rejects.toThrow(NotFoundError);
  });

  it('keeps its cookies and local storage across a stop, as a closed window does', async () => {
    const api = client('clawd');
    const tab = await api.openTab(fixtures.url('index.html?kept=1'));
    await api.evaluate("() => { document.cookie = 'kept=yes; max-age=3600; path=/'; localStorage.setItem('kept', 'yes'); }", { targetId: tab.targetId });
    await api.stop();
    const again = await api.openTab(fixtures.url('index.html?kept=2'));
    const { result } = await api.evaluate("() => [document.cookie, localStorage.getItem('kept')]", { targetId: again.targetId });
    expect(result).toEqual([expect.stringContaining('kept=yes'), 'yes']);
    await api.closeTab(again.targetId);
  });

  it('start with no tab (agents open what they need); navigate on an empty browser opens one', async () => {
    const fresh = client('clawd').withProfile('fresh');
    await client('clawd').createProfile({ name: 'fresh' });
    await fresh.start();
    expect(await fresh.tabs()).toEqual([]);
    await expect(fresh.screenshot()).rejects.toThrow(/has no open tab/);
    const tab = await fresh.navigate(fixtures.url('index.html?fresh=1'));
    expect(tab).toMatchObject({ title: 'Fixture Home', url: fixtures.url('index.html?fresh=1') });
    expect((await fresh.tabs()).map((t) => t.targetId)).toEqual([tab.targetId]);
    await client('clawd').deleteProfile('fresh');
  });

  it('enforces name rules, refuses duplicates and built-in deletion', async () => {
    for (const name of ['Work', '-lead', 'a'.repeat(65), 'has space', 'ünï']) {
      const response = await raw('/profiles/create', { method: 'POST', body: JSON.stringify({ name }) });
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toMatch(/lowercase letters, digits and hyphens/);
    }
    expect((await raw('/profiles/create', { method: 'POST', body: JSON.stringify({ name: 'clawd' }) })).status).toBe(409);
    expect((await raw('/profiles/extension', { method: 'DELETE' })).status).toBe(400);
    expect((await raw('/tabs?profile=nope')).status).toBe(404);
    const remote = await client('clawd').createProfile({ name: 'farm', cdpUrl: 'http://10.9.8.7:9222' });
    expect(remote).toMatchObject({ driver: 'remote', cdpUrl: 'http://10.9.8.7:9222' });
    expect(remote.cdpPort).toBeUndefined();
    await client('clawd').deleteProfile('farm');
  });

  it('allocates CDP ports once and keeps them across a server restart', async () => {
    const a = await client('clawd').createProfile({ name: 'keep-a' });
    const b = await client('clawd').createProfile({ name: 'keep-b' });
    expect(a.cdpPort).toBeGreaterThanOrEqual(18800);
    expect(b.cdpPort).toBeLessThanOrEqual(18899);
    expect(b.cdpPort).not.toBe(a.cdpPort);
    await env.restart();
    const after = (await client('clawd').profiles()).profiles;
    expect(after.find((p) => p.name === 'keep-a')?.cdpPort).toBe(a.cdpPort);
    expect(after.find((p) => p.name === 'keep-b')?.cdpPort).toBe(b.cdpPort);
    await client('clawd').deleteProfile('keep-a');
    await client('clawd').deleteProfile('keep-b');
    // The extension reconnects to the restarted relay by itself.
    await waitFor(() => env.server.relay.bridge.sharedTabs().length >= 1, { timeoutMs: 20_000, message: 'extension did not come back' });
  });

  it('a remote profile attaches to a browser elsewhere and never launches or stops it', async () => {
    const elsewhere = await launchChromium({ remoteDebuggingPort: 0 });
    try {
      await client('clawd').createProfile({ name: 'farm', cdpUrl: elsewhere.httpEndpoint! });
      const farm = client('farm');
      const tab = await farm.openTab(fixtures.url('index.html?remote=1'));
      expect((await farm.tabs()).map((t) => t.targetId)).toContain(tab.targetId);
      expect(await farm.status()).toMatchObject({ driver: 'remote', connected: true, cdpUrl: elsewhere.httpEndpoint });
      await farm.stop();
      expect(elsewhere.process.exitCode).toBeNull();
      const stillThere = (await elsewhere.cdp.send('Target.getTargets')).targetInfos as Array<{ targetId: string }>;
      expect(stillThere.map((t) => t.targetId)).toContain(tab.targetId);
      await expect(farm.resetProfile()).rejects.toThrow(/local \(managed\) profiles/);
      await client('clawd').deleteProfile('farm');
    } finally {
      await elsewhere.close();
    }
  });

  it('attachOnly never launches: a managed profile with nothing on its port is a 503', async () => {
    const configPath = join(home, 'config.json');
    const original = readFileSync(configPath, 'utf8');
    await client('clawd').createProfile({ name: 'attach' });
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(readFileSync(configPath, 'utf8')), attachOnly: true }));
    try {
      await expect(client('attach').start()).rejects.toThrow(/attachOnly is set for profile attach and no browser answers on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      writeFileSync(configPath, original);
    }
  });

  it("a browser on a profile's data dir that this server did not start is named, never adopted; reset-profile kills it", async () => {
    const orphanProfile = await client('clawd').createProfile({ name: 'orphaned' });
    // A Chromium someone started by hand on the profile's data dir (with a port anyone could use): not ours.
    const orphan = spawn(
      chromiumPath(),
      [...HEADLESS_TEST_FLAGS, `--remote-debugging-port=${orphanProfile.cdpPort}`, `--user-data-dir=${orphanProfile.userDataDir}`, 'about:blank'],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => orphan.once('exit', resolve));
    await waitFor(async () => (await fetch(`http://127.0.0.1:${orphanProfile.cdpPort}/json/version`).catch(() => undefined))?.ok === true, {
      message: 'orphan never listened',
    });
    await expect(client('orphaned').start()).rejects.toThrow(
      new RegExp(`data dir is in use by pid [\\d, ]*\\b${orphan.pid}\\b[\\d, ]*, which this server did not start.*reset-profile`),
    );
    const reset = await client('orphaned').resetProfile();
    expect(reset.killed).toContain(orphan.pid);
    await exited;
    expect((await fetch(`http://127.0.0.1:${orphanProfile.cdpPort}/json/version`).catch(() => undefined))?.ok).not.toBe(true);
    // Started now on its pipe: the port the orphan had stays closed.
    await client('orphaned').start();
    expect((await fetch(`http://127.0.0.1:${orphanProfile.cdpPort}/json/version`).catch(() => undefined))?.ok).not.toBe(true);
    await client('clawd').deleteProfile('orphaned');
    await expect(client('extension').resetProfile()).rejects.toThrow(/local \(managed\) profiles/);
  });
});

describe('settings and the door', () => {
  it('answers 503 "Browser disabled in settings" on browser routes when disabled', async () => {
    const configPath = join(home, 'config.json');
    const original = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(original), enabled: false }));
    try {
      const tabs = await raw('/tabs');
      expect(tabs.status).toBe(503);
      expect(await tabs.json()).toEqual({ error: { code: 'disabled', message: 'Browser disabled in settings' } });
      await expect(client('clawd').start()).rejects.toThrow(DisabledError);
      expect(await client('clawd').status()).toMatchObject({ enabled: false, running: false });
    } finally {
      writeFileSync(configPath, original);
    }
  });

  it('needs the token, a loopback Host and no web Origin', async () => {
    const url = `http://127.0.0.1:${env.server.control.port}/tabs`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    const foreignOrigin = await fetch(url, { headers: { authorization: `Bearer ${env.server.token}`, origin: 'https://evil.example' } });
    expect(foreignOrigin.status).toBe(403);
    expect((await foreignOrigin.json()).error.code).toBe('forbidden');
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      request(url, { headers: { host: 'rebound.example', authorization: `Bearer ${env.server.token}` } }, (response) =>
        resolve(response.statusCode ?? 0),
      ).end();
    });
    expect(status).toBe(403);
  });

  it('the extension profile answers 503 when the extension is away, and an empty list when it shares nothing yet', async () => {
    const fresh = freshHome({ controlUrl: 'http://127.0.0.1:1' });
    const lonely = await startServer({ home: fresh, port: 0, logger: createLogger('silent') });
    let extension: WebSocket | undefined;
    try {
      const api = new BrowserClient({ baseUrl: `http://127.0.0.1:${lonely.control.port}`, token: lonely.token, profile: 'extension' });
      await expect(api.tabs()).rejects.toThrow(UnavailableError);
      await expect(api.tabs()).rejects.toThrow(/extension is not connected/);
      // Connected and sharing nothing is a normal state: the list is empty, and says how to share a tab.
      extension = await connectFakeExtension({ port: lonely.relay.port, key: lonely.extensionKey, tabs: [] });
      await waitFor(() => lonely.relay.bridge.extensionState === 'connected', { message: 'the extension never connected' });
      expect(await api.tabList()).toEqual({ tabs: [], hint: expect.stringMatching(/^No tab attached: click the clawd-browser toolbar button/) });
      expect(await api.tabs()).toEqual([]);
      // What needs a tab still says there is none.
      await expect(api.snapshot()).rejects.toThrow(/No tab attached/);
    } finally {
      extension?.close();
      await lonely.close();
      rmSync(fresh, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});
