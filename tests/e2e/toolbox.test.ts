import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';
import { recordCall } from '../../relay/src/mcp/record-call.js';

/**
 * The toolbox on real Chromium, checked in the page's own state: emulation
 * (Intl, navigator, matchMedia, the headers a page's fetch carries), network
 * routes (what the page's fetch received, the network log), init scripts
 * (before the page's own), storage (cookies, localStorage, sessionStorage,
 * a storage state carried with its IndexedDB into a fresh task session).
 * On the managed profile and on shared tabs, where chrome.debugger allows.
 */

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

async function evaluate<T>(client: BrowserClient, targetId: string, fn: string): Promise<T> {
  const answer = await client.act({ kind: 'evaluate', targetId, fn });
  return answer.result as T;
}
const echo = (html: string) => env.fixtures.url(`echo?body=${encodeURIComponent(html)}`);
/** A page whose title is what its own first script saw. */
const firstScriptSees = (expression: string) => echo(`<title>x</title><script>document.title = String(${expression})</script>`);

describe.each(['clawd', 'extension'])('emulation on the %s profile', (profile) => {
  it('a device, a place, a time, a language, a scheme: the page sees them, reads them back, and loses them on reset', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const ownAgent = await evaluate<string>(client, targetId, '() => navigator.userAgent');
    const state = await client.toolbox.emulate({
      targetId,
      device: 'iPhone 13',
      timezone: 'Asia/Tokyo',
      locale: 'fr-FR',
      colorScheme: 'dark',
      reducedMotion: 'reduce',
      geolocation: { latitude: 48.8584, longitude: 2.2945 },
    });
    expect(state).toMatchObject({
      targetId,
      tab: { device: 'iPhone 13', timezone: 'Asia/Tokyo', locale: 'fr-FR' },
      effective: { colorScheme: 'dark' },
      profile: {},
    });
    if (profile === 'extension') expect(state.notes?.[0]).toMatch(/geolocation: .*Chrome still asks you/);
    await client.navigate(env.fixtures.url('index.html?emulated'), targetId);
    const seen = await evaluate<Record<string, unknown>>(
      client,
      targetId,
      `() => ({
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      language: navigator.language,
      dark: matchMedia('(prefers-color-scheme: dark)').matches,
      reduce: matchMedia('(prefers-reduced-motion: reduce)').matches,
      width: screen.width,
      ratio: devicePixelRatio,
      touch: navigator.maxTouchPoints,
      mobile: /iPhone/.test(navigator.userAgent),
      date: new Date(Date.UTC(2026, 0, 1, 12)).toLocaleString(),
    })`,
    );
    expect(seen).toEqual({
      timezone: 'Asia/Tokyo',
      language: 'fr-FR',
      dark: true,
      reduce: true,
      width: 390,
      ratio: 3,
      touch: 5,
      mobile: true,
      date: '01/01/2026 21:00:00',
    });
    if (profile === 'clawd') {
      const position = await evaluate<number[]>(
        client,
        targetId,
        '() => new Promise((resolve, reject) => navigator.geolocation.getCurrentPosition((p) => resolve([p.coords.latitude, p.coords.longitude]), reject))',
      );
      expect(position).toEqual([48.8584, 2.2945]);
    }
    // One field cleared with null, the rest kept.
    expect((await client.toolbox.emulate({ targetId, colorScheme: null })).tab).not.toHaveProperty('colorScheme');
    expect(await evaluate(client, targetId, "() => matchMedia('(prefers-color-scheme: dark)').matches")).toBe(false);
    expect(await evaluate(client, targetId, '() => Intl.DateTimeFormat().resolvedOptions().timeZone')).toBe('Asia/Tokyo');

    const reset = await client.toolbox.resetEmulation({ targetId });
    expect(reset.effective).toEqual({});
    expect(
      await evaluate(client, targetId, '() => [navigator.userAgent, screen.width !== 390, Intl.DateTimeFormat().resolvedOptions().timeZone !== "Asia/Tokyo"]'),
    ).toEqual([ownAgent, true, true]);
    await client.closeTab(targetId);
  });

  it('offline, throttling, extra headers (for every origin or one), HTTP credentials for one origin', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const fetchJson = (url: string) =>
      evaluate<Record<string, string> | string>(
        client,
        targetId,
        `() => fetch(${JSON.stringify(url)}).then((r) => r.ok ? r.json() : 'HTTP ' + r.status, (e) => 'failed: ' + e.message)`,
      );
    const own = env.fixtures.url('headers');
    const other = env.fixtures.crossOriginUrl('headers');
    const origin = new URL(own).origin;

    await client.toolbox.emulate({ targetId, offline: true });
    expect(await evaluate(client, targetId, '() => navigator.onLine')).toBe(false);
    expect(await fetchJson(own)).toMatch(/^failed/);
    await client.toolbox.emulate({ targetId, offline: null, network: 'slow-3g', cpuThrottling: 4 });
    expect(await evaluate(client, targetId, '() => navigator.onLine')).toBe(true);
    expect((await client.toolbox.emulation({ targetId })).effective).toEqual({ network: 'slow-3g', cpuThrottling: 4 });
    await client.toolbox.emulate({ targetId, network: null, cpuThrottling: null });

    await client.toolbox.emulate({ targetId, headers: { values: { 'x-agent': 'clawd' } } });
    expect(await fetchJson(own)).toMatchObject({ 'x-agent': 'clawd' });
    expect(await fetchJson(other)).toMatchObject({ 'x-agent': 'clawd' });
    await client.toolbox.emulate({
      targetId,
      headers: { values: { 'x-only': 'here' }, origin },
      httpCredentials: { username: 'agent', password: 's3cret', origin },
    });
    const ownHeaders = (await fetchJson(own)) as Record<string, string>;
    expect(ownHeaders['x-only']).toBe('here');
    expect(ownHeaders.authorization).toBe(`Basic ${Buffer.from('agent:s3cret').toString('base64')}`);
    const otherHeaders = (await fetchJson(other)) as Record<string, string>;
    expect(otherHeaders).not.toHaveProperty('x-only');
    expect(otherHeaders).not.toHaveProperty('authorization');
    await client.navigate(env.fixtures.url('basic-auth'), targetId);
    expect(await evaluate(client, targetId, '() => document.body.innerText')).toBe('welcome');
    // The password is never read back.
    expect((await client.toolbox.emulation({ targetId })).tab.httpCredentials).toEqual({ username: 'agent', password: '********', origin });
    await client.toolbox.resetEmulation({ targetId });
    expect(await fetchJson(own)).not.toHaveProperty('authorization');
    expect(await fetchJson(own)).not.toHaveProperty('x-agent');
    await client.closeTab(targetId);
  });

  it("the profile's emulation is on every new tab before the page's first script; bad input changes nothing", async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    await client.toolbox.emulate({ targetId, scope: 'profile', timezone: 'America/New_York', locale: 'de-DE' });
    const opened = await client.openTab(firstScriptSees('Intl.DateTimeFormat().resolvedOptions().timeZone + " " + navigator.language'));
    expect(opened.title).toBe('America/New_York de-DE');
    // A tab's own setting wins over the profile's.
    await client.toolbox.emulate({ targetId: opened.targetId, timezone: 'Europe/Paris' });
    expect((await client.toolbox.emulation({ targetId: opened.targetId })).effective).toEqual({ timezone: 'Europe/Paris', locale: 'de-DE' });

    const before = await client.toolbox.emulation({ targetId });
    for (const [body, field] of [
      [{ device: 'Nokia 9000 Communicator' }, /device: no preset is named "Nokia 9000 Communicator"; try /],
      [{ timezone: 'Mars/Olympus_Mons' }, /timezone: must be an IANA timezone/],
      [{ locale: 'klingonese' }, /locale: must be a locale like fr-FR/],
      [{ network: 'dial-up' }, /network/],
      [{ headers: { values: { 'bad header': 'x' } } }, /headers/],
      [{ httpCredentials: { username: 'a', password: 'b' } }, /httpCredentials\.origin/],
    ] as const) {
      const response = await env.raw(`/emulation?profile=${profile}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ targetId, timezone: 'Asia/Tokyo', ...body }),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.message).toMatch(field);
    }
    expect(await client.toolbox.emulation({ targetId })).toEqual(before);
    await client.toolbox.resetEmulation({ targetId, scope: 'profile' });
    await client.toolbox.resetEmulation({ targetId: opened.targetId });
    await client.closeTab(opened.targetId);
    await client.closeTab(targetId);
  });
});

describe.each(['clawd', 'extension'])('network routes and init scripts on the %s profile', (profile) => {
  it('fulfil, abort and continue: what the page received, the network log, times, removal', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const fetchText = (url: string) =>
      evaluate<string>(
        client,
        targetId,
        `() => fetch(${JSON.stringify(url)}).then((r) => r.text().then((t) => r.status + ' ' + r.headers.get('content-type') + ' ' + t), () => 'failed')`,
      );
    await recordCall(client, { action: 'network-start', targetId });
    const fulfil = await client.toolbox.addRoute({
      targetId,
      url: '**/api/items',
      action: 'fulfill',
      status: 201,
      body: '[1,2,3]',
      contentType: 'application/json',
    });
    expect(fulfil).toMatchObject({ id: expect.stringMatching(/^r\d+$/), scope: 'tab', targetId, action: 'fulfill', status: 201, hits: 0 });
    expect(await fetchText(env.fixtures.url('api/items'))).toBe('201 application/json [1,2,3]');

    const file = join(env.home, 'uploads', 'reply.txt');
    mkdirSync(join(env.home, 'uploads'), { recursive: true });
    writeFileSync(file, 'from a file');
    const fromFile = await client.toolbox.addRoute({ targetId, regex: 'reply\\.txt$', action: 'fulfill', bodyFile: file, times: 1 });
    expect(await fetchText(env.fixtures.url('reply.txt'))).toBe('200 text/plain from a file');
    expect(await fetchText(env.fixtures.url('reply.txt'))).toMatch(/^404/);

    const abort = await client.toolbox.addRoute({ targetId, url: '**/style.css', action: 'abort' });
    expect(await fetchText(env.fixtures.url('style.css'))).toBe('failed');
    const cont = await client.toolbox.addRoute({ targetId, url: '**/headers', action: 'continue', headers: { 'x-routed': 'yes' } });
    expect(JSON.parse((await fetchText(env.fixtures.url('headers'))).split(' ').slice(2).join(' '))).toMatchObject({ 'x-routed': 'yes' });

    const listed = (await client.toolbox.routes()).routes;
    expect(listed.map((route) => [route.id, route.hits])).toEqual([
      [fulfil.id, 1],
      [abort.id, 1],
      [cont.id, 1],
    ]);
    expect(listed.map((route) => route.id)).not.toContain(fromFile.id);
    const log = (await recordCall(client, { action: 'network', targetId })).network?.entries ?? [];
    const routedOf = (path: string) => log.filter((entry) => entry.url.endsWith(path)).map((entry) => entry.routed);
    expect(routedOf('/api/items')).toEqual([`${fulfil.id} fulfilled`]);
    expect(routedOf('/style.css')).toEqual([`${abort.id} aborted`]);
    expect(routedOf('/headers')).toEqual([`${cont.id} continued`]);

    expect((await client.toolbox.removeRoute(fulfil.id)).removed.id).toBe(fulfil.id);
    expect(await fetchText(env.fixtures.url('api/items'))).toMatch(/^404/);
    await expect(client.toolbox.removeRoute(fulfil.id)).rejects.toThrow(`No route ${fulfil.id}`);
    for (const [body, message] of [
      [{ url: '**/{a,b', action: 'abort' }, /url: is not a glob: it has a \{ that is never closed/],
      [{ regex: '(', action: 'abort' }, /regex: is not a regular expression/],
      [{ action: 'abort' }, /give url \(a glob\) or regex/],
      [{ url: '**', action: 'abort', body: 'x' }, /only a fulfil takes a status or a body/],
      [{ url: '**', action: 'fulfill', bodyFile: '/etc/passwd' }, /not inside an upload folder/],
    ] as const) {
      const response = await env.raw(`/routes?profile=${profile}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ targetId, ...body }),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.message).toMatch(message);
    }
    expect((await client.toolbox.routes()).routes.map((route) => route.id)).toEqual([abort.id, cont.id]);
    await client.toolbox.removeRoute(abort.id);
    await client.toolbox.removeRoute(cont.id);
    await client.closeTab(targetId);
  });

  it("init scripts run before the page's own, in a tab or every tab, until removed", async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const tabScript = await client.toolbox.addInitScript({ targetId, script: 'window.__early = "tab:" + location.pathname' });
    const profileScript = await client.toolbox.addInitScript({ targetId, scope: 'profile', script: 'window.__everywhere = 42' });
    expect(tabScript).toMatchObject({ scope: 'tab', targetId, preview: 'window.__early = "tab:" + location.pathname' });
    await client.navigate(firstScriptSees('window.__early + " " + window.__everywhere'), targetId);
    expect((await client.tabs()).find((tab) => tab.targetId === targetId)?.title).toBe('tab:/echo 42');
    const other = await client.openTab(firstScriptSees('window.__early + " " + window.__everywhere'));
    expect(other.title).toBe('undefined 42');
    expect((await client.toolbox.initScripts()).scripts.map((script) => script.id)).toEqual([tabScript.id, profileScript.id]);
    await client.toolbox.removeInitScript(tabScript.id);
    await client.toolbox.removeInitScript(profileScript.id);
    await client.navigate(firstScriptSees('window.__early + " " + window.__everywhere'), targetId);
    expect((await client.tabs()).find((tab) => tab.targetId === targetId)?.title).toBe('undefined undefined');
    await client.closeTab(other.targetId);
    await client.closeTab(targetId);
  });
});

