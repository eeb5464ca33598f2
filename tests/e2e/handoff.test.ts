import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffAnswer } from '../../relay/src/api/session-responses.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { chromiumPath, evaluateInWorker, waitFor } from '../harness/chromium.js';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { type ControlEnv, runCli, startControlEnv } from '../harness/control-env.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startTestSite } from '../harness/test-site.js';

/**
 * Hand-offs to a person, on a task session driven with its own key: the
 * person answers through the operator's console and through the one-time
 * link, by clicking in the live view and on the page's buttons (Playwright
 * driving a browser as a person would); one is refused with a note, one
 * times out, one is cancelled by the agent, one is asked through MCP with
 * progress notifications. The person's link opens that hand-off and nothing
 * else.
 */

let env: ControlEnv;
let person: Browser;
let session: { id: string; profile: string; key?: string };
let agent: BrowserClient;
const base = () => `http://127.0.0.1:${env.server.control.port}`;
/** A page whose only button, when clicked, says so in its title. */
const verifyPage = () =>
  env.fixtures.url(
    `echo?body=${encodeURIComponent('<title>unverified</title><button style="position:fixed;inset:0;font-size:40px" onclick="document.title=\'verified\'">Verify</button>')}`,
  );

beforeAll(async () => {
  env = await startControlEnv();
  session = await env.client('clawd').openSession({ credential_mode: 'clean' });
  agent = new BrowserClient({ baseUrl: base(), token: session.key! });
  person = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
}, 90_000);
afterAll(async () => {
  await person?.close();
  if (session)
    await env
      .client('clawd')
      .closeSession(session.id)
      .catch(() => {});
  await env?.close();
});

/** The agent's hand-off, and its person's link as soon as it waits. */
function handOff(reason: string, timeoutSec = 60, signal?: AbortSignal): { link: Promise<HandoffAnswer>; answer: Promise<HandoffAnswer> } {
  let opened!: (handoff: HandoffAnswer) => void;
  const link = new Promise<HandoffAnswer>((resolve) => (opened = resolve));
  return { link, answer: agent.handoff({ reason, timeoutSec }, { onWaiting: opened, signal }) };
}

/** Clicks the middle of the live view, where the page's one button is, as a person clicks on what they see. */
async function clickInView(page: Page): Promise<void> {
  await page.waitForFunction(() => (document.getElementById('view') as HTMLImageElement).naturalWidth > 0);
  await page.locator('#view').click();
}

