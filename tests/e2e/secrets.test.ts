import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { refOf } from '../harness/refs.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, runCli, startControlEnv } from './control-env.js';
import { waitFor } from '../harness/chromium.js';

/**
 * Named secrets typed by the server: stored from stdin, lent to an operator
 * session by its grant, typed into a login form on its domain, and received
 * by the site's server. Then every output an agent or a log can read is
 * searched for the value (snapshots, act answers and diffs, MCP text,
 * console, the network log and its bodies, the HAR, the action log, the
 * audit, the vault's files) and it is in none. The same secret on another
 * domain, a secret the grant does not name, and a profile that is not a
 * session are refused with nothing typed; scripts and traces are refused
 * while the page holds it.
 */

const VALUE = `pw-${randomBytes(9).toString('hex')} !&=`;
const TENANT = 'acme-secrets';
let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
const received: string[] = [];

/**
 * A page that copies what is typed into its password field everywhere a
 * reader could find it: its title, its URL, both storages (as a value and as
 * a name), a cookie named after it, the console, and another tab of its
 * origin, which shows it in its own text and title.
 */
const COPYCAT = `<!doctype html><title>Copycat</title>
  <label>Password <input type="password" id="password"></label>
  <p id="echo">nothing yet</p>
  <script>
    const channel = new BroadcastChannel('copy');
    document.getElementById('password').addEventListener('input', (event) => {
      const v = event.target.value;
      document.title = 'Copied ' + v;
      history.replaceState(null, '', '#' + encodeURIComponent(v));
      localStorage.setItem('copied', v);
      sessionStorage.setItem(v, 'named after it');
      document.cookie = encodeURIComponent(v) + '=1; path=/';
      console.log('copied', v);
      channel.postMessage(v);
    });
    channel.onmessage = (event) => {
      document.getElementById('echo').textContent = 'the other tab got ' + event.data;
      document.title = 'Other ' + event.data;
    };
  </script>`;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/login' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(new URLSearchParams(Buffer.concat(chunks).toString()).get('password') ?? '');
        response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Welcome</title><p>signed in</p>');
      });
      return;
    }
    if (url.pathname === '/copycat') return void response.writeHead(200, { 'content-type': 'text/html' }).end(COPYCAT);
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Log in</title>
      <form method="post" action="/login">
        <label>User <input name="user"></label>
        <label>Password <input type="password" name="password" id="password"></label>
        <label>Recovery code <input name="code" id="code"></label>
        <button>Log in</button>
      </form>
      <script>document.getElementById('code').addEventListener('change', (event) => console.log('code is', event.target.value));</script>`);
  });
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

const base = () => `http://127.0.0.1:${env.server.control.port}`;

const cli = (args: string[], stdin: string) => runCli(env, args, stdin);

