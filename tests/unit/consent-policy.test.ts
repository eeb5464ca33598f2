import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cookieDomainInScope, filterCookies, planCookieCommand, sharedHosts } from '../../relay/src/bridge/cookie-scope.js';
import { newNonce, prove, verifyProof } from '../../protocol/link-auth.js';
import { classifyPageMethod, deniedMessage } from '../../relay/src/bridge/method-policy.js';
import { readUploads } from '../../relay/src/driver/acts/uploads.js';
import { navigationProblem, shareableUrlProblem } from '../../protocol/url-gate.js';
import { checkRequest, redactUrl } from '../../relay/src/server/request-guard.js';
import { BadRequestError } from '../../relay/src/errors.js';

/** The pure parts of the consent boundary (spec §9); the attacks themselves run in e2e/consent-boundary.test.ts. */

describe('the URL gate', () => {
  it('lets tabs show http, https and about:blank, and nothing else by default', () => {
    for (const url of ['http://127.0.0.1:9/x', 'https://example.com/', 'about:blank', 'about:blank#top']) expect(navigationProblem(url)).toBeUndefined();
    for (const url of [
      'file:///etc/passwd',
      'chrome-extension://opdopiaocmjejejdfeokihimdckpgibd/options.html',
      'chrome://settings',
      'devtools://devtools/bundled/inspector.html',
      'javascript:alert(1)',
      'data:text/html,<h1>x</h1>',
      'about:srcdoc',
      'view-source:https://example.com/',
    ])
      expect(navigationProblem(url)).toMatch(/URLs are refused: tabs may show http:, https: and about:blank/);
    expect(navigationProblem('not a url')).toMatch(/not an absolute URL/);
  });

  it('opens a scheme the config names, in any spelling', () => {
    expect(navigationProblem('file:///tmp/a.html', ['file'])).toBeUndefined();
    expect(navigationProblem('file:///tmp/a.html', ['FILE:'])).toBeUndefined();
    expect(navigationProblem('data:text/plain,x', ['file:'])).toMatch(/data: URLs are refused: tabs may show http:, https:, file:/);
  });

  it('gives the extension a floor no config lowers: its own pages, other extensions, browser pages, files', () => {
    for (const url of [
      'chrome-extension://opdopiaocmjejejdfeokihimdckpgibd/options.html',
      'chrome-extension://other/page.html',
      'chrome://newtab/',
      'devtools://x',
      'file:///etc/hostname',
    ])
      expect(shareableUrlProblem(url)).toMatch(/does not share/);
    for (const url of ['https://example.com/', 'http://127.0.0.1:1/', 'about:blank', undefined, '', 'null']) expect(shareableUrlProblem(url)).toBeUndefined();
  });
});

describe('the method policy on shared tabs', () => {
  it('forwards what Playwright and Puppeteer drive a page with', () => {
    for (const method of [
      'Runtime.evaluate',
      'Page.captureScreenshot',
      'DOM.getDocument',
      'Input.dispatchMouseEvent',
      'Network.enable',
      'Fetch.enable',
      'Emulation.setDeviceMetricsOverride',
      'Accessibility.getFullAXTree',
      'IO.read',
      'Target.setAutoAttach',
    ])
      expect(classifyPageMethod(method)).toBe('forward');
    expect(classifyPageMethod('Page.navigate')).toBe('navigate');
  });

  it('scopes every cookie and storage method', () => {
    for (const method of [
      'Network.getAllCookies',
      'Network.getCookies',
      'Network.setCookie',
      'Network.setCookies',
      'Network.deleteCookies',
      'Network.clearBrowserCookies',
      'Storage.getCookies',
      'Storage.setCookies',
      'Storage.clearCookies',
      'Storage.clearDataForOrigin',
    ])
      expect(classifyPageMethod(method)).toBe('cookies');
  });

  it('refuses what reaches beyond the tab, saying why', () => {
    expect(classifyPageMethod('DOM.setFileInputFiles')).toBe('upload'); // emulated: files read under the upload-folder rule
    for (const method of [
      'Network.loadNetworkResource',
      'Page.setDownloadBehavior',
      'Storage.getUsageAndQuota',
      'DOMStorage.getDOMStorageItems',
      'IndexedDB.requestData',
      'CacheStorage.requestEntries',
      'ServiceWorker.unregister',
      'Target.createTarget',
      'Target.getTargets',
      'Browser.grantPermissions',
      'Extensions.loadUnpacked',
      'SystemInfo.getProcessInfo',
      'Tracing.start',
    ])
      expect(classifyPageMethod(method)).toBe('deny');
    expect(deniedMessage('IndexedDB.requestData')).toMatch(/forwards only the domains a page needs/);
  });
});