describe('a hand-off to a person', () => {
  it("is answered in the operator's console: the person clicks in the live view, then Done — continue", async () => {
    const tab = await agent.openTab(verifyPage());
    const { link, answer } = handOff('Press Verify, then say done');
    const opened = await link;
    expect(opened).toMatchObject({
      profile: session.profile,
      targetId: tab.targetId,
      reason: 'Press Verify, then say done',
      state: 'waiting',
      link: expect.stringMatching(/\/handoff\/[0-9a-f]+\/open\?code=/),
    });

    const operator = await person.newPage({ viewport: { width: 1280, height: 900 } });
    await operator.goto((await env.client('clawd').dashboardLink()).url);
    // Open hand-offs come first, before the sessions.
    const row = operator.locator('#handoff-rows tr', { hasText: 'Press Verify' });
    await row.waitFor();
    expect(
      await operator.evaluate(
        () => document.getElementById('handoffs')!.compareDocumentPosition(document.getElementById('sessions')!) & Node.DOCUMENT_POSITION_FOLLOWING,
      ),
    ).toBeTruthy();
    await row.getByRole('link', { name: 'Take over' }).click();
    await expect.poll(() => operator.locator('#reason').textContent()).toBe('Press Verify, then say done');
    await clickInView(operator);
    await waitFor(async () => (await agent.tabs()).find((t) => t.targetId === tab.targetId)?.title === 'verified', {
      message: "the person's click never reached the tab",
    });
    await operator.getByRole('button', { name: 'Done — continue' }).click();
    await expect.poll(() => operator.locator('#outcome').textContent()).toMatch(/the agent goes on/);

    const answered = await answer;
    expect(answered).toMatchObject({ id: opened.id, state: 'done', now: { title: 'verified' }, changed: { navigated: false, titleChanged: true } });
    expect(answered.changed!.personActions).toBeGreaterThanOrEqual(1);
    expect(answered).not.toHaveProperty('link');
    // The person's input and answer are in the action log as theirs; the audit has the start and the end.
    const { actions } = await env.client(session.profile).actions({ limit: 50 });
    expect(actions.filter((action) => action.profile === session.profile && action.actor === 'person').map((action) => action.kind)).toEqual(
      expect.arrayContaining(['view-click', 'handoff-done']),
    );
    const { entries } = await env.client('clawd').audit({ session: session.id });
    expect(entries.map((entry) => entry.event)).toEqual(expect.arrayContaining(['handoff-open', 'handoff-end']));
    await operator.close();
  });

  it('is refused through the one-time link, with a note; the link works once and opens nothing else', async () => {
    const tab = await agent.openTab(verifyPage());
    const { link, answer } = handOff('Enter the 2FA code from your phone');
    const { link: url, id } = await link;
    const context = await person.newContext();
    const page = await context.newPage();
    await page.goto(url!);
    expect(await page.locator('#reason').textContent()).toBe('Enter the 2FA code from your phone');
    await page.fill('#note', 'my phone is not with me');
    await page.getByRole('button', { name: "Can't do it" }).click();
    expect(await answer).toMatchObject({ id, state: 'refused', note: 'my phone is not with me', changed: { navigated: false, personActions: 0 } });

    // Used once: the same link again is refused, in any browser.
    const again = await fetch(url!, { redirect: 'manual' });
    expect(again.status).toBe(403);
    // The cookie is this server's (named after its port), and sent under the hand-off's own path only.
    const cookie = (await context.cookies()).find((c) => c.name.startsWith('clawd_handoff_'))!;
    expect(cookie).toMatchObject({ name: `clawd_handoff_${env.server.control.port}_${id}`, path: `/handoff/${id}/`, httpOnly: true, sameSite: 'Strict' });
    // It opens this hand-off's page and tab only: not the API, not another tab, not the dashboard; and nothing of a hand-off that ended.
    const withCookie = (path: string, init: RequestInit = {}) =>
      fetch(`${base()}${path}`, { ...init, headers: { cookie: `${cookie.name}=${cookie.value}`, ...init.headers } });
    for (const path of [
      `/tabs?profile=${session.profile}`,
      '/handoffs',
      '/',
      `/screencast/frame?profile=${session.profile}&targetId=${tab.targetId}`,
      `/screencast?profile=${session.profile}&targetId=${tab.targetId}`,
    ])
      expect((await withCookie(path)).status, path).toBe(401);
    const input = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'click', x: 0.5, y: 0.5 }) };
    expect(
      (
        await withCookie(`/screencast/input?profile=${session.profile}`, {
          ...input,
          body: JSON.stringify({ targetId: tab.targetId, type: 'click', x: 0.5, y: 0.5 }),
        })
      ).status,
    ).toBe(401);
    expect((await withCookie(`/handoff/${id}/input`, input)).status).toBe(409);
    expect((await withCookie(`/handoff/${id}/screencast`)).status).toBe(409);
    expect(
      (
        await withCookie(`/handoff/${id}/answer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ verdict: 'done' }),
        })
      ).status,
    ).toBe(409);
    // Another hand-off's page is not this cookie's.
    const other = await agent.openHandoff({ reason: 'Another one', targetId: tab.targetId });
    expect((await withCookie(`/handoff/${other.id}/page`)).status).toBe(401);
    await agent.cancelHandoff(other.id);
    await context.close();
  });

  it("opens from a link clicked in another site's page (a chat app), and its cookie never reaches another server of this host", async () => {
    const tab = await agent.openTab(verifyPage());
    const { link, answer } = handOff('Press Verify, then say done');
    const { link: url } = await link;
    // A chat app on another site shows the link; a local app on another port of 127.0.0.1 echoes the cookies it is sent.
    const sent: string[] = [];
    const chat = await startTestSite((request, response, asked) => {
      if (asked.pathname === '/app') sent.push(request.headers.cookie ?? '');
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>chat</title><a id="go" href="${url}">Help the agent</a>`);
    });
    const context = await person.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://localhost:${chat.port}/`);
      await page.click('#go');
      await page.waitForURL(/\/handoff\/[0-9a-f]+\/page$/);
      expect(await page.locator('#reason').textContent()).toBe('Press Verify, then say done');
      await clickInView(page);
      await waitFor(async () => (await agent.tabs()).find((t) => t.targetId === tab.targetId)?.title === 'verified', {
        message: "the person's click never reached the tab",
      });
      await page.goto(`${chat.url}/app`);
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toContain('clawd_');
      await page.goBack();
      await page.getByRole('button', { name: 'Done — continue' }).click();
      expect(await answer).toMatchObject({ state: 'done', now: { title: 'verified' } });
    } finally {
      await context.close();
      await chat.close();
    }
  });

  it('times out with a clear answer when nobody comes, and the agent may cancel', async () => {
    await agent.openTab(verifyPage());
    const { answer } = handOff('Nobody will come', 10);
    expect(await answer).toMatchObject({ state: 'timeout', changed: { personActions: 0 } });

    const stop = new AbortController();
    const { link, answer: cancelled } = handOff('Never mind', 60, stop.signal);
    const { id } = await link;
    stop.abort();
    await expect(cancelled).rejects.toThrow();
    await waitFor(async () => (await agent.handoffState(id)).state === 'cancelled', { message: 'the abandoned hand-off was not cancelled' });
    expect((await env.client('clawd').handoffs()).handoffs).toEqual([]);

    const opened = await agent.openHandoff({ reason: 'Cancelled by DELETE' });
    expect((await agent.cancelHandoff(opened.id)).state).toBe('cancelled');
    // Another session's key finds none of them; its own hand-off ends with it.
    const other = await env.client('clawd').openSession({ credential_mode: 'clean' });
    const stranger = new BrowserClient({ baseUrl: base(), token: other.key! });
    await expect(stranger.handoffState(opened.id)).rejects.toThrow(`No hand-off ${opened.id} on ${other.profile}`);
    await stranger.openTab(verifyPage());
    const orphan = await stranger.openHandoff({ reason: 'The session will end first' });
    await env.client('clawd').closeSession(other.id);
    expect(await new BrowserClient({ baseUrl: base(), token: env.server.token }).handoffState(orphan.id)).toMatchObject({
      state: 'cancelled',
      note: 'the session ended',
      now: { title: '(the tab is closed)' },
    });
  }, 30_000);

  it('bad input is a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ reason: '' }, /reason/],
      [{ reason: 'x', timeoutSec: 5 }, /timeoutSec/],
      [{ reason: 'x', extra: 1 }, /extra/],
    ] as const) {
      const response = await env.raw(`/handoff?profile=${session.profile}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.message).toMatch(field);
    }
  });

  it("on a shared tab: the person's Chrome shows YOU on the tab's badge and a notification; both go when it ends", async () => {
    const user = env.client('extension');
    const [tab] = await user.tabs();
    const cdp = env.userBrowser.cdp;
    const inChrome = () =>
      evaluateInWorker<{ badge: string; title: string; notices: string[] }>(
        cdp,
        EXTENSION_ID,
        `(async () => {
          const target = (await chrome.debugger.getTargets()).find((t) => t.id === ${JSON.stringify(tab.targetId)});
          return { badge: await chrome.action.getBadgeText({ tabId: target.tabId }), title: await chrome.action.getTitle({ tabId: target.tabId }), notices: Object.keys(await chrome.notifications.getAll()) };
        })()`,
      );
    expect((await inChrome()).badge).toBe('ON');
    let opened!: (handoff: HandoffAnswer) => void;
    const waiting = new Promise<HandoffAnswer>((resolve) => (opened = resolve));
    const answer = user.handoff({ targetId: tab.targetId, reason: 'Approve the payment in your bank app' }, { onWaiting: opened });
    const { id } = await waiting;
    // The badge is set first, then the notification: wait for both.
    await waitFor(
      async () => {
        const now = await inChrome();
        return now.badge === 'YOU' && now.notices.length > 0;
      },
      { message: 'the badge never said YOU with a notification beside it' },
    );
    const shown = await inChrome();
    expect(shown.title).toBe('clawd-browser: your agent asks you: Approve the payment in your bank app (answer from the notification)');
    expect(shown.notices).toEqual([`clawd-handoff-${id}`]);
    // The person answers on the hand-off's page (the notification opens one with a link of its own).
    const page = await person.newPage();
    await page.goto((await waiting).link!);
    await page.getByRole('button', { name: 'Done — continue' }).click();
    expect((await answer).state).toBe('done');
    await waitFor(
      async () => {
        const after = await inChrome();
        return after.badge === 'ON' && after.notices.length === 0;
      },
      { message: 'the badge and notification stayed after the hand-off ended' },
    );
    await page.close();
  });

  it('through MCP: browser_handoff waits with progress notifications and ends with the answer', async () => {
    const mcp = new Client({ name: 'handoff-agent', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base()}/mcp?caps=handoff`), { requestInit: { headers: { authorization: `Bearer ${session.key}` } } }),
    );
    try {
      await agent.openTab(verifyPage());
      const progress: string[] = [];
      const calling = mcp.callTool({ name: 'browser_handoff', arguments: { reason: 'Solve the CAPTCHA' } }, undefined, {
        onprogress: (update) => void progress.push(String(update.message)),
        timeout: 60_000,
      });
      await waitFor(async () => progress.length > 0, { message: 'no progress notification came' });
      const url = /(http\S+\/open\?code=\S+)/.exec(progress[0])![1];
      const page = await person.newPage();
      await page.goto(url);
      await page.getByRole('button', { name: 'Done — continue' }).click();
      const result = (await calling) as { content: Array<{ text: string }> };
      // Where the tab is, in the page's words, fenced.
      expect(result.content[0].text).toMatch(
        /^Hand-off [0-9a-f]+: done by the person\.\nThe tab is at:\n<page (\d+)>\nhttp.*\n<\/page \1>\nSame page; the person acted 0 times\. Take a snapshot before going on\.$/,
      );
      expect(progress[0]).toMatch(/^Waiting for a person: http/);
      await page.close();
    } finally {
      await mcp.close();
    }
  });

  it('as an MCP App: the SDK client reads the view, and the person answers inside it, through the same MCP connection', async () => {
    const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    const host = new Client({ name: 'app-host', version: '1' }, { capabilities: apps });
    const plain = new Client({ name: 'no-apps', version: '1' });
    const connect = (client: Client) =>
      client.connect(
        new StreamableHTTPClientTransport(new URL(`${base()}/mcp?caps=handoff`), { requestInit: { headers: { authorization: `Bearer ${session.key}` } } }),
      );
    await Promise.all([connect(host), connect(plain)]);
    try {
      // The tool points at its app; the app's own tools are listed to a client that renders apps only.
      const { tools } = await host.listTools();
      const handoffTool = tools.find((tool) => tool.name === 'browser_handoff')!;
      expect(handoffTool._meta).toMatchObject({ ui: { resourceUri: 'ui://clawd-browser/handoff.html' } });
      expect(tools.find((tool) => tool.name === 'browser_handoff_view')?._meta).toMatchObject({ ui: { visibility: ['app'] } });
      expect((await plain.listTools()).tools.map((tool) => tool.name)).not.toContain('browser_handoff_view');
      expect((await plain.callTool({ name: 'browser_handoff_respond', arguments: { id: 'x', verdict: 'done' } })).isError).toBe(true);
      const { contents } = await host.readResource({ uri: 'ui://clawd-browser/handoff.html' });
      expect(contents[0]).toMatchObject({ uri: 'ui://clawd-browser/handoff.html', mimeType: 'text/html;profile=mcp-app' });
      const html = (contents[0] as { text: string }).text;
      // Another session's hand-off, or none, is not this connection's to view.
      expect((await host.callTool({ name: 'browser_handoff_view', arguments: {} })).isError).toBe(true);

      const tab = await agent.openTab(verifyPage());
      const calling = host.callTool({ name: 'browser_handoff', arguments: { reason: 'Press Verify in the app', targetId: tab.targetId } }, undefined, {
        timeout: 60_000,
      });
      // A host, as chat clients render apps: the view in a sandboxed frame, its tool calls carried over this MCP connection.
      const page = await person.newPage();
      await page.exposeFunction('callServerTool', (name: string, args: Record<string, unknown>) => host.callTool({ name, arguments: args }));
      await page.setContent(`<iframe id="app" sandbox="allow-scripts" style="width:900px;height:800px"></iframe>
        <script>
          const frame = document.getElementById('app');
          const reply = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '*');
          window.addEventListener('message', async (event) => {
            const message = event.data;
            if (message.method === 'ui/initialize') reply({ id: message.id, result: { protocolVersion: message.params.protocolVersion, hostInfo: { name: 'test host', version: '1' }, hostCapabilities: {}, hostContext: {} } });
            if (message.method === 'ui/notifications/initialized') reply({ method: 'ui/notifications/tool-input', params: { arguments: { reason: 'Press Verify in the app' } } });
            if (message.method === 'tools/call') reply({ id: message.id, result: await window.callServerTool(message.params.name, message.params.arguments) });
          });
        </script>`);
      await page.evaluate((source) => ((document.getElementById('app') as HTMLIFrameElement).srcdoc = source), html);
      const app = page.frameLocator('#app');
      await expect.poll(() => app.locator('#reason').textContent()).toBe('Press Verify in the app');
      await expect.poll(() => app.locator('#view').evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 10_000 }).toBeGreaterThan(0);
      await app.locator('#view').click();
      await waitFor(async () => (await agent.tabs()).find((t) => t.targetId === tab.targetId)?.title === 'verified', {
        message: "the person's click in the app never reached the tab",
      });
      await app.getByRole('button', { name: 'Done — continue' }).click();
      const result = (await calling) as { content: Array<{ text: string }> };
      expect(result.content[0].text).toMatch(
        /^Hand-off [0-9a-f]+: done by the person\.\nThe tab is at:\n<page (\d+)>\n.* "verified"\n<\/page \1>\nSame page, title changed; the person acted [1-9]\d* times/,
      );
      await expect.poll(() => app.locator('#outcome').textContent()).toMatch(/the agent goes on/);
      await page.close();
    } finally {
      await Promise.all([host.close(), plain.close()]);
    }
  });

  it("with a webhook configured: announced to the person's channel, signed and retried; the agent gets the handle, never the link", async () => {
    const secret = await runCli(env, ['webhook-secret']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const deliveries: Array<{ headers: Record<string, string>; body: string }> = [];
    const channel = await startTestSite((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
        // The channel fails once: the server tries again.
        response.writeHead(deliveries.length === 1 ? 503 : 204).end();
      });
    });
    const configFile = join(env.home, 'config.json');
    const before = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, JSON.stringify({ ...JSON.parse(before), handoffWebhook: { url: `${channel.url}/hook` } }));
    try {
      const tab = await agent.openTab(verifyPage());
      const { link, answer } = handOff('Approve the sign-in on your phone');
      const opened = await link;
      expect(opened).toMatchObject({ state: 'waiting', announced: 'webhook' });
      expect(opened).not.toHaveProperty('link');
      await waitFor(async () => deliveries.length === 2, { timeoutMs: 10_000, message: 'the webhook was not tried again' });
      const [first, second] = deliveries;
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      // Checked as a receiver would, with a Standard Webhooks library and the secret alone.
      const payload = new Webhook(secret).verify(second.body, second.headers) as {
        type: string;
        data: { id: string; reason: string; session: string; targetId: string; link: string };
      };
      expect(payload).toMatchObject({
        type: 'handoff.waiting',
        data: { id: opened.id, reason: 'Approve the sign-in on your phone', session: session.id, targetId: tab.targetId },
      });
      expect(() => new Webhook(secret).verify(second.body.replace('phone', 'PHONE'), second.headers)).toThrow();
      // The person opens the link from their channel.
      const page = await person.newPage();
      await page.goto(payload.data.link);
      await page.getByRole('button', { name: 'Done — continue' }).click();
      expect(await answer).toMatchObject({ id: opened.id, state: 'done' });
      await page.close();
      const { entries } = await env.client('clawd').audit({ event: 'handoff-announce' });
      expect(entries[0]).toMatchObject({ session: session.id, outcome: 'ok', detail: `${opened.id} to ${channel.url}: delivered (try 2)` });
      const code = new URL(payload.data.link).searchParams.get('code')!;
      expect(readFileSync(join(env.home, 'logs', 'audit.jsonl'), 'utf8')).not.toContain(code);
    } finally {
      writeFileSync(configFile, before);
      await channel.close();
    }
  });
});
