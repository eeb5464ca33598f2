import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient, ForbiddenError, UnauthorizedError } from '../../relay/src/client/browser-client.js';
import { rejection } from '../harness/test-site.js';
import { waitFor } from '../harness/chromium.js';
import { MAX_SESSIONS_PER_KEY } from '../../relay/src/mcp/http-sessions.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A key per task session (spec §9, least privilege), tried as an agent that
 * holds one session's key: it drives its own session (HTTP and MCP) and is
 * refused everywhere else — another session, the managed and the extension
 * profile, the session list, the vault, grants, the dashboard, the action
 * log — without learning what else exists; once its session ends, it opens
 * nothing and says so. The main token still reaches everything.
 */

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

const base = () => `http://127.0.0.1:${env.server.control.port}`;
const withKey = (key: string, path: string, init: RequestInit = {}) =>
  fetch(`${base()}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });

/** Raw HTTP, so a target is sent as written (fetch would rewrite its backslashes). */
function rawRequest(port: number, method: string, path: string, key: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': 2 } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 0 })));
      },
    );
    request.on('error', reject);
    request.end('{}');
  });
}

describe("a task session's key", () => {
  it('drives its own session, and nothing else', async () => {
    const admin = env.client('clawd');
    const mine = await admin.openSession({ credential_mode: 'clean' });
    const other = await admin.openSession({ credential_mode: 'clean' });
    try {
      expect(mine.key).toMatch(/^[0-9a-f]{64}$/);
      expect((await admin.sessions()).sessions.map((session) => session.key)).toEqual([undefined, undefined]);

      // Its own session, with ?profile= or without it.
      const agent = new BrowserClient({ baseUrl: base(), token: mine.key! });
      const tab = await agent.openTab(env.fixtures.url('index.html?key=1'));
      expect((await agent.withProfile(mine.profile).tabs()).map((t) => t.targetId)).toContain(tab.targetId);
      expect((await agent.snapshot({ targetId: tab.targetId })).text).toContain('button');
      expect((await agent.status()).profile).toBe(mine.profile);

      // Everything else is refused, naming only what the key may do.
      for (const profile of [other.profile, 'clawd', 'extension', 'nope']) {
        const refused = await rejection(agent.withProfile(profile).tabs());
        expect(refused, profile).toBeInstanceOf(ForbiddenError);
        expect(refused.message).toBe(
          `A task session's key reaches its own session's browser routes and /mcp only: this one reaches profile ${mine.profile}, not ${JSON.stringify(profile)}`,
        );
      }
      for (const [method, path] of [
        ['GET', '/sessions'],
        ['POST', '/sessions'],
        [`DELETE`, `/sessions/${other.id}`],
        ['GET', '/vault'],
        ['POST', '/grants'],
        ['GET', '/profiles'],
        ['POST', '/profiles/create'],
        ['POST', '/dashboard/link'],
        ['GET', '/actions'],
        ['POST', '/reset-profile'],
        ['POST', '/vault/from-extension'],
        ['GET', '/grants'],
        ['GET', '/audit'],
        ['GET', '/events'],
        ['POST', `/sessions/${mine.id}/extend`],
      ]) {
        const answer = await withKey(mine.key!, path, { method, body: method === 'GET' ? undefined : '{}' });
        expect(answer.status, `${method} ${path}`).toBe(403);
        const message = ((await answer.json()) as { error: { message: string } }).error.message;
        expect(message).toMatch(/^A task session's key reaches its own session's browser routes and \/mcp only/);
        expect(message).not.toContain(other.id);
      }
      // The other session is untouched, and the main token still reaches everything.
      expect((await admin.sessions()).sessions.map((session) => session.id).sort()).toEqual([mine.id, other.id].sort());
      // (a session from a spare holds one blank page: nothing loaded in it)
      expect((await admin.withProfile(other.profile).tabs()).filter((t) => t.url !== 'about:blank')).toEqual([]);

      // MCP over /mcp with the key is scoped to the session.
      const mcp = new Client({ name: 'key-test', version: '1' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${mine.key}` } } }));
      try {
        const tabs = await mcp.callTool({ name: 'browser_tabs', arguments: {} });
        expect((tabs.content as Array<{ text: string }>)[0].text).toContain(tab.targetId);
        const elsewhere = await mcp.callTool({ name: 'browser_tabs', arguments: { profile: 'clawd' } });
        expect(elsewhere).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/A task session's key reaches its own session only/) }] });
        const status = await mcp.callTool({ name: 'browser_status', arguments: {} });
        const said = (status.content as Array<{ text: string }>)[0].text;
        expect(said).toContain(mine.profile);
        expect(said).not.toContain(other.id);
        expect(said).not.toMatch(/\bextension\b|clawd \(/);
      } finally {
        await mcp.close();
      }

      // It may close its own session; then it opens nothing, and says so.
      expect((await withKey(mine.key!, `/sessions/${mine.id}`, { method: 'DELETE' })).status).toBe(200);
      const after = await rejection(agent.tabs());
      expect(after).toBeInstanceOf(UnauthorizedError);
      expect(after.message).toMatch(
        new RegExp(`^This key belonged to task session ${mine.id}, which ended at \\d{4}-[\\d-]+T[\\d:.]+Z: it opens nothing now$`),
      );
      // A key that never was is just a wrong token, and says nothing of sessions.
      const wrong = await rejection(new BrowserClient({ baseUrl: base(), token: 'f'.repeat(64) }).tabs());
      expect(wrong.message).toBe('Wrong token in the Authorization header (see `clawd-browser token`)');
    } finally {
      await admin.closeSession(other.id).catch(() => {});
      await admin.closeSession(mine.id).catch(() => {});
    }
  });

  it('holds a few MCP sessions, never the room the token keeps, and they end with its session', async () => {
    const admin = env.client('clawd');
    const session = await admin.openSession({ credential_mode: 'clean' });
    const connect = async (credential: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } });
      const client = new Client({ name: 'held', version: '1' });
      await client.connect(transport);
      return { client, transport };
    };
    try {
      const before = env.server.control.mcpSessions();
      const held = [];
      for (let index = 0; index < MAX_SESSIONS_PER_KEY; index++) held.push(await connect(session.key!));
      expect((await rejection(connect(session.key!))).message).toMatch(`This task session's key holds ${MAX_SESSIONS_PER_KEY} MCP sessions already`);
      const token = await connect(env.server.token);
      expect((await token.client.callTool({ name: 'browser_tabs', arguments: { profile: session.profile } })).isError).toBeFalsy();
      await token.transport.terminateSession();
      expect(env.server.control.mcpSessions()).toBe(before + MAX_SESSIONS_PER_KEY);
      await admin.closeSession(session.id);
      await waitFor(() => env.server.control.mcpSessions() === before, { timeoutMs: 5000, message: "the session's MCP sessions outlived it" });
    } finally {
      await admin.closeSession(session.id).catch(() => {});
    }
  });

  it("is judged on the request as its route reads it: a query of a thousand keys, a name given twice or a path a parser rewrites never reaches the operator's browser", async () => {
    const admin = env.client('clawd');
    // The operator's own browser: a page of theirs, with a cookie of theirs.
    const operators = await admin.openTab(env.fixtures.url('index.html?operator=1'));
    await admin.evaluate("() => { document.cookie = 'operator=the-operators-cookie; path=/'; }", { targetId: operators.targetId });
    const session = await admin.openSession({ credential_mode: 'clean' });
    const relay = `http://127.0.0.1:${env.server.relay.port}`;
    const keyed = { authorization: `Bearer ${session.key}` };
    const thousand = Array.from({ length: 1000 }, () => 'a').join('&');
    const distinct = Array.from({ length: 1000 }, (_, index) => `k${index}`).join('&');
    const grab = JSON.stringify({ kind: 'evaluate', targetId: operators.targetId, fn: '() => document.cookie + " " + document.body.innerText' });
    const said = async (answer: Response) => ({ status: answer.status, text: await answer.text() });
    try {
      // Node's querystring (Express's default) keeps the first 1,000 keys: a profile the door meant past them was never read.
      for (const query of [thousand, distinct]) {
        for (const [path, init] of [
          ['/', {}],
          ['/tabs', {}],
          ['/act', { method: 'POST', body: grab }],
          ['/snapshot', {}],
        ] as Array<[string, RequestInit]>) {
          const answer = await said(await withKey(session.key!, `${path}?${query}`, init));
          expect(answer.text, path).not.toContain('the-operators-cookie');
          expect(answer.text, path).not.toContain(operators.targetId);
          expect(answer, path).toEqual({
            status: 400,
            text: expect.stringContaining('The query has 1000 parameters: at most 100 are read, and a longer query is refused rather than read in part'),
          });
        }
        for (const path of ['/mcp', '/page-tools']) expect((await withKey(session.key!, `${path}?${query}`)).status, path).toBe(400);
        // The relay and MCP read it the same way.
        for (const path of [`/json/version?profile=${session.profile}&${query}`, `/json/list?${query}`])
          expect((await fetch(`${relay}${path}`, { headers: keyed })).status, path).toBe(400);
      }
      // A name given twice is a 400 wherever it is read, so no door reads one value and its route another.
      for (const query of [`profile=${session.profile}&profile=clawd`, `profile=${session.profile}&hidden=false&hidden=true`]) {
        const answer = await said(await withKey(session.key!, `/snapshot?${query}`));
        expect(answer).toEqual({ status: 400, text: expect.stringMatching(/Query parameter \\"(profile|hidden)\\" is given more than once/) });
      }
      expect((await fetch(`${relay}/json/version?profile=${session.profile}&profile=clawd`, { headers: keyed })).status).toBe(400);
      // A path a URL parser rewrites (a backslash, dot segments) and the router does not: the door judged /tabs/x, the router served /grants/:id.
      for (const [method, path] of [
        ['DELETE', '/grants/..\\tabs\\x'],
        ['DELETE', '/profiles/..\\tabs\\x'],
        ['POST', '/vault/refresh/..\\..\\..\\notes/done'],
        ['GET', '/./tabs'],
        ['GET', '/actions/%2e%2e/tabs'],
      ]) {
        const answer = await said(await rawRequest(env.server.control.port, method, path, session.key!));
        expect(answer, `${method} ${path}`).toEqual({ status: 400, text: expect.stringContaining('The request target must be a plain path') });
      }
      // The operator's browser was not touched, and its own key still drives its session.
      expect((await admin.evaluate('() => document.cookie', { targetId: operators.targetId })).result).toBe('operator=the-operators-cookie');
      expect(
        (await admin.actions({ limit: 1000 })).actions.filter((action) => action.targetId === operators.targetId && action.kind === 'evaluate'),
      ).toHaveLength(2);
      expect((await withKey(session.key!, '/tabs')).status).toBe(200);
      const agent = new BrowserClient({ baseUrl: base(), token: session.key! });
      expect((await agent.tabs()).map((tab) => tab.targetId)).not.toContain(operators.targetId);
    } finally {
      await admin.closeSession(session.id);
      await admin.closeTab(operators.targetId);
    }
  });

  it("is refused by the relay beyond its own session (the extension's /cdp and /json are the main token's)", async () => {
    const admin = env.client('clawd');
    const session = await admin.openSession({ credential_mode: 'clean' });
    try {
      const relay = `http://127.0.0.1:${env.server.relay.port}`;
      const headers = { authorization: `Bearer ${session.key}` };
      for (const path of ['/json/version', '/json/list', '/json/version?profile=clawd', '/status']) {
        const answer = await fetch(`${relay}${path}`, { headers });
        expect(answer.status, path).toBe(403);
        expect((await answer.json()).error.message, path).toMatch(/reaches its own session only/);
      }
      const own = await fetch(`${relay}/json/version?profile=${session.profile}`, { headers });
      expect(own.status).toBe(200);
      expect((await own.json()).webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${env.server.relay.port}/cdp?profile=${session.profile}`);
    } finally {
      await admin.closeSession(session.id);
    }
  });
});
