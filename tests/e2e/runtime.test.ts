import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BrowserClient, ForbiddenError, TimeoutError } from '../../relay/src/client/browser-client.js';
import { probeCount } from '../../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath, waitFor } from '../harness/chromium.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * What agent runtimes need (spec §12), against real Chromium on the managed
 * and the extension profile: cancellation that leaves nothing running, the
 * action timeout, the URL policy (through redirects and a page's own
 * navigation too), the action log without secrets, the live view with
 * takeover, and the dashboard.
 */

let env: ControlEnv;
/** A server the tests control: a page that never finishes, a redirect, a page that sends itself elsewhere. */
let site: Awaited<ReturnType<typeof startTestSite>>;
let siteUrl: string;
const requests: string[] = [];
const neverOpen = new Set<IncomingMessage>();

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    requests.push(request.url ?? '');
    if (url.pathname === '/never') {
      neverOpen.add(request);
      request.on('close', () => neverOpen.delete(request));
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<!doctype html><title>never</title><p>loading forever');
      return;
    }
    // Never answers at all, not even headers: the navigation never commits.
    if (url.pathname === '/silent') {
      neverOpen.add(request);
      request.on('close', () => neverOpen.delete(request));
      return;
    }
    if (url.pathname === '/redirect') return void response.writeHead(302, { location: url.searchParams.get('to')! }).end();
    if (url.pathname === '/jump')
      return void response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>jump</title><script>addEventListener('load', () => setTimeout(() => { location = ${JSON.stringify(url.searchParams.get('to'))}; }, 200))</script><p>jumping`,
        );
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${url.pathname}</title><p>${url.pathname}`);
  });
  siteUrl = site.url;
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

