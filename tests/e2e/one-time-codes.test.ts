import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { refOf } from '../harness/refs.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, runCli, startControlEnv } from '../harness/control-env.js';
import { recordCall } from '../../relay/src/mcp/record-call.js';

/**
 * One-time codes typed by the server: a site's TOTP seed, given as the
 * otpauth:// URI its QR code holds, is stored from stdin and lent by a
 * grant; an agent writes {{totp:NAME}} in the site's code field, and the
 * site's server checks the code with the same seed (otpauth, another
 * implementation of RFC 6238), in two sessions one after the other. The
 * seed and every code typed are then searched for in every answer, the
 * recordings and the home's files, and are in none. Off its domain, or
 * typed as {{secret:NAME}} (which would type the seed), nothing is typed.
 */

const TENANT = 'acme-codes';
const SEED = new Secret({ size: 20 });
const totp = new TOTP({ issuer: 'Acme', label: 'alice', secret: SEED, digits: 6, period: 30 });
let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** Every code the site's server was sent, and whether it held. */
const received: Array<{ code: string; valid: boolean }> = [];

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/verify' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const code = new URLSearchParams(Buffer.concat(chunks).toString()).get('code') ?? '';
        const valid = totp.validate({ token: code, window: 1 }) !== null;
        received.push({ code, valid });
        response
          .writeHead(valid ? 200 : 401, { 'content-type': 'text/html' })
          .end(valid ? '<title>Signed in</title><p>welcome, alice</p>' : '<title>Wrong code</title>');
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Two-step verification</title>
      <form method="post" action="/verify">
        <label>Code from your app <input name="code" autocomplete="one-time-code" inputmode="numeric"></label>
        <button>Verify</button>
      </form>`);
  });
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

const base = () => `http://127.0.0.1:${env.server.control.port}`;

const cli = (args: string[], stdin: string) => runCli(env, args, stdin);

/** An operator session lent the seed, as its key's holder (the agent) sees it. */
async function lentSession(): Promise<{ id: string; profile: string; key: string; agent: BrowserClient }> {
  const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600, secrets: ['otp'] });
  const session = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
  expect(session.secrets).toEqual(['otp']);
  return { id: session.id, profile: session.profile, key: session.key!, agent: new BrowserClient({ baseUrl: base(), token: session.key! }) };
}