describe('a task session', () => {
  it('takes its defaults before its first page, through its own key: emulation, an init script, a route', async () => {
    const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
    try {
      const agent = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key! });
      expect(await agent.toolbox.emulate({ scope: 'profile', timezone: 'Pacific/Auckland', colorScheme: 'dark' })).toEqual({
        profile: { timezone: 'Pacific/Auckland', colorScheme: 'dark' },
        tab: {},
        effective: { timezone: 'Pacific/Auckland', colorScheme: 'dark' },
      });
      await agent.toolbox.addInitScript({ scope: 'profile', script: 'window.__task = "mine"' });
      await agent.toolbox.addRoute({ scope: 'profile', url: '**/api/plan', action: 'fulfill', body: 'the plan' });
      const tab = await agent.openTab(
        firstScriptSees('[Intl.DateTimeFormat().resolvedOptions().timeZone, matchMedia("(prefers-color-scheme: dark)").matches, window.__task].join(" ")'),
      );
      expect(tab.title).toBe('Pacific/Auckland true mine');
      expect(await evaluate(agent, tab.targetId, "() => fetch('/api/plan').then((r) => r.text())")).toBe('the plan');
      // The managed profile is untouched by the session's defaults.
      expect((await env.client('clawd').toolbox.emulation()).profile).toEqual({});
      expect((await env.client('clawd').toolbox.routes()).routes).toEqual([]);
    } finally {
      await env.client('clawd').closeSession(session.id);
    }
  });
});