function setConfig(change: Record<string, unknown>): void {
  const path = join(env.home, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete config[key];
    else config[key] = value;
  }
  writeFileSync(path, JSON.stringify(config));
}

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    let client: BrowserClient;
    let targetId: string;
    beforeEach(async () => {
      client = env.client(profile);
      targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(env.fixtures.url('runtime.html'), targetId);
    });

    it('an aborted wait returns at once and stops looking at the page', async () => {
      const page = await env.server.manager.driver(profile).page(targetId);
      const abort = new AbortController();
      const waiting = client.withSignal(abort.signal).wait({ text: 'this text never appears', targetId });
      await waitFor(async () => (await probeCount(page.mainFrame())) >= 3, { message: 'the wait never looked at the page' });
      const aborted = performance.now();
      abort.abort(new Error('the user said stop'));
      expect((await rejection(waiting)).message).toBe('the user said stop');
      expect(performance.now() - aborted).toBeLessThan(200);
      // Nothing keeps looking on behalf of a caller that has gone.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const settled = await probeCount(page.mainFrame());
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await probeCount(page.mainFrame())).toBe(settled);
      await waitFor(async () => (await client.actions()).actions.some((a) => a.kind === 'wait' && a.outcome === 'aborted'), {
        message: 'the aborted wait was not logged',
      });
    });

    it('an aborted navigation returns at once, and the browser stops loading', async () => {
      const abort = new AbortController();
      const loading = client.withSignal(abort.signal).navigate(`${siteUrl}/never`, targetId);
      await waitFor(() => neverOpen.size > 0, { message: 'the never-ending page was not requested' });
      const aborted = performance.now();
      abort.abort(new Error('stop'));
      await rejection(loading);
      expect(performance.now() - aborted).toBeLessThan(200);
      // The browser let go of the request: no navigation is pending.
      await waitFor(() => neverOpen.size === 0, { timeoutMs: 5_000, message: 'the browser kept loading /never' });
    });

    it("a new tab's first navigation, to a server that never answers, is stopped too", async () => {
      const fresh = (await client.openTab('about:blank')).targetId;
      try {
        const abort = new AbortController();
        const loading = client.withSignal(abort.signal).navigate(`${siteUrl}/silent`, fresh);
        await waitFor(() => neverOpen.size > 0, { message: 'the silent page was not requested' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        abort.abort(new Error('stop'));
        await rejection(loading);
        await waitFor(() => neverOpen.size === 0, { timeoutMs: 5_000, message: 'the browser kept waiting for /silent' });
      } finally {
        await client.closeTab(fresh).catch(() => {});
      }
    });

    it('an action past the action timeout is a 504 that names the action and the limit', async () => {
      setConfig({ actionTimeoutMs: 800 });
      try {
        const error = await rejection(client.wait({ text: 'never, again', targetId }));
        expect(error).toBeInstanceOf(TimeoutError);
        expect(error.message).toBe('wait took longer than the action timeout of 800 ms (config actionTimeoutMs)');
      } finally {
        setConfig({ actionTimeoutMs: undefined });
      }
    });

    it('the URL policy refuses each forbidden class, through a redirect and a page navigating itself too', async () => {
      setConfig({ urlPolicy: { mode: 'public-only' } });
      try {
        for (const [url, rule] of [
          [env.fixtures.url('index.html'), /127\.0\.0\.1 is a loopback address/],
          ['http://localhost:1/', /localhost is a loopback name/],
          ['http://10.1.2.3/', /10\.1\.2\.3 is a private address/],
          ['http://192.168.0.1/', /private address/],
          ['http://169.254.169.254/latest/meta-data/', /link-local address/],
          ['http://[::1]:1/', /loopback address/],
          ['file:///etc/passwd', /file: URLs are not public/],
          ['data:text/html,hi', /data: URLs are not public/],
          ['chrome://settings', /chrome: URLs are not public/],
        ] as const) {
          const error = await rejection(client.navigate(url, targetId));
          expect(error, url).toBeInstanceOf(ForbiddenError);
          expect(error.message, url).toMatch(rule);
        }
        await expect(client.openTab('http://10.0.0.1/')).rejects.toThrow(/urlPolicy public-only: 10\.0\.0\.1 is a private address/);
      } finally {
        setConfig({ urlPolicy: undefined });
      }

      const target = `http://localhost:${new URL(siteUrl).port}/secret-target`;
      setConfig({ urlPolicy: { deny: ['localhost'] } });
      try {
        // A redirect to a denied host: refused before the request leaves the browser.
        const error = await rejection(client.navigate(`${siteUrl}/redirect?to=${encodeURIComponent(target)}`, targetId));
        expect(error).toBeInstanceOf(ForbiddenError);
        expect(error.message).toMatch(/urlPolicy deny: localhost matches "localhost"/);
        // The page sends itself there: refused too (the page stays), and said with the next action.
        await client.navigate(`${siteUrl}/jump?to=${encodeURIComponent(target)}`, targetId);
        // Looked at until the refusal is reported (each action takes the events so far: the redirect's
        // refusal first, then the page's own), the page staying put each time.
        const events: string[] = [];
        await waitFor(
          async () => {
            const next = await client.evaluate('() => location.pathname', { targetId });
            expect(next.result).toBe('/jump');
            events.push(...(next.events ?? []));
            return events.length >= 2;
          },
          { message: 'the refused navigation was never reported' },
        );
        expect(events).toEqual([
          expect.stringMatching(/navigation to http:\/\/localhost:\d+\/secret-target refused: urlPolicy deny/),
          expect.stringMatching(/navigation to http:\/\/localhost:\d+\/secret-target refused: urlPolicy deny/),
        ]);
        expect(requests.filter((path) => path.startsWith('/secret-target'))).toEqual([]);
      } finally {
        setConfig({ urlPolicy: undefined });
      }
    });

    it('the live view streams frames that follow the page, and a click through it reaches the page', async () => {
      const abort = new AbortController();
      const response = await env.raw(`/screencast?profile=${profile}&targetId=${targetId}`, { signal: abort.signal });
      expect(response.headers.get('content-type')).toBe('multipart/x-mixed-replace; boundary=clawdframe');
      const frames = frameReader(response);
      const first = await frames.next();
      await client.evaluate("() => { document.getElementById('paint').style.background = '#c00'; }", { targetId });
      let changed: Buffer | undefined;
      for (let i = 0; i < 20 && !changed; i++) {
        const frame = await frames.next();
        if (!frame.equals(first)) changed = frame;
      }
      expect(changed, 'no frame showed the change').toBeDefined();
      expect(changed!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8])); // JPEG

      // A click through the live view (a point as fractions of the view), sent with the token: the caller's, not a person's.
      const clicked = await env.raw(`/screencast/input?profile=${profile}`, {
        method: 'POST',
        body: JSON.stringify({ targetId, type: 'click', x: 0.1, y: 0.1 }),
      });
      expect(clicked.status).toBe(200);
      expect((await client.evaluate('() => window.hits', { targetId })).result).toBe(1);
      const { actions } = await client.actions();
      expect(actions.at(-2)).toMatchObject({ kind: 'view-click', actor: 'agent', outcome: 'ok', profile });
      abort.abort();
    });
  });
}

