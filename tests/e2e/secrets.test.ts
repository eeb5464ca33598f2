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
import { type ControlEnv, runCli, startControlEnv } from '../harness/control-env.js';
import { waitFor } from '../harness/chromium.js';
import { recordCall } from '../../relay/src/mcp/record-call.js';

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

/** A login page that copies nothing itself: whatever reads the password here is someone else's code. */
const QUIET = `<!doctype html><title>Sign in</title>
  <form method="post" action="/login"><label>Password <input type="password" name="password" id="password"></label><button>Sign in</button></form>`;

/** The listener an agent plants before the typing: the value, reversed, in the title, where no redaction looks for it. */
const LISTENER =
  "() => { const pw = document.getElementById('password'); pw.addEventListener('input', () => { document.title = 'r:' + [...pw.value].reverse().join(''); console.log('r:' + [...pw.value].reverse().join('')); }); return 'planted'; }";

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
    if (url.pathname === '/quiet') return void response.writeHead(200, { 'content-type': 'text/html' }).end(QUIET);
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
    expect(await cli(['secret-set', '--tenant', TENANT, '--name', 'pw', '--domain', '127.0.0.1'], `${VALUE}\n`)).toBe(
      `stored ${TENANT} pw (typed only on 127.0.0.1)`,
    );
    expect((await env.client('clawd').secrets(TENANT)).secrets).toEqual([{ tenant: TENANT, name: 'pw', domains: ['127.0.0.1'], savedAt: expect.any(String) }]);
    expect(readFileSync(join(env.home, 'vault', 'secrets.json'), 'utf8')).not.toContain(VALUE.slice(0, 12));
    const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['pw'] });
    session = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
    expect(session.secrets).toEqual(['pw']);
    agent = new BrowserClient({ baseUrl: base(), token: session.key! });
    await expect(env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['nope'] })).rejects.toThrow(
      `Tenant ${TENANT} has no secret nope`,
    );
  });

  it('are typed on their domain, reach the site, and appear in nothing an agent or a log reads', async () => {
    const tab = await agent.openTab(`${site.url}/login`);
    await recordCall(agent, { action: 'network-start', targetId: tab.targetId });
    const outline = (await agent.snapshot({ targetId: tab.targetId })).text;
    const answers: unknown[] = [];
    answers.push(
      await agent.act({ kind: 'type', targetId: tab.targetId, ref: refOf(outline, /textbox "Recovery code"/), text: '{{secret:pw}}' }, { diffMaxChars: 5000 }),
    );
    answers.push(
      await agent.act(
        {
          kind: 'fill',
          targetId: tab.targetId,
          fields: [
            { ref: refOf(outline, /textbox "User"/), value: 'alice' },
            { ref: refOf(outline, /textbox "Password"/), value: '{{secret:pw}}' },
          ],
        },
        { diffMaxChars: 5000 },
      ),
    );
    const snapshot = await agent.snapshot({ targetId: tab.targetId });
    expect(snapshot.text).toContain('[secret pw]');
    answers.push(snapshot, await agent.text({ targetId: tab.targetId }));
    // The page logs what was typed in a field (its own console.log): a browser that holds a secret answers no console read.
    for (const client of [agent, env.client(session.profile)])
      expect((await rejection(client.console({ targetId: tab.targetId }))).message).toMatch(
        /^A secret \(pw\) was typed into this browser, so its console messages are not read/,
      );

    // Through MCP too: the tool's text.
    const mcp = new Client({ name: 'secret-agent', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${session.key}` } } }));
    const typed = await mcp.callTool({
      name: 'browser_act',
      arguments: { targetId: tab.targetId, kind: 'type', ref: refOf(outline, /textbox "Recovery code"/), text: 'again {{secret:pw}}' },
    });
    answers.push(typed, await mcp.callTool({ name: 'browser_snapshot', arguments: { targetId: tab.targetId } }));
    await mcp.close();

    // Script and trace refusals while the browser holds it.
    expect((await rejection(agent.evaluate("() => document.getElementById('password').value", { targetId: tab.targetId }))).message).toMatch(
      /^A secret \(pw\) was typed into this browser, so scripts of the caller are refused in it for the rest of its life/,
    );
    expect((await rejection(agent.traceStart())).message).toMatch(/so no trace is recorded \(a trace cannot be redacted\)/);

    answers.push(await agent.click(refOf(outline, /button "Log in"/), { targetId: tab.targetId }));
    expect(received).toEqual([VALUE]);

    const log = await recordCall(agent, { action: 'network', targetId: tab.targetId });
    answers.push(log);
    const post = log.network!.entries!.find((entry) => entry.method === 'POST')!;
    const body = await recordCall(agent, { action: 'request-body', targetId: tab.targetId, id: post.id });
    const sent = Buffer.from(body.body!.base64, 'base64').toString();
    expect(sent).toContain('password=[secret pw]');
    answers.push(sent);
    const har = await recordCall(env.client(session.profile), { action: 'har', targetId: tab.targetId, keep: true });
    answers.push(readFileSync(har.path!, 'utf8'));

    const files = ['logs/actions.jsonl', 'logs/audit.jsonl', 'vault/secrets.json', 'relay.log']
      .map((file) => join(env.home, file))
      .filter(existsSync)
      .map((file) => readFileSync(file, 'utf8'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    const everything = JSON.stringify(answers) + files.join('\n');
    for (const form of [VALUE, encodeURIComponent(VALUE), new URLSearchParams([['', VALUE]]).toString().slice(1), VALUE.slice(0, 21)])
      expect(everything).not.toContain(form);
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
    const refused = await rejection(
      agent.act({
        kind: 'fill',
        targetId: elsewhere.targetId,
        fields: [
          { ref: refOf(outline, /textbox "User"/), value: 'alice' },
          { ref: password, value: '{{secret:pw}}' },
        ],
      }),
    );
    expect(refused.message).toBe('Secret pw may be typed on 127.0.0.1 only, not on localhost: nothing was typed');
    // (Scripts are refused in this browser now: the outline shows the fields' values.)
    expect((await agent.snapshot({ targetId: elsewhere.targetId })).text).not.toMatch(/textbox "(User|Password)".*\[value=/);
    expect((await rejection(agent.act({ kind: 'type', targetId: elsewhere.targetId, ref: password, text: '{{secret:other}}' }))).message).toBe(
      'Secret other is not lent to this session: its grant names pw',
    );

    const managed = env.client('clawd');
    const own = await managed.openTab(`${site.url}/login`);
    const ownOutline = (await managed.snapshot({ targetId: own.targetId })).text;
    expect(
      (await rejection(managed.act({ kind: 'type', targetId: own.targetId, ref: refOf(ownOutline, /textbox "Password"/), text: '{{secret:pw}}' }))).message,
    ).toMatch(/^Secrets are lent to task sessions under a grant/);
    await managed.closeTab(own.targetId);

    await env.client('clawd').closeSession(session.id);
  });

  it("a listener the caller planted before the typing hears nothing: a browser where code of the caller's ran takes no secret", async () => {
    const reversed = [...VALUE].reverse().join('');
    const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['pw'] });
    /** A fresh operator session with the secret lent, at the quiet login page, and what types it there. */
    const fresh = async () => {
      const opened = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
      const key = new BrowserClient({ baseUrl: base(), token: opened.key! });
      const tab = await key.openTab(`${site.url}/quiet`);
      const field = refOf((await key.snapshot({ targetId: tab.targetId })).text, /textbox "Password"/);
      const typeSecret = (targetId = tab.targetId) => key.act({ kind: 'fill', targetId, fields: [{ ref: field, value: '{{secret:pw}}' }] });
      return { opened, key, tab, typeSecret };
    };
    const unfit =
      /^Code of the caller's ran in this browser \((.+)\), so no secret is typed into it for the rest of its life: .* Nothing was typed\. Type secrets in a browser no code of the caller's ran in: open a fresh task session/;
    const sent = received.length;

    // The attack: a listener planted with evaluate, then the secret typed; the title carries it out reversed.
    const planted = await fresh();
    expect((await planted.key.evaluate(LISTENER, { targetId: planted.tab.targetId })).result).toBe('planted');
    const refused = await rejection(planted.typeSecret());
    expect(refused).toMatchObject({ code: 'conflict', details: { next: 'open-session' } });
    expect(refused.message).toMatch(unfit);
    expect(unfit.exec(refused.message)![1]).toBe('evaluate');
    const tabs = await planted.key.tabs();
    expect(JSON.stringify(tabs)).not.toContain(reversed);
    expect(tabs.find((tab) => tab.targetId === planted.tab.targetId)!.title).toBe('Sign in');
    expect(JSON.stringify(await planted.key.console({ targetId: planted.tab.targetId }))).not.toContain(reversed);
    // Whichever tab the code ran in, and for the token's holder too: the browser is what was touched.
    const second = await planted.key.openTab(`${site.url}/quiet`);
    expect((await rejection(planted.typeSecret(second.targetId))).message).toMatch(unfit);
    expect(
      (
        await rejection(
          env.client(planted.opened.profile).act({
            kind: 'fill',
            targetId: second.targetId,
            fields: [{ ref: refOf((await planted.key.snapshot({ targetId: second.targetId })).text, /textbox "Password"/), value: '{{secret:pw}}' }],
          }),
        )
      ).message,
    ).toMatch(unfit);
    await env.client('clawd').closeSession(planted.opened.id);

    // Every other way code of the caller's reaches a browser does the same, even once it is taken away again.
    const script = await fresh();
    const added = await script.key.toolbox.addInitScript({
      scope: 'profile',
      script: "addEventListener('input', (e) => console.log([...e.target.value].reverse().join('')), true)",
    });
    await script.key.toolbox.removeInitScript(added.id);
    expect(unfit.exec((await rejection(script.typeSecret())).message)?.[1]).toBe('an init script');
    await env.client('clawd').closeSession(script.opened.id);

    const route = await fresh();
    const fulfils = await route.key.toolbox.addRoute({
      scope: 'profile',
      url: '**/quiet',
      action: 'fulfill',
      body: '<input type=password id=password><script>password.oninput = () => document.title = password.value</script>',
    });
    await route.key.toolbox.removeRoute(fulfils.id);
    expect(unfit.exec((await rejection(route.typeSecret())).message)?.[1]).toBe('a route that fulfils requests');
    await env.client('clawd').closeSession(route.opened.id);

    const raw = await fresh();
    const cdp = new WebSocket(`ws://127.0.0.1:${env.server.relay.port}/cdp?profile=${raw.opened.profile}&token=${raw.opened.key}`);
    await new Promise((resolve, reject) => cdp.once('open', resolve).once('error', reject));
    cdp.close();
    await waitFor(async () => (await env.client('clawd').sessions()).sessions.find((each) => each.id === raw.opened.id)!.cdpClients === 0, {
      timeoutMs: 5000,
      message: 'the CDP client did not leave',
    });
    expect(unfit.exec((await rejection(raw.typeSecret())).message)?.[1]).toBe('a raw CDP client');
    await env.client('clawd').closeSession(raw.opened.id);

    // What is not code of the caller's leaves the browser fit: acts, page tools, the page's own scripts, storage it was lent.
    const clean = await fresh();
    await clean.key.click(refOf((await clean.key.snapshot({ targetId: clean.tab.targetId })).text, /textbox "Password"/), { targetId: clean.tab.targetId });
    await clean.key.toolbox.setStorage({ targetId: clean.tab.targetId, kind: 'local', items: { theme: 'dark' } });
    await clean.typeSecret();
    await clean.key.click(refOf((await clean.key.snapshot({ targetId: clean.tab.targetId })).text, /button "Sign in"/), { targetId: clean.tab.targetId });
    await waitFor(() => received.length > sent, { timeoutMs: 5000, message: 'the site never received the secret' });
    expect(received.at(-1)).toBe(VALUE);
    // …and from then on the other way round holds: nothing of the caller's runs in it.
    expect((await rejection(clean.key.evaluate(LISTENER, { targetId: clean.tab.targetId }))).message).toMatch(
      /^A secret \(pw\) was typed into this browser, so scripts of the caller are refused in it/,
    );
    await env.client('clawd').closeSession(clean.opened.id);
    // Nothing a key could read held the value, in any form.
    expect(received.slice(sent, -1)).toEqual([]);
  });

  it("a page that copies a typed secret everywhere hands it back through no answer, and nothing of the caller's can read it", async () => {
    const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['pw'] });
    const copied = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
    const key = new BrowserClient({ baseUrl: base(), token: copied.key! });
    const holder = env.client(copied.profile);
    const typing = await key.openTab(`${site.url}/copycat`);
    const other = await key.openTab(`${site.url}/copycat`);
    const field = refOf((await key.snapshot({ targetId: typing.targetId })).text, /textbox "Password"/);
    const typeSecret = () => key.act({ kind: 'fill', targetId: typing.targetId, fields: [{ ref: field, value: '{{secret:pw}}' }] });

    // A trace could read it: typing waits for it to stop.
    await key.traceStart();
    expect((await rejection(typeSecret())).message).toMatch(/a trace cannot be redacted: stop it/);
    await key.traceStop({});
    const cdpUrl = `ws://127.0.0.1:${env.server.relay.port}/cdp?profile=${copied.profile}&token=${copied.key}`;
    expect((await key.snapshot({ targetId: typing.targetId })).text).not.toMatch(/\[value=/);

    // Typed now: the page copies it everywhere.
    const answers: unknown[] = [await typeSecret()];
    expect(received.length).toBeGreaterThan(0);
    await waitFor(async () => (await key.tabs()).some((tab) => tab.title.startsWith('Other ')), {
      timeoutMs: 5000,
      message: 'the other tab did not hear of it',
    });
    const tabs = await key.tabs();
    expect(tabs.map((tab) => tab.title).sort()).toEqual(['Copied [secret pw]', 'Other [secret pw]']);
    expect(tabs.find((tab) => tab.targetId === typing.targetId)!.url).toBe(`${site.url}/copycat#[secret pw]`);
    answers.push(
      tabs,
      await holder.tabs(),
      await key.text({ targetId: other.targetId }),
      await key.snapshot({ targetId: other.targetId }),
      await key.snapshot({ targetId: typing.targetId }),
    );
    expect(JSON.stringify(answers)).toContain('the other tab got [secret pw]');
    const mcp = new Client({ name: 'copycat-agent', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${copied.key}` } } }));
    answers.push(
      await mcp.callTool({ name: 'browser_tabs', arguments: {} }),
      await mcp.callTool({ name: 'browser_snapshot', arguments: { targetId: other.targetId } }),
    );
    await mcp.close();

    // The reads a page could route it through are closed, for the key and the token alike, whichever tab, for the browser's life.
    for (const client of [key, holder]) {
      const refusals = await Promise.all([
        rejection(client.toolbox.storage({ targetId: typing.targetId, kind: 'local' })),
        rejection(client.toolbox.storage({ targetId: other.targetId, kind: 'session' })),
        rejection(client.toolbox.storageState({})),
        rejection(client.toolbox.cookies({})),
        rejection(client.console({ targetId: typing.targetId })),
        rejection(client.console({ targetId: other.targetId })),
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
    for (const form of [VALUE, encodeURIComponent(VALUE), new URLSearchParams([['', VALUE]]).toString().slice(1), VALUE.slice(0, 21)])
      expect(everything).not.toContain(form);
    await env.client('clawd').closeSession(copied.id);
  });
});