describe('the URL policy is judged before any route', () => {
  it('a route for a denied host never answers: the request is refused, and the route counts it', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const route = await client.toolbox.addRoute({ targetId, url: 'http://denied.invalid/**', action: 'fulfill', body: 'stand-in' });
    const configPath = join(env.home, 'config.json');
    const { readFileSync } = await import('node:fs');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    writeFileSync(configPath, JSON.stringify({ ...config, urlPolicy: { mode: 'any', deny: ['denied.invalid'] } }));
    try {
      expect(await evaluate(client, targetId, "() => fetch('http://denied.invalid/x').then((r) => r.text(), () => 'failed')")).toBe('failed');
      expect((await client.toolbox.routes()).routes.find((r) => r.id === route.id)).toMatchObject({ hits: 0, refused: 1 });
    } finally {
      writeFileSync(configPath, JSON.stringify(config));
      await client.toolbox.removeRoute(route.id);
      await client.closeTab(targetId);
    }
  });
});

describe.each(['clawd', 'extension'])('storage on the %s profile', (profile) => {
  it('localStorage and sessionStorage of a tab: get, set, delete one, clear; a frame by its origin', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(echo(`<iframe src="${env.fixtures.crossOriginUrl('index.html')}"></iframe>`));
    const origin = new URL(env.fixtures.url('')).origin;
    await evaluate(client, targetId, '() => { localStorage.clear(); localStorage.setItem("theme", "dark"); sessionStorage.setItem("step", "2"); }');
    expect(await client.toolbox.storage({ targetId })).toEqual({ targetId, origin, kind: 'local', items: { theme: 'dark' } });
    expect((await client.toolbox.storage({ targetId, kind: 'session' })).items).toEqual({ step: '2' });
    expect(await client.toolbox.setStorage({ targetId, items: { lang: 'fr', theme: 'light' } })).toMatchObject({ set: 2 });
    expect(await evaluate(client, targetId, '() => [localStorage.getItem("lang"), localStorage.getItem("theme")]')).toEqual(['fr', 'light']);
    expect(await client.toolbox.clearStorage({ targetId, key: 'lang' })).toMatchObject({ cleared: 1 });
    expect(await client.toolbox.clearStorage({ targetId, kind: 'session' })).toMatchObject({ cleared: 1 });
    expect(await evaluate(client, targetId, '() => [localStorage.length, sessionStorage.length]')).toEqual([1, 0]);

    const frameOrigin = new URL(env.fixtures.crossOriginUrl('')).origin;
    await client.toolbox.setStorage({ targetId, origin: frameOrigin, items: { inFrame: 'yes' } });
    expect((await client.toolbox.storage({ targetId, origin: frameOrigin })).items).toMatchObject({ inFrame: 'yes' });
    expect((await client.toolbox.storage({ targetId })).items).not.toHaveProperty('inFrame');
    await expect(client.toolbox.storage({ targetId, origin: 'https://nowhere.example' })).rejects.toThrow(
      /No frame of the tab shows https:\/\/nowhere.example/,
    );
    await client.toolbox.clearStorage({ targetId, origin: frameOrigin });
    await client.toolbox.clearStorage({ targetId });
    await client.closeTab(targetId);
  });

  it("cookies: set, list by URL or domain, clear; values shown only to the token's holder", async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    const url = env.fixtures.url('');
    expect(
      await client.toolbox.setCookies({
        cookies: [
          { name: 'flavour', value: 'oat', url },
          { name: 'size', value: 'L', url, httpOnly: true },
        ],
      }),
    ).toEqual({ set: 2 });
    expect(await evaluate(client, targetId, '() => document.cookie')).toBe('flavour=oat');
    const listed = await client.toolbox.cookies({ url });
    expect(listed.cookies.map((cookie) => [cookie.name, cookie.value, cookie.httpOnly]).sort()).toEqual([
      ['flavour', 'oat', false],
      ['size', 'L', true],
    ]);
    expect((await client.toolbox.cookies({ domain: '127.0.0.1', name: 'size' })).cookies).toHaveLength(1);
    expect(await client.toolbox.clearCookies({ name: 'flavour' })).toEqual({ cleared: 1 });
    expect(await evaluate(client, targetId, '() => document.cookie')).toBe('');
    await client.toolbox.clearCookies({ domain: '127.0.0.1' });
    await client.closeTab(targetId);
  });
});