describe('named secrets', () => {
  let session: { id: string; profile: string; key?: string; secrets?: string[] };
  let agent: BrowserClient;

  it('are stored from stdin and listed without their value', async () => {
    expect(await cli(['secret-set', '--tenant', TENANT, '--name', 'pw', '--domain', '127.0.0.1'], `${VALUE}\n`)).toBe(`stored ${TENANT} pw (typed only on 127.0.0.1)`);
    expect((await env.client('clawd').secrets(TENANT)).secrets).toEqual([{ tenant: TENANT, name: 'pw', domains: ['127.0.0.1'], savedAt: expect.any(String) }]);
    expect(readFileSync(join(env.home, 'vault', 'secrets.json'), 'utf8')).not.toContain(VALUE.slice(0, 12));
    const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['pw'] });
    session = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
    expect(session.secrets).toEqual(['pw']);
    agent = new BrowserClient({ baseUrl: base(), token: session.key! });
    await expect(env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['nope'] })).rejects.toThrow(`Tenant ${TENANT} has no secret nope`);
  });

  it('are typed on their domain, reach the site, and appear in nothing an agent or a log reads', async () => {
    const tab = await agent.openTab(`${site.url}/login`);
    await agent.record({ action: 'network-start', targetId: tab.targetId });
    const outline = (await agent.snapshot({ targetId: tab.targetId })).text;
    const answers: unknown[] = [];
    answers.push(await agent.act({ kind: 'type', targetId: tab.targetId, ref: refOf(outline, /textbox "Recovery code"/), text: '{{secret:pw}}' }, { diffMaxChars: 5000 }));
    answers.push(await agent.act({ kind: 'fill', targetId: tab.targetId, fields: [{ ref: refOf(outline, /textbox "User"/), value: 'alice' }, { ref: refOf(outline, /textbox "Password"/), value: '{{secret:pw}}' }] }, { diffMaxChars: 5000 }));
    const snapshot = await agent.snapshot({ targetId: tab.targetId });
    expect(snapshot.text).toContain('[secret pw]');
    answers.push(snapshot, await agent.text({ targetId: tab.targetId }), await agent.console({ targetId: tab.targetId }));

    // Through MCP too: the tool's text.
    const mcp = new Client({ name: 'secret-agent', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${session.key}` } } }));
    const typed = await mcp.callTool({ name: 'browser_act', arguments: { targetId: tab.targetId, kind: 'type', ref: refOf(outline, /textbox "Recovery code"/), text: 'again {{secret:pw}}' } });
    answers.push(typed, await mcp.callTool({ name: 'browser_snapshot', arguments: { targetId: tab.targetId } }));
    await mcp.close();

    // Script and trace refusals while the browser holds it.
    expect((await rejection(agent.evaluate("() => document.getElementById('password').value", { targetId: tab.targetId }))).message).toMatch(/^A secret \(pw\) was typed into this browser, so scripts of the caller are refused in it for the rest of its life/);
    expect((await rejection(agent.traceStart())).message).toMatch(/so no trace is recorded \(a trace cannot be redacted\)/);

    answers.push(await agent.click(refOf(outline, /button "Log in"/), { targetId: tab.targetId }));
    expect(received).toEqual([VALUE]);

    const log = await agent.record({ action: 'network', targetId: tab.targetId });
    answers.push(log);
    const post = log.network!.entries!.find((entry) => entry.method === 'POST')!;
    const body = await agent.record({ action: 'request-body', targetId: tab.targetId, id: post.id });
    const sent = Buffer.from(body.body!.base64, 'base64').toString();
    expect(sent).toContain('password=[secret pw]');
    answers.push(sent);
    const har = await env.client(session.profile).record({ action: 'har', targetId: tab.targetId, keep: true });
    answers.push(readFileSync(har.path!, 'utf8'));

    const files = ['logs/actions.jsonl', 'logs/audit.jsonl', 'vault/secrets.json', 'relay.log'].map((file) => join(env.home, file)).filter(existsSync).map((file) => readFileSync(file, 'utf8'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    const everything = JSON.stringify(answers) + files.join('\n');
    for (const form of [VALUE, encodeURIComponent(VALUE), new URLSearchParams([['', VALUE]]).toString().slice(1), VALUE.slice(0, 21)]) expect(everything).not.toContain(form);
    const uses = (await env.client('clawd').audit({ session: session.id, event: 'secret-use' })).entries;
    expect(uses.map((entry) => [entry.detail, entry.domains])).toEqual(expect.arrayContaining([['pw', ['127.0.0.1']]]));

    // A page that navigated away may still hold it (in storage, another document): scripts stay refused, for the token's holder too.
    await agent.navigate(`${site.url}/login?again`, tab.targetId);
    expect(await rejection(agent.evaluate('() => 1 + 1', { targetId: tab.targetId }))).toMatchObject({ code: 'conflict' });
    expect(await rejection(env.client(session.profile).evaluate('() => 1 + 1', { targetId: tab.targetId }))).toMatchObject({ code: 'conflict' });
  });

  it('are refused on another domain, when the grant does not name them, and outside a session, with nothing typed', async () => {
    const elsewhere = await agent.openTab(`${site.url.replace('127.0.0.1', 'localhost')}/login`);
    const outline = (await agent.snapshot({ targetId: elsewhere.targetId })).text;
    const password = refOf(outline, /textbox "Password"/);
    const refused = await rejection(agent.act({ kind: 'fill', targetId: elsewhere.targetId, fields: [{ ref: refOf(outline, /textbox "User"/), value: 'alice' }, { ref: password, value: '{{secret:pw}}' }] }));
    expect(refused.message).toBe('Secret pw may be typed on 127.0.0.1 only, not on localhost: nothing was typed');
    // (Scripts are refused in this browser now: the outline shows the fields' values.)
    expect((await agent.snapshot({ targetId: elsewhere.targetId })).text).not.toMatch(/textbox "(User|Password)".*\[value=/);
    expect((await rejection(agent.act({ kind: 'type', targetId: elsewhere.targetId, ref: password, text: '{{secret:other}}' }))).message).toBe('Secret other is not lent to this session: its grant names pw');

    const managed = env.client('clawd');
    const own = await managed.openTab(`${site.url}/login`);
    const ownOutline = (await managed.snapshot({ targetId: own.targetId })).text;
    expect((await rejection(managed.act({ kind: 'type', targetId: own.targetId, ref: refOf(ownOutline, /textbox "Password"/), text: '{{secret:pw}}' }))).message).toMatch(/^Secrets are lent to task sessions under a grant/);
    await managed.closeTab(own.targetId);

    await env.client('clawd').closeSession(session.id);
  });

  it('a page that copies a typed secret everywhere hands it back through no answer, and nothing of the caller\'s can read it', async () => {
    const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['pw'] });
    const copied = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
    const key = new BrowserClient({ baseUrl: base(), token: copied.key! });
    const holder = env.client(copied.profile);
    const typing = await key.openTab(`${site.url}/copycat`);
    const other = await key.openTab(`${site.url}/copycat`);
    const field = refOf((await key.snapshot({ targetId: typing.targetId })).text, /textbox "Password"/);
    const typeSecret = () => key.act({ kind: 'fill', targetId: typing.targetId, fields: [{ ref: field, value: '{{secret:pw}}' }] });

    // Nothing that could read it may be there when it is typed: a trace, an init script, a fulfilling route, a raw CDP client.
    await key.traceStart();
    expect((await rejection(typeSecret())).message).toMatch(/a trace cannot be redacted: stop it/);
    await key.traceStop({});
    const script = await key.toolbox.addInitScript({ scope: 'profile', script: "addEventListener('input', (e) => console.log([...e.target.value].reverse().join('')), true)" });
    expect((await rejection(typeSecret())).message).toBe(`A secret is typed only where nothing of the caller's could read it, and init scripts ${script.id} are set (DELETE /init-scripts/<id>): nothing was typed`);
    await key.toolbox.removeInitScript(script.id);
    const route = await key.toolbox.addRoute({ scope: 'profile', url: '**/fake', action: 'fulfill', body: '<input type=password>' });
    expect((await rejection(typeSecret())).message).toMatch(new RegExp(`routes ${route.id} fulfil requests`));
    await key.toolbox.removeRoute(route.id);
    const cdpUrl = `ws://127.0.0.1:${env.server.relay.port}/cdp?profile=${copied.profile}&token=${copied.key}`;
    const cdpClients = async () => (await env.client('clawd').sessions()).sessions.find((each) => each.id === copied.id)!.cdpClients;
    const alone = await cdpClients();
    const cdp = new WebSocket(cdpUrl);
    await new Promise((resolve, reject) => cdp.once('open', resolve).once('error', reject));
    expect((await rejection(typeSecret())).message).toMatch(/1 raw CDP client is connected to its browser/);
    cdp.close();
    await waitFor(async () => (await cdpClients()) === alone, { timeoutMs: 5000, message: 'the CDP client did not leave' });
    expect((await key.snapshot({ targetId: typing.targetId })).text).not.toMatch(/\[value=/);

    // Typed now: the page copies it everywhere.
    const answers: unknown[] = [await typeSecret()];
    expect(received.length).toBeGreaterThan(0);
    await waitFor(async () => (await key.tabs()).some((tab) => tab.title.startsWith('Other ')), { timeoutMs: 5000, message: 'the other tab did not hear of it' });
    const tabs = await key.tabs();
    expect(tabs.map((tab) => tab.title).sort()).toEqual(['Copied [secret pw]', 'Other [secret pw]']);
    expect(tabs.find((tab) => tab.targetId === typing.targetId)!.url).toBe(`${site.url}/copycat#[secret pw]`);
    answers.push(tabs, await holder.tabs(), await key.text({ targetId: other.targetId }), await key.snapshot({ targetId: other.targetId }), await key.snapshot({ targetId: typing.targetId }), await key.console({ targetId: typing.targetId }));
    expect(JSON.stringify(answers)).toContain('the other tab got [secret pw]');
    const mcp = new Client({ name: 'copycat-agent', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${copied.key}` } } }));
    answers.push(await mcp.callTool({ name: 'browser_tabs', arguments: {} }), await mcp.callTool({ name: 'browser_snapshot', arguments: { targetId: other.targetId } }));
    await mcp.close();

    // The reads a page could route it through are closed, for the key and the token alike, whichever tab, for the browser's life.
    for (const client of [key, holder]) {
      const refusals = await Promise.all([
        rejection(client.toolbox.storage({ targetId: typing.targetId, kind: 'local' })),
        rejection(client.toolbox.storage({ targetId: other.targetId, kind: 'session' })),
        rejection(client.toolbox.storageState({})),
        rejection(client.toolbox.cookies({})),
        rejection(client.evaluate('() => localStorage.copied', { targetId: other.targetId })),
        rejection(client.toolbox.addInitScript({ scope: 'profile', script: 'console.log(1)' })),
        rejection(client.toolbox.addRoute({ scope: 'profile', url: '**/x', action: 'fulfill', body: 'x' })),
        rejection(client.traceStart()),
      ]);
      for (const refusal of refusals) expect(refusal.message).toMatch(/^A secret \(pw\) was typed into this browser, so /);
    }
    await key.navigate(`${site.url}/copycat?later`, other.targetId);
    expect((await rejection(key.evaluate('() => localStorage.copied', { targetId: other.targetId }))).message).toMatch(/scripts of the caller are refused/);
    const refusedCdp = await new Promise<{ status: number; body: string }>((resolve) => {
      const socket = new WebSocket(cdpUrl);
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      socket.once('error', () => {});
    });
    expect(refusedCdp.status).toBe(409);
    expect(refusedCdp.body).toMatch(/so no raw CDP client joins it/);

    const everything = JSON.stringify(answers);
    for (const form of [VALUE, encodeURIComponent(VALUE), new URLSearchParams([['', VALUE]]).toString().slice(1), VALUE.slice(0, 21)]) expect(everything).not.toContain(form);
    await env.client('clawd').closeSession(copied.id);
  });
});