describe('cookie scope', () => {
  const hosts = sharedHosts(['http://www.shop.example:8080/cart', 'about:blank', 'http://127.0.0.1:5000/']);
  const cookie = (domain: string, name = 'c') => ({ name, value: 'v', domain, path: '/' });

  it('knows the shared hosts, and which cookies they would be sent', () => {
    expect([...hosts].sort()).toEqual(['127.0.0.1', 'www.shop.example']);
    expect(cookieDomainInScope('.shop.example', hosts)).toBe(true);
    expect(cookieDomainInScope('www.shop.example', hosts)).toBe(true);
    expect(cookieDomainInScope('api.shop.example', hosts)).toBe(false);
    expect(cookieDomainInScope('localhost', hosts)).toBe(false);
    expect(cookieDomainInScope('example', hosts)).toBe(true); // a parent domain; Chrome refuses public suffixes itself
    expect(cookieDomainInScope('', hosts)).toBe(false);
  });

  it('filters what Chrome returns', () => {
    const result = { cookies: [cookie('localhost', 'bank'), cookie('127.0.0.1', 'ours'), cookie('.shop.example', 'cart')] };
    expect(filterCookies(result, hosts).cookies.map((c) => c.name)).toEqual(['ours', 'cart']);
    expect(filterCookies({ nonsense: true }, hosts)).toEqual({ cookies: [] });
  });

  it('refuses names outside the shared sites and forwards the rest', () => {
    expect(planCookieCommand('Network.getCookies', { urls: ['http://localhost:5000/'] }, hosts)).toMatchObject({
      kind: 'refuse',
      message: expect.stringMatching(/outside the shared tabs' sites/),
    });
    expect(planCookieCommand('Network.getCookies', { urls: ['http://127.0.0.1:5000/'] }, hosts)).toMatchObject({ kind: 'forward', filter: true });
    expect(planCookieCommand('Network.setCookie', { name: 'x', value: 'y', domain: 'localhost' }, hosts)).toMatchObject({ kind: 'refuse' });
    expect(planCookieCommand('Network.setCookie', { name: 'x', value: 'y', url: 'http://127.0.0.1:5000/' }, hosts)).toMatchObject({
      kind: 'forward',
      filter: false,
    });
    expect(planCookieCommand('Network.deleteCookies', { name: 'bank' }, hosts)).toMatchObject({
      kind: 'refuse',
      message: expect.stringMatching(/names neither a url nor a domain/),
    });
    expect(planCookieCommand('Storage.setCookies', { cookies: [cookie('127.0.0.1'), cookie('localhost')] }, hosts)).toMatchObject({ kind: 'refuse' });
    expect(planCookieCommand('Storage.setCookies', { cookies: [cookie('127.0.0.1')] }, hosts)).toEqual({
      kind: 'forward',
      method: 'Network.setCookies',
      params: { cookies: [cookie('127.0.0.1')] },
      filter: false,
    });
    expect(planCookieCommand('Storage.getCookies', {}, hosts)).toEqual({ kind: 'forward', method: 'Network.getAllCookies', params: {}, filter: true });
    expect(planCookieCommand('Storage.clearCookies', {}, hosts)).toEqual({ kind: 'clear' });
    expect(planCookieCommand('Storage.clearDataForOrigin', { origin: 'http://localhost:5000', storageTypes: 'all' }, hosts)).toMatchObject({ kind: 'refuse' });
    expect(planCookieCommand('Storage.clearDataForOrigin', { origin: 'http://127.0.0.1:5000', storageTypes: 'all' }, hosts)).toMatchObject({ kind: 'forward' });
  });
});

describe('the extension link proof', () => {
  const key = 'ab'.repeat(32);
  it('verifies a proof made with the key, and nothing else', async () => {
    const [e, r] = [newNonce(), newNonce()];
    const relayProof = await prove(key, 'relay', e);
    expect(await verifyProof(key, 'relay', relayProof, e)).toBe(true);
    expect(await verifyProof('cd'.repeat(32), 'relay', relayProof, e)).toBe(false);
    expect(await verifyProof(key, 'relay', relayProof, newNonce())).toBe(false);
    // A proof cannot be reflected back in the other direction.
    expect(await verifyProof(key, 'extension', relayProof, e)).toBe(false);
    const extensionProof = await prove(key, 'extension', r, e);
    expect(await verifyProof(key, 'extension', extensionProof, r, e)).toBe(true);
    expect(await verifyProof(key, 'extension', 'not hex', r, e)).toBe(false);
    expect(await verifyProof(key, 'extension', undefined, r, e)).toBe(false);
  });
});

describe('Host headers and logs', () => {
  const token = 'a'.repeat(64);
  const options = { token, allowedOrigins: [] };
  it('matches Host exactly: loopback names with an optional port, nothing smuggled', () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const host of [
      'localhost:x@evil.com',
      '[::1]evil.com',
      'localhost.',
      '127.0.0.1.',
      'localhost:1:2',
      '127.0.0.1 evil',
      '[::ffff:127.0.0.1]',
      'localhost:99999999',
    ])
      expect(checkRequest({ headers: { host, ...auth }, url: '/' }, options), host).toMatchObject({ ok: false, status: 403 });
    for (const host of ['localhost', 'LOCALHOST:18792', '127.0.0.1:1', '[::1]', '[::1]:18792'])
      expect(checkRequest({ headers: { host, ...auth }, url: '/' }, options), host).toMatchObject({ ok: true });
  });
  it('never logs a token from a URL', () => {
    expect(redactUrl(`/json/activate/%E0%A4%A?token=${token}`)).toBe('/json/activate/%E0%A4%A?token=[redacted]');
    expect(redactUrl(`/cdp?x=1&TOKEN=${token}&y=2`)).toBe('/cdp?x=1&TOKEN=[redacted]&y=2');
  });
});