describe('one-time codes', () => {
  it('are stored from the otpauth URI on stdin, listed as a seed, never shown', async () => {
    expect(await cli(['secret-set', '--totp', '--tenant', TENANT, '--name', 'otp', '--domain', '127.0.0.1'], `${totp.toString()}\n`)).toBe(
      `stored ${TENANT} otp, a one-time code seed (typed only on 127.0.0.1)`,
    );
    expect((await env.client('clawd').secrets(TENANT)).secrets).toEqual([
      { tenant: TENANT, name: 'otp', domains: ['127.0.0.1'], savedAt: expect.any(String), kind: 'totp' },
    ]);
    await expect(
      env.client('clawd').setSecret({ tenant: TENANT, name: 'broken', domains: ['127.0.0.1'], value: 'otpauth://totp/x?secret=11', kind: 'totp' }),
    ).rejects.toThrow(/not base32/);
  });

  it("are typed on the site's domain at the moment of typing, accepted by its server, in two sessions; the seed and the codes appear in nothing read back", async () => {
    const answers: unknown[] = [];
    for (const _round of [1, 2]) {
      const { id, profile, key, agent } = await lentSession();
      const tab = await agent.openTab(`${site.url}/login`);
      await recordCall(agent, { action: 'network-start', targetId: tab.targetId });
      const outline = (await agent.snapshot({ targetId: tab.targetId })).text;
      const field = refOf(outline, /textbox "Code from your app"/);
      // The seed itself is never typed: {{secret:otp}} would be it.
      expect((await rejection(agent.act({ kind: 'type', targetId: tab.targetId, ref: field, text: '{{secret:otp}}' }))).message).toBe(
        'Secret otp is a one-time code seed: {{totp:otp}} types its current code, and the seed itself is never typed: nothing was typed',
      );
      answers.push(await agent.act({ kind: 'fill', targetId: tab.targetId, fields: [{ ref: field, value: '{{totp:otp}}' }] }, { diffMaxChars: 5000 }));
      const filled = await agent.snapshot({ targetId: tab.targetId });
      expect(filled.text).toContain('[secret otp]');
      answers.push(filled);
      // A browser that holds a code runs none of the caller's scripts.
      expect((await rejection(agent.evaluate('() => document.querySelector("input").value', { targetId: tab.targetId }))).message).toMatch(
        /^A secret \(otp\) was typed into this browser/,
      );
      answers.push(await agent.click(refOf(outline, /button "Verify"/), { targetId: tab.targetId }));
      expect(received.at(-1)).toMatchObject({ valid: true });
      expect((await agent.tabs()).find((each) => each.targetId === tab.targetId)!.title).toBe('Signed in');

      // Through MCP too, and the recordings: the log, the request's body, a HAR the token's holder keeps.
      const mcp = new Client({ name: 'code-agent', version: '1' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      answers.push(
        await mcp.callTool({ name: 'browser_tabs', arguments: {} }),
        await mcp.callTool({ name: 'browser_snapshot', arguments: { targetId: tab.targetId } }),
      );
      await mcp.close();
      const log = await recordCall(agent, { action: 'network', targetId: tab.targetId });
      const post = log.network!.entries!.find((entry) => entry.method === 'POST')!;
      const body = Buffer.from((await recordCall(agent, { action: 'request-body', targetId: tab.targetId, id: post.id })).body!.base64, 'base64').toString();
      expect(body).toBe('code=[secret otp]');
      const har = await recordCall(env.client(profile), { action: 'har', targetId: tab.targetId, keep: true });
      answers.push(log, body, readFileSync(har.path!, 'utf8'));

      const uses = (await env.client('clawd').audit({ session: id, event: 'secret-use' })).entries;
      expect(uses.map((entry) => [entry.detail, entry.domains])).toEqual([['otp (one-time code)', ['127.0.0.1']]]);
      await env.client('clawd').closeSession(id);
    }
    const codes = received.map((each) => each.code).filter(Boolean);
    expect(codes).toHaveLength(2);
    const files = ['logs/actions.jsonl', 'logs/audit.jsonl', 'vault/secrets.json', 'relay.log']
      .map((file) => join(env.home, file))
      .filter(existsSync)
      .map((file) => readFileSync(file, 'utf8'));
    const everything = JSON.stringify(answers) + files.join('\n');
    for (const form of [SEED.base32, SEED.base32.slice(0, 16), totp.toString(), ...codes]) expect(everything).not.toContain(form);
  });

  it('are refused off their domain, and outside a session lent them, with nothing typed', async () => {
    const { id, agent } = await lentSession();
    const before = received.length;
    const elsewhere = await agent.openTab(`${site.url.replace('127.0.0.1', 'localhost')}/login`);
    const field = refOf((await agent.snapshot({ targetId: elsewhere.targetId })).text, /textbox "Code from your app"/);
    expect((await rejection(agent.act({ kind: 'type', targetId: elsewhere.targetId, ref: field, text: '{{totp:otp}}' }))).message).toBe(
      'Secret otp may be typed on 127.0.0.1 only, not on localhost: nothing was typed',
    );
    expect((await agent.snapshot({ targetId: elsewhere.targetId })).text).not.toMatch(/\[value=/);
    const managed = env.client('clawd');
    const own = await managed.openTab(`${site.url}/login`);
    const ownField = refOf((await managed.snapshot({ targetId: own.targetId })).text, /textbox "Code from your app"/);
    expect((await rejection(managed.act({ kind: 'type', targetId: own.targetId, ref: ownField, text: '{{totp:otp}}' }))).message).toMatch(
      /^Secrets are lent to task sessions under a grant/,
    );
    await managed.closeTab(own.targetId);
    expect(received.length).toBe(before);
    await env.client('clawd').closeSession(id);
  });
});
