import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Confirmation } from '../../relay/src/api/browser-api.js';
import { BrowserClient, ConflictError } from '../../relay/src/client/browser-client.js';
import { chromiumPath, waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A consequential act waits for a yes (spec §20), on real Chromium: a
 * checkout whose Pay button, clicked by ref, sends nothing until the person
 * (Playwright driving the hand-off page in the operator's console, as a
 * person would) says yes; a no, or nobody to ask, is a 409 naming the rule
 * and the site receives nothing. The agent never says its own yes: it gets
 * no link, and its token, key or live-view input are refused a yes.
 * On a task session (its own key), the managed profile through a real MCP
 * client, and the person's shared tab. The token's holder may pre-approve a
 * rule for one session, the session's key never can; a form sent to a
 * domain a rule names, an executable download, a coordinate click and a
 * computer-use click are held to the rules too; every ask, yes and no is in
 * the audit.
 */

let env: ControlEnv;
let person: Browser;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** What the site received: each form sent to it. */
const received: string[] = [];
const base = () => `http://127.0.0.1:${env.server.control.port}`;

const CHECKOUT = `<!doctype html><title>Checkout</title>
<h1>Checkout</h1>
<form method="post" action="/pay">
  <label>Name on card <input name="holder" value="Ada"></label>
  <button>Pay €42</button>
</form>
<form method="post" action="/notes"><label>Note <input name="note"></label><button>Continue</button></form>
<a href="/setup.exe">Get the installer</a>`;

/**
 * A bank's page that offers agents its forms as tools (WebMCP's declarative
 * `<form toolname>`, sent when called), and a script's tool that fetches an
 * installer: the same forms and link a click would be judged on.
 */
const BANK = `<!doctype html><title>Bank</title>
<h1>Bank</h1>
<form toolname="transfer_form" tooldescription="Transfer money to an account" toolautosubmit method="post" action="/transfer">
  <label>IBAN <input name="iban" toolparamdescription="the account to pay" required></label>
  <button>Transfer</button>
</form>
<form toolname="send_form" tooldescription="Send a message to the bank" toolautosubmit method="post" action="/message">
  <label>Message <input name="action" toolparamdescription="what to say" required></label>
  <button>Send</button>
</form>
<form toolname="find_branch" tooldescription="Find a branch near a town" toolautosubmit action="/branches">
  <label>Town <input name="town" toolparamdescription="the town" required></label>
  <button>Find</button>
</form>
<script>
  document.modelContext.registerTool({
    name: 'get_installer', description: 'Download the banking app', inputSchema: { type: 'object', properties: {} },
    async execute() { const a = document.createElement('a'); a.href = '/setup.exe'; document.body.append(a); a.click(); return { content: [{ type: 'text', text: 'started' }] }; },
  });
</script>`;

beforeAll(async () => {
  env = await startControlEnv();
  person = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  site = await startTestSite((request, response, url) => {
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(`${url.pathname} ${Buffer.concat(chunks).toString()}`);
        response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Paid</title><p>Thank you</p>');
      });
      return;
    }
    if (url.pathname === '/bank') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BANK);
    if (url.pathname === '/branches')
      return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Branches</title><p>branches in ${url.searchParams.get('town')}</p>`);
    if (url.pathname === '/setup.exe')
      return void response
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="setup.exe"' })
        .end('MZ not really a program');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(CHECKOUT);
  });
}, 90_000);
afterAll(async () => {
  await person?.close();
  await site?.close();
  await env?.close();
});
beforeEach(() => {
  received.length = 0;
});

/** A task session, the agent driving it with its own key. */
async function sessionAgent(): Promise<{ id: string; agent: BrowserClient }> {
  const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
  return { id: session.id, agent: new BrowserClient({ baseUrl: base(), token: session.key! }) };
}

async function atCheckout(client: BrowserClient, targetId?: string): Promise<{ targetId: string; text: string }> {
  const id = targetId ?? (await client.openTab('about:blank')).targetId;
  await client.navigate(`${site.url}/checkout`, id);
  const snapshot = await client.snapshot({ targetId: id });
  return { targetId: id, text: (snapshot as { text: string }).text };
}

/** The person, logged in to the operator's console, answers on the hand-off's page there; what the page showed them comes back. */
async function answer(handoff: string, verdict: 'yes' | 'no'): Promise<{ heading: string; act: string; outlined: boolean }> {
  const context = await person.newContext();
  const page = await context.newPage();
  await page.goto((await env.client('clawd').dashboardLink()).url);
  await page.waitForURL(/\/console\/[^/]+\/$/);
  await page.goto(`${page.url()}handoff/${handoff}/page`);
  const shown = {
    heading: await page.locator('h1').innerText(),
    act: await page.locator('#act').innerText(),
    outlined: await page.locator('#target').isVisible(),
  };
  await page.getByRole('button', { name: verdict === 'yes' ? 'Yes, do it' : 'No' }).click();
  await page.locator('#outcome').filter({ hasText: 'Thank you' }).waitFor();
  await context.close();
  return shown;
}

describe("a checkout's Pay button, clicked by ref", () => {
  it('with nobody to ask: a 409 naming the rule, and nothing is sent', async () => {
    const { id, agent } = await sessionAgent();
    const { targetId, text } = await atCheckout(agent);
    const refused = await rejection(agent.click(refOf(text, /button "Pay €42"/), { targetId }));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toMatch(/^Not done: to click button "Pay €42" needs a person's yes \(confirm rule payments: button or link or menuitem named/);
    expect(refused.message).toMatch(/no person can be asked here/);
    expect(received).toEqual([]);
    expect((await agent.tabs()).find((tab) => tab.targetId === targetId)?.title).toBe('Checkout');
    const { entries } = await env.client('clawd').audit({ session: id, event: 'confirm-ask' });
    expect(entries[0]).toMatchObject({
      outcome: 'refused',
      detail: expect.stringMatching(/^payments: click button "Pay €42" on session-.*; no person could be asked$/),
    });
    // A click at the button's point is the same click.
    const box = await (await env.server.manager.driver(`session-${id}`).page(targetId)).locator('button', { hasText: 'Pay' }).boundingBox();
    expect(await rejection(agent.clickAt(box!.x + box!.width / 2, box!.y + box!.height / 2, { targetId }))).toBeInstanceOf(ConflictError);
    // So is a computer-use click there, with nobody to ask.
    // (No display given: the model's screen is the viewport, so its pixels are the page's.)
    const computer = await rejection(
      agent.vision.computerAnthropic({
        targetId,
        actions: [{ action: 'left_click', coordinate: [Math.round(box!.x + box!.width / 2), Math.round(box!.y + box!.height / 2)] }],
      } as never),
    );
    expect(computer).toBeInstanceOf(ConflictError);
    expect(computer.message).toMatch(/confirm rule payments.*no person can be asked here/);
    expect(received).toEqual([]);
    await env.client('clawd').closeSession(id);
  });

  it('asked with a person to show it: the site receives nothing until the person says yes on the hand-off page, then the act runs', async () => {
    const { id, agent } = await sessionAgent();
    const { targetId, text } = await atCheckout(agent);
    let asked!: (confirmation: Confirmation) => void;
    const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
    const paying = agent.act({ kind: 'click', ref: refOf(text, /button "Pay €42"/), targetId }, { person: true, onConfirmation: asked });
    const confirmation = await waiting;
    expect(confirmation).toMatchObject({ rule: 'payments', act: 'click button "Pay €42"', state: 'waiting', askedIn: ['console'] });
    expect(confirmation).not.toHaveProperty('link');
    // Nothing yet: the page has not been touched.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received).toEqual([]);
    const shown = await answer(confirmation.id, 'yes');
    expect(shown).toEqual({ heading: 'The agent asks for your yes', act: expect.stringContaining('The agent would click button "Pay €42"'), outlined: true });
    const paid = await paying;
    expect(paid).toMatchObject({
      kind: 'click',
      url: `${site.url}/pay`,
      title: 'Paid',
      confirmed: { rule: 'payments', by: 'person', handoff: confirmation.id },
    });
    expect(received).toEqual(['/pay holder=Ada']);
    const { entries } = await env.client('clawd').audit({ session: id });
    expect(entries.map((entry) => entry.event)).toEqual(expect.arrayContaining(['confirm-ask', 'confirm-yes', 'handoff-open', 'handoff-end']));
    await env.client('clawd').closeSession(id);
  });

  it('a computer-use batch pauses at an Enter on the Pay button for the person, and the rest of it runs on their yes', async () => {
    const { id, agent } = await sessionAgent();
    const { targetId } = await atCheckout(agent);
    const page = await env.server.manager.driver(`session-${id}`).page(targetId);
    const field = await page.locator('input[name=holder]').boundingBox();
    let asked!: (confirmation: Confirmation) => void;
    const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
    // The name typed, Tab to the Pay button, Enter on it (the press the rule names), then one more key after.
    const actions = [
      { action: 'left_click', coordinate: [Math.round(field!.x + 5), Math.round(field!.y + field!.height / 2)] },
      { action: 'key', text: 'ctrl+a' },
      { action: 'type', text: 'Grace' },
      { action: 'key', text: 'Tab' },
      { action: 'key', text: 'Return' },
      { action: 'key', text: 'End' },
    ];
    const batch = agent.vision.computerAnthropic({ targetId, actions } as never, { person: true, onConfirmation: asked });
    const confirmation = await waiting;
    expect(confirmation).toMatchObject({ rule: 'payments', act: 'press Enter on button "Pay €42"', state: 'waiting', askedIn: ['console'] });
    // What came before the press ran; the press has not: nothing is sent, the field holds the typed name.
    expect(await page.locator('input[name=holder]').inputValue()).toBe('Grace');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Pay €42');
    expect(received).toEqual([]);
    await answer(confirmation.id, 'yes');
    const done = await batch;
    expect(done).toMatchObject({
      performed: actions.length,
      url: `${site.url}/pay`,
      title: 'Paid',
      confirmed: { rule: 'payments', by: 'person', handoff: confirmation.id },
    });
    expect(received).toEqual(['/pay holder=Grace']);
    const { entries } = await env.client('clawd').audit({ session: id });
    expect(entries.map((entry) => entry.event)).toEqual(expect.arrayContaining(['confirm-ask', 'confirm-yes']));
    await env.client('clawd').closeSession(id);
  });

  it("a session's key cannot say its own yes: no link comes to it, and nothing it holds says yes or clicks past the rule", async () => {
    const { id, agent } = await sessionAgent();
    const key = (agent as unknown as { options: { token: string } }).options.token;
    const keyed = (path: string, init: RequestInit = {}) =>
      fetch(`${base()}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
    const { targetId, text } = await atCheckout(agent);
    // The attack: ask with ?person=true, open the answer's link itself (it needs no credential), say done.
    const asked = await keyed('/act?person=true', { method: 'POST', body: JSON.stringify({ kind: 'click', ref: refOf(text, /button "Pay €42"/), targetId }) });
    expect(asked.status).toBe(200);
    const { confirmation } = (await asked.json()) as { confirmation: Confirmation & { link?: string } };
    expect(confirmation).toMatchObject({ rule: 'payments', state: 'waiting', askedIn: ['console'] });
    expect(confirmation.link).toBeUndefined();
    expect(JSON.stringify(await agent.handoffState(confirmation.id, 0))).not.toMatch(/\/open\?code=/);
    // Nothing it holds says yes: its key, the token, a hand-off link of its own (for another hand-off), a code it guesses.
    expect((await keyed(`/handoff/${confirmation.id}/answer`, { method: 'POST', body: JSON.stringify({ verdict: 'done' }) })).status).toBe(403);
    const byToken = await env.raw(`/handoff/${confirmation.id}/answer`, { method: 'POST', body: JSON.stringify({ verdict: 'done' }) });
    expect(byToken.status).toBe(403);
    expect((await byToken.json()).error.message).toMatch(
      /^A yes to an act a confirm rule names \(payments\) is a person's: it is said in the operator's console/,
    );
    const own = await agent.openHandoff({ reason: 'Log in for me', targetId });
    const opened = await fetch(own.link!, { redirect: 'manual' });
    const cookie = opened.headers.get('set-cookie')!.split(';')[0];
    expect(
      (
        await fetch(`${base()}/handoff/${confirmation.id}/answer`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ verdict: 'done' }),
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${base()}/handoff/${confirmation.id}/open?code=${'0'.repeat(32)}`)).status).toBe(403);
    // Nor does it click Pay itself through a live view: its own, or its hand-off's (the input of a link it was handed).
    const box = await (await env.server.manager.driver(`session-${id}`).page(targetId)).locator('button', { hasText: 'Pay' }).boundingBox();
    const viewport = await (await env.server.manager.driver(`session-${id}`).page(targetId)).evaluate(() => ({ width: innerWidth, height: innerHeight }));
    const click = JSON.stringify({ targetId, type: 'click', x: (box!.x + box!.width / 2) / viewport.width, y: (box!.y + box!.height / 2) / viewport.height });
    const viaView = await keyed('/screencast/input', { method: 'POST', body: click });
    expect(viaView.status).toBe(409);
    expect((await viaView.json()).error.message).toMatch(
      /confirm rule payments.*input an agent sends through the live view is the agent's own act, not a person's yes/,
    );
    const viaHandoff = await fetch(`${base()}/handoff/${own.id}/input`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'click', x: (box!.x + box!.width / 2) / viewport.width, y: (box!.y + box!.height / 2) / viewport.height }),
    });
    expect(viaHandoff.status).toBe(409);
    await agent.cancelHandoff(own.id);
    expect(received).toEqual([]);
    expect((await agent.handoffState(confirmation.id, 0)).state).toBe('waiting');
    // The person's yes, in the console, is the one that runs it.
    await answer(confirmation.id, 'yes');
    expect(await agent.handoffState(confirmation.id, 30)).toMatchObject({ state: 'done', act: { title: 'Paid', confirmed: { by: 'person' } } });
    expect(received).toEqual(['/pay holder=Ada']);
    await env.client('clawd').closeSession(id);
  });

  it("the person's no: a 409 saying so, and nothing is sent", async () => {
    const { id, agent } = await sessionAgent();
    const { targetId, text } = await atCheckout(agent);
    let asked!: (confirmation: Confirmation) => void;
    const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
    const paying = rejection(agent.act({ kind: 'click', ref: refOf(text, /button "Pay €42"/), targetId }, { person: true, onConfirmation: asked }));
    await answer((await waiting).id, 'no');
    const refused = await paying;
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toMatch(/confirm rule payments.*and the person said no/);
    expect(received).toEqual([]);
    expect((await env.client('clawd').audit({ session: id, event: 'confirm-no' })).entries).toHaveLength(1);
    await env.client('clawd').closeSession(id);
  });

  it("over HTTP the answer comes at once with the hand-off's handle, and its hand-off carries the act's answer after the yes", async () => {
    const { id, agent } = await sessionAgent();
    const { targetId, text } = await atCheckout(agent);
    const response = await fetch(`${base()}/act?person=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(agent as unknown as { options: { token: string } }).options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'click', ref: refOf(text, /button "Pay €42"/), targetId }),
    });
    expect(response.status).toBe(200);
    const held = (await response.json()) as { confirmation: Confirmation; fence: string };
    expect(held.confirmation).toMatchObject({ rule: 'payments', state: 'waiting' });
    expect(held.fence).toMatch(/^\d{3,}$/);
    expect(received).toEqual([]);
    await answer(held.confirmation.id, 'yes');
    const ended = await agent.handoffState(held.confirmation.id, 30);
    expect(ended).toMatchObject({ state: 'done', confirm: { rule: 'payments' }, act: { kind: 'click', title: 'Paid', confirmed: { by: 'person' } } });
    expect(received).toEqual(['/pay holder=Ada']);
    await env.client('clawd').closeSession(id);
  });

  it("the token's holder may pre-approve the rule for one session; the session's own key never can", async () => {
    const { id, agent } = await sessionAgent();
    const byKey = await fetch(`${base()}/sessions/${id}/approvals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(agent as unknown as { options: { token: string } }).options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rule: 'payments' }),
    });
    expect(byKey.status).toBe(403);
    expect(await rejection(env.client('clawd').approveRule(id, 'no-such-rule'))).toHaveProperty(
      'message',
      expect.stringMatching(/No confirm rule "no-such-rule"/),
    );
    expect(await env.client('clawd').approveRule(id, 'payments')).toEqual({ session: id, approved: ['payments'] });
    const { targetId, text } = await atCheckout(agent);
    const paid = await agent.click(refOf(text, /button "Pay €42"/), { targetId });
    expect(paid).toMatchObject({ title: 'Paid', confirmed: { rule: 'payments', by: 'pre-approval' } });
    expect(received).toEqual(['/pay holder=Ada']);
    const events = (await env.client('clawd').audit({ session: id })).entries.map((entry) => entry.event);
    expect(events).toEqual(expect.arrayContaining(['confirm-approve', 'confirm-yes']));
    // Another session is not approved by it.
    const other = await sessionAgent();
    const atOther = await atCheckout(other.agent);
    expect(await rejection(other.agent.click(refOf(atOther.text, /button "Pay €42"/), { targetId: atOther.targetId }))).toBeInstanceOf(ConflictError);
    await env.client('clawd').closeSession(other.id);
    await env.client('clawd').closeSession(id);
  });
});

describe('the other rules', () => {
  it('a form sent to a domain a rule names (a click, or Enter in its field), and an executable download, wait for a yes too', async () => {
    const path = join(env.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      path,
      JSON.stringify({
        ...config,
        confirm: {
          rules: [
            { name: 'notes-site', formTo: ['127.0.0.1'] },
            { name: 'executables', download: ['exe'] },
          ],
        },
      }),
    );
    try {
      const { id, agent } = await sessionAgent();
      const { targetId, text } = await atCheckout(agent);
      const clicked = await rejection(agent.click(refOf(text, /button "Continue"/), { targetId }));
      expect(clicked.message).toMatch(
        /^Not done: to click button "Continue", sending a form to 127\.0\.0\.1:\d+ needs a person's yes \(confirm rule notes-site/,
      );
      const entered = await rejection(agent.type(refOf(text, /textbox "Note"/), 'hello', { submit: true, targetId }));
      expect(entered.message).toMatch(/to press Enter in its field, sending a form to 127\.0\.0\.1:\d+ needs a person's yes \(confirm rule notes-site/);
      expect(received).toEqual([]);
      // The installer: held, and with nobody to ask, not kept.
      await agent.click(refOf(text, /link "Get the installer"/), { targetId });
      await waitFor(async () => (await agent.downloads()).downloads.some((download) => download.state === 'failed'), {
        message: 'the download was never decided',
      });
      const [download] = (await agent.downloads()).downloads;
      expect(download).toMatchObject({ state: 'failed', error: expect.stringMatching(/^not kept: confirm rule executables .*no person can be asked here/) });
      expect(download.path).toBeUndefined();
      expect((await env.client('clawd').audit({ session: id, event: 'confirm-ask' })).entries.length).toBeGreaterThanOrEqual(3);
      await env.client('clawd').closeSession(id);
    } finally {
      writeFileSync(path, JSON.stringify(config));
    }
  });
});

describe('a tool the page offers and marks consequential (WebMCP)', () => {
  it('is called only on a yes: with nobody to ask a 409 naming the rule, with a person asked it runs once they say so', async () => {
    const client = env.client('clawd');
    const tab = await client.openTab(env.fixtures.url('page-tools.html'));
    const paid = async () => (await client.evaluate('() => document.getElementById("paid").textContent', { targetId: tab.targetId })).result;
    const before = await paid();
    const refused = await rejection(client.pageTools.call({ targetId: tab.targetId, name: 'pay', input: {} }));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toMatch(
      /^Not done: to call the page's tool "pay" needs a person's yes \(confirm rule page-tools: a page tool the page marks consequential\)/,
    );
    expect(await paid()).toBe(before);
    // A tool it does not mark is called at once.
    expect((await client.pageTools.call({ targetId: tab.targetId, name: 'add_to_cart', input: { sku: 'p1' } })).status).toBe('Completed');
    let asked!: (confirmation: Confirmation) => void;
    const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
    const paying = client.pageTools.call({ targetId: tab.targetId, name: 'pay', input: {} }, { person: true, onConfirmation: asked });
    const confirmation = await waiting;
    expect(confirmation).toMatchObject({ rule: 'page-tools', act: 'call the page\'s tool "pay"' });
    expect(await paid()).toBe(before);
    await answer(confirmation.id, 'yes');
    expect(await paying).toMatchObject({ tool: 'pay', status: 'Completed', confirmed: { rule: 'page-tools', by: 'person' } });
    expect(await paid()).toBe('paid');
    await client.closeTab(tab.targetId);
  });
});

describe('a page tool, judged by every rule an act is', () => {
  it("a form's tool waits for the yes a click on its button would: by the button, by the form's action; a download it starts is held", async () => {
    const path = join(env.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const { id, agent } = await sessionAgent();
    try {
      const { targetId } = await agent.openTab(`${site.url}/bank`);
      await waitFor(async () => (await agent.pageTools.list({ targetId })).tools.length === 4, { message: 'the bank never offered its tools' });
      // A click on Transfer is a 409 (the default payments rule)…
      const text = (await agent.snapshot({ targetId })).text;
      expect(await rejection(agent.click(refOf(text, /button "Transfer"/), { targetId }))).toBeInstanceOf(ConflictError);
      // …and so is the tool that sends the same form with the same button.
      const refused = await rejection(agent.pageTools.call({ targetId, name: 'transfer_form', input: { iban: 'ATTACKER-IBAN-666' } }));
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused.message).toMatch(
        /^Not done: to call the page's tool "transfer_form", which sends its form with button "Transfer" needs a person's yes \(confirm rule payments: /,
      );
      expect(received).toEqual([]);
      // A form no rule names is sent at once.
      expect(await agent.pageTools.call({ targetId, name: 'find_branch', input: { town: 'Graz' } })).toMatchObject({
        status: 'Completed',
        navigated: true,
        url: `${site.url}/branches?town=Graz`,
      });
      await agent.navigate(`${site.url}/bank`, targetId);
      await waitFor(async () => (await agent.pageTools.list({ targetId })).tools.length === 4, { message: 'the bank never offered its tools again' });

      // With a rule naming the bank's domain: a form's tool sending there waits, whatever its button says (a field named "action" hides nothing).
      writeFileSync(
        path,
        JSON.stringify({
          ...config,
          confirm: {
            rules: [
              { name: 'bank', formTo: ['127.0.0.1'] },
              { name: 'executables', download: ['exe'] },
            ],
          },
        }),
      );
      const byForm = await rejection(agent.pageTools.call({ targetId, name: 'send_form', input: { action: 'hello' } }));
      expect(byForm.message).toMatch(
        /^Not done: to call the page's tool "send_form", sending a form to 127\.0\.0\.1:\d+ needs a person's yes \(confirm rule bank: a form sent to 127\.0\.0\.1\)/,
      );
      expect(received).toEqual([]);
      // A download a script's tool starts is held by the download rule, and with nobody to ask not kept.
      expect(await agent.pageTools.call({ targetId, name: 'get_installer', input: {} })).toMatchObject({ status: 'Completed' });
      await waitFor(async () => (await agent.downloads()).downloads.some((download) => download.state === 'failed'), {
        message: 'the download was never decided',
      });
      expect((await agent.downloads()).downloads[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(/^not kept: confirm rule executables /) });
      writeFileSync(path, JSON.stringify(config));

      // With a person at hand, the form goes once they say yes in the console.
      let asked!: (confirmation: Confirmation) => void;
      const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
      const paying = agent.pageTools.call({ targetId, name: 'transfer_form', input: { iban: 'DE00-OWN' } }, { person: true, onConfirmation: asked });
      const confirmation = await waiting;
      expect(confirmation).toMatchObject({ rule: 'payments', act: 'call the page\'s tool "transfer_form", which sends its form with button "Transfer"' });
      expect(received).toEqual([]);
      await answer(confirmation.id, 'yes');
      expect(await paying).toMatchObject({ tool: 'transfer_form', status: 'Completed', confirmed: { rule: 'payments', by: 'person' } });
      await waitFor(() => received.length > 0, { message: 'the form never reached the bank' });
      expect(received).toEqual(['/transfer iban=DE00-OWN']);
    } finally {
      writeFileSync(path, JSON.stringify(config));
      await env.client('clawd').closeSession(id);
    }
  });
});

describe('where a person is reachable', () => {
  it('through a real MCP client with the handoff group: browser_act waits, the progress says where the person is asked, their yes runs it', async () => {
    const mcp = new Client({ name: 'confirm-agent', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base()}/mcp?caps=handoff`), { requestInit: { headers: { authorization: `Bearer ${env.server.token}` } } }),
    );
    try {
      const client = env.client('clawd');
      const { targetId, text } = await atCheckout(client);
      const progress: string[] = [];
      const calling = mcp.callTool(
        { name: 'browser_act', arguments: { profile: 'clawd', targetId, kind: 'click', ref: refOf(text, /button "Pay €42"/) } },
        undefined,
        {
          onprogress: (update) => void progress.push(String(update.message)),
          timeout: 60_000,
        },
      );
      await waitFor(async () => progress.length > 0, { message: 'no progress notification came' });
      expect(progress[0]).toBe("Waiting for a person's yes (rule payments): asked in the operator's console (clawd-browser dashboard).");
      expect(received).toEqual([]);
      const [waiting] = (await client.handoffs()).handoffs.filter(
        (handoff) => handoff.profile === 'clawd' && handoff.targetId === targetId && handoff.confirm?.rule === 'payments',
      );
      await answer(waiting.id, 'yes');
      const result = (await calling) as { content: Array<{ text: string }>; isError?: boolean };
      const said = result.content.map((part) => part.text).join('\n');
      expect(result.isError, said).toBeFalsy();
      expect(said.split('\n').slice(0, 2)).toEqual(['click: done', 'A person said yes (rule payments).']);
      expect(received).toEqual(['/pay holder=Ada']);
    } finally {
      await mcp.close();
    }
  });

  it("on the person's own shared tab: their Chrome is there to ask, so the act waits for them", async () => {
    const user = env.client('extension');
    const [tab] = await user.tabs();
    const { targetId, text } = await atCheckout(user, tab.targetId);
    let asked!: (confirmation: Confirmation) => void;
    const waiting = new Promise<Confirmation>((resolve) => (asked = resolve));
    const paying = user.act({ kind: 'click', ref: refOf(text, /button "Pay €42"/), targetId }, { onConfirmation: asked });
    const confirmation = await waiting;
    // Their Chrome is asked (a notification with a link of its own), and the console too; the agent gets no link.
    expect(confirmation).toMatchObject({ askedIn: ['console', 'extension'] });
    expect(confirmation).not.toHaveProperty('link');
    expect(received).toEqual([]);
    await answer(confirmation.id, 'yes');
    expect(await paying).toMatchObject({ title: 'Paid', confirmed: { by: 'person' } });
    expect(received).toEqual(['/pay holder=Ada']);
    await user.navigate(env.fixtures.url('index.html?user=1'), targetId);
  });
});

describe('bad input', () => {
  it('a pre-approval for no session is a 404; a config with a bad rule names the field', async () => {
    expect(await rejection(env.client('clawd').approveRule('nosuch', 'payments'))).toHaveProperty('message', expect.stringMatching(/No task session "nosuch"/));
    const response = await env.raw('/sessions/x/approvals', { method: 'POST', body: JSON.stringify({ rule: '' }) });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/rule/);
  });
});