describe('storage state', () => {
  it('exported with IndexedDB from the managed profile, imported into a fresh task session: the page there finds it', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('index.html'));
    await evaluate(
      client,
      targetId,
      `() => new Promise((resolve, reject) => {
      localStorage.setItem('cart', '3 items');
      const open = indexedDB.open('shop', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('orders', { keyPath: 'id' });
      open.onsuccess = () => {
        const tx = open.result.transaction('orders', 'readwrite');
        tx.objectStore('orders').put({ id: 7, total: 12.5 });
        tx.oncomplete = () => { open.result.close(); resolve(true); };
        tx.onerror = () => reject(tx.error);
      };
      open.onerror = () => reject(open.error);
    })`,
    );
    await client.toolbox.setCookies({ cookies: [{ name: 'session', value: 'abc', url: env.fixtures.url('') }] });
    const state = await client.toolbox.storageState({ indexedDB: true });
    const origin = new URL(env.fixtures.url('')).origin;
    const saved = state.origins.find((entry) => entry.origin === origin);
    expect(saved?.localStorage).toContainEqual({ name: 'cart', value: '3 items' });
    expect(saved?.indexedDB?.[0]).toMatchObject({ name: 'shop', stores: [{ name: 'orders', records: [expect.objectContaining({})] }] });
    expect(state.cookies.find((cookie) => cookie.name === 'session')?.value).toBe('abc');

    const session = await client.openSession({ credential_mode: 'clean' });
    try {
      const agent = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key! });
      expect(await agent.toolbox.setStorageState({ state })).toEqual({ cookies: state.cookies.length, origins: state.origins.length });
      const tab = await agent.openTab(env.fixtures.url('index.html?restored'));
      const found = await evaluate(
        agent,
        tab.targetId,
        `() => new Promise((resolve) => {
        const open = indexedDB.open('shop');
        open.onsuccess = () => {
          const get = open.result.transaction('orders').objectStore('orders').get(7);
          get.onsuccess = () => resolve([localStorage.getItem('cart'), get.result && get.result.total, document.cookie]);
        };
      })`,
      );
      expect(found).toEqual(['3 items', 12.5, 'session=abc']);
      // The session's key sees cookies by name only: a login cannot leave the session that way.
      const seen = await agent.toolbox.storageState();
      expect(seen.valuesHidden).toBe(true);
      expect(seen.cookies.find((cookie) => cookie.name === 'session')?.value).toBe('');
      expect((await agent.toolbox.cookies()).cookies.every((cookie) => cookie.value === '')).toBe(true);

      const bad = await fetch(`http://127.0.0.1:${env.server.control.port}/storage/state`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ state: { cookies: [{ name: 'x' }], origins: [] } }),
      });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.message).toMatch(/state\.cookies\.0\.value/);
    } finally {
      await client.closeSession(session.id);
    }
    await client.toolbox.clearCookies({ name: 'session' });
    await client.closeTab(targetId);
  });

  it("is refused on the extension profile, which is the user's own Chrome", async () => {
    const refused = await rejection(env.client('extension').toolbox.storageState());
    expect(refused.message).toMatch(/storage of your own Chrome: use \/storage\/cookies and \/storage\/items/);
  });
});