describe('upload folders', () => {
  const root = mkdtempSync(join(tmpdir(), 'clawd-uploads-unit-'));
  const allowed = join(root, 'allowed');
  const home = join(root, 'home');
  const outside = join(root, 'outside');
  for (const dir of [allowed, join(home, 'uploads'), outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(allowed, 'ok.txt'), 'ok');
  writeFileSync(join(home, 'token'), 'secret-token');
  writeFileSync(join(home, 'uploads', 'mine.txt'), 'mine');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(join(outside, 'secret.txt'), join(allowed, 'escape.txt'));
  symlinkSync(join(home, 'token'), join(allowed, 'token-link'));
  // The home sits inside an allowed folder here, as $CLAWD_HOME often sits in /tmp in tests.
  const policy = { dirs: [allowed, root], clawdHome: home };
  const strict = { dirs: [allowed, join(home, 'uploads')], clawdHome: home };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads files inside the folders, $CLAWD_HOME/uploads included', async () => {
    expect((await readUploads([join(allowed, 'ok.txt')], strict))[0]).toMatchObject({ name: 'ok.txt', mimeType: 'text/plain' });
    expect((await readUploads([join(home, 'uploads', 'mine.txt')], strict))[0].buffer.toString()).toBe('mine');
  });

  it("never reads $CLAWD_HOME's secrets, even inside an allowed folder", async () => {
    // Said as it is: clawd-browser's own folder is never an upload source (not "outside the folders", which it is not).
    await expect(readUploads([join(home, 'token')], policy)).rejects.toThrow(/is in clawd-browser's own folder .* never an upload source/);
    await expect(readUploads([join(allowed, 'token-link')], policy)).rejects.toThrow(/is in clawd-browser's own folder .* never an upload source/);
    await expect(readUploads([join(home, 'token')], policy)).rejects.not.toThrow(/not inside an upload folder/);
  });

  it('refuses paths outside, and symlinks out, with one answer whether or not the file exists', async () => {
    const answer = async (path: string) => (await readUploads([path], strict).catch((error: Error) => error)) as Error;
    const exists = await answer(join(outside, 'secret.txt'));
    const missing = await answer(join(outside, 'no-such-file.txt'));
    expect(exists).toBeInstanceOf(BadRequestError);
    expect(exists.message.replace('secret.txt', 'X')).toBe(missing.message.replace('no-such-file.txt', 'X'));
    expect((await answer(join(allowed, 'escape.txt'))).message).toMatch(/not inside an upload folder/);
    expect((await answer(join(allowed, '..', 'outside', 'secret.txt'))).message).toMatch(/not inside an upload folder/);
    expect((await answer('relative.txt')).message).toMatch(/must be absolute/);
    // Inside a folder, a missing file may say so.
    expect((await answer(join(allowed, 'nope.txt'))).message).toMatch(/does not exist/);
  });
});