describe('the action log', () => {
  it('records each action with its duration, and never what was typed into a password field', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('runtime.html'));
    const { text } = await client.snapshot({ targetId });
    const password = /textbox "Password" \[ref=(\w+)\]/.exec(text)![1];
    await client.type(password, 'hunter2-do-not-log', { targetId });
    await client.fill([{ ref: password, value: 'second-secret-xyz' }], { targetId });
    await client.dialog({ accept: true, promptText: 'prompt-answer-secret', targetId });
    await client.press('Tab', { targetId });
    const { actions } = await client.actions({ limit: 6 });
    expect(actions.map((a) => a.kind)).toEqual(['open', 'snapshot', 'type', 'fill', 'dialog', 'press']);
    for (const action of actions) {
      expect(action).toMatchObject({ profile: 'clawd', targetId, outcome: 'ok', actor: 'agent' });
      expect(action.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(actions.find((a) => a.kind === 'type')).toMatchObject({ ref: password });
    const file = readFileSync(join(env.home, 'logs', 'actions.jsonl'), 'utf8');
    expect(file.trim().split('\n').length).toBeGreaterThanOrEqual(6);
    for (const secret of ['hunter2-do-not-log', 'second-secret-xyz', 'prompt-answer-secret']) expect(file).not.toContain(secret);
  });
});

describe('the dashboard', () => {
  it('opens from a one-time link and shows profiles, tabs with live thumbnails, and recent actions', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('runtime.html'));
    await client.press('Tab', { targetId });
    const { url } = await client.dashboardLink();

    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(url);
      // The link's page moves on to the login's own console, the only path its cookie is sent to.
      await page.waitForURL(/\/console\/[\w-]{20,}\/$/);
      await page.waitForSelector(`.tab[data-target-id="${targetId}"] img`);
      await page.waitForFunction((id) => {
        const image = document.querySelector<HTMLImageElement>(`.tab[data-target-id="${id}"] img`);
        return !!image && image.naturalWidth > 0;
      }, targetId);
      await page.waitForFunction(() => document.querySelectorAll('#actions tr').length > 0);
      const shot = await page.screenshot({ fullPage: true });
      expect(shot.length).toBeGreaterThan(10_000);
      expect(await page.locator('#profiles').innerText()).toMatch(/clawd[\s\S]*running/);
      expect(await page.locator('#profiles').innerText()).toMatch(/extension/);
      expect(await page.locator('#extension').innerText()).toMatch(/connected · 1 shared tab/);
      expect(await page.locator('#actions').innerText()).toMatch(/press/);
      // The link worked once.
      const again = await browser.newPage();
      const refused = await again.goto(url);
      expect(refused?.status()).toBe(401);
      // Other origins are refused even with the session cookie.
      const foreign = await page.evaluate(async (base) => {
        const response = await fetch(`${base}/tabs`, { method: 'POST', headers: { origin: 'https://evil.example' } }).catch(() => undefined);
        return response?.status;
      }, new URL(url).origin);
      expect(foreign === undefined || foreign >= 400).toBe(true);
      // Another server on this host (a dev server, a squatter) is never sent the console's cookie, though cookies ignore ports.
      const heard: string[] = [];
      const other = await startTestSite((request, response) => {
        heard.push(request.headers.cookie ?? '');
        response.writeHead(200, { 'content-type': 'text/html' }).end('<title>my app</title>');
      });
      try {
        await page.goto(`${other.url}/`);
        await page.goto(`${other.url}/some/page`);
        expect(heard.length).toBeGreaterThanOrEqual(2);
        expect(heard.join(' ')).not.toMatch(/clawd_/);
      } finally {
        await other.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});

/** Reads a multipart/x-mixed-replace body frame by frame. */
function frameReader(response: Response): { next(): Promise<Buffer> } {
  const reader = response.body!.getReader();
  let buffered = Buffer.alloc(0);
  return {
    async next() {
      for (;;) {
        const header = buffered.indexOf('\r\n\r\n');
        if (header >= 0) {
          const length = Number(/Content-Length: (\d+)/i.exec(buffered.subarray(0, header).toString())?.[1]);
          if (buffered.length >= header + 4 + length) {
            const frame = buffered.subarray(header + 4, header + 4 + length);
            buffered = buffered.subarray(header + 4 + length + 2);
            return Buffer.from(frame);
          }
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffered = Buffer.concat([buffered, Buffer.from(value)]);
      }
    },
  };
}
