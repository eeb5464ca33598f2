import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteKey } from '../../relay/src/api/routes.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { routeTarget } from '../../relay/src/client/route-call.js';
import type { RouteInput as HandlerInput } from '../../relay/src/server/route-binder.js';

/**
 * The typed client calls each route by its key in the route table
 * (client/route-call.ts): every route of the table is reachable through it,
 * with its method, its path (parameters filled and encoded), its query and
 * its body as they go on the wire; and an input the route's schemas would
 * refuse does not compile (the `@ts-expect-error`s below, checked by
 * `tsc -p tests/tsconfig.json`).
 */

interface Seen {
  method: string;
  url: URL;
  body: string;
  headers: IncomingMessage['headers'];
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];

beforeAll(async () => {
  // A loopback server that keeps what each request carried and answers an empty JSON object.
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: new URL(request.url ?? '/', 'http://x'),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: request.headers,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const lastSeen = () => seen[seen.length - 1];
const paramsOf = (key: string) => Object.fromEntries([...key.matchAll(/:(\w+)/g)].map(([, name]) => [name, `${name} 1/2`]));

describe('the typed client, derived from the route table', () => {
  it('reaches every route of the table by its key: its method, and its path with each parameter filled and encoded', async () => {
    const client = new BrowserClient({ baseUrl: () => Promise.resolve(baseUrl), token: 'the-token', profile: 'work' });
    const keys = Object.keys(ROUTES) as RouteKey[];
    expect(keys.length).toBeGreaterThan(100);
    for (const key of keys) {
      const params = paramsOf(key);
      const body = 'body' in ROUTES[key] ? { probe: key } : undefined;
      await client.call(key, { params, body } as never);
      const request = lastSeen();
      const [method, pattern] = key.split(' ');
      const path = pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]));
      expect({ key, method: request.method, path: request.url.pathname }).toEqual({ key, method, path });
      expect(request.url.searchParams.get('profile')).toBe('work');
      expect(request.headers.authorization).toBe('Bearer the-token');
      expect(request.body).toBe(body === undefined ? '' : JSON.stringify(body));
      expect(request.headers['content-type']).toBe(body === undefined ? undefined : 'application/json');
    }
  });

  it("sends a query as text, leaves out what is undefined, and names the client's profile, else the call's", async () => {
    const client = new BrowserClient({ baseUrl, token: 't', profile: 'work' });
    await client.call('GET /network', { query: { limit: 5, secrets: true, url: undefined } });
    expect(Object.fromEntries(lastSeen().url.searchParams)).toEqual({ limit: '5', secrets: 'true', profile: 'work' });
    await client.call('GET /screencast/frame', { query: { profile: 'session-abc', targetId: 'T1' } });
    expect(Object.fromEntries(lastSeen().url.searchParams)).toEqual({ profile: 'work', targetId: 'T1' });
    await new BrowserClient({ baseUrl, token: 't' }).call('GET /screencast/frame', { query: { profile: 'session-abc', targetId: 'T1' } });
    expect(Object.fromEntries(lastSeen().url.searchParams)).toEqual({ profile: 'session-abc', targetId: 'T1' });
    await new BrowserClient({ baseUrl, token: 't' }).call('GET /tabs');
    expect([...lastSeen().url.searchParams]).toEqual([]);
  });

  it('keeps the named methods as thin wrappers over the same calls', async () => {
    const client = new BrowserClient({ baseUrl, token: 't' });
    await client.closeTab('A/B');
    expect([lastSeen().method, lastSeen().url.pathname]).toEqual(['DELETE', '/tabs/A%2FB']);
    await client.toolbox.removeRoute('r 1');
    expect([lastSeen().method, lastSeen().url.pathname]).toEqual(['DELETE', '/routes/r%201']);
    await client.teach.runRoutine('log in', { params: { user: 'ada' } });
    expect([lastSeen().method, lastSeen().url.pathname, JSON.parse(lastSeen().body)]).toEqual(['POST', '/routines/log%20in/run', { params: { user: 'ada' } }]);
    await client.handoffState('h1', 30);
    expect([lastSeen().url.pathname, lastSeen().url.searchParams.get('wait')]).toEqual(['/handoff/h1', '30']);
  });

  it('refuses a route key with a parameter left out, before any request', () => {
    expect(() => routeTarget('DELETE /tabs/:targetId', {})).toThrow(/DELETE \/tabs\/:targetId: targetId is missing/);
    expect(routeTarget('GET /routines/:name/script', { name: 'a b' })).toEqual({ method: 'GET', path: '/routines/a%20b/script' });
  });

  it('types each call by the route table (compile-time: these calls are never made)', () => {
    const typed = (client: BrowserClient) => [
      // @ts-expect-error: no such route in the table
      client.call('GET /no-such-route'),
      // @ts-expect-error: the route's path has a parameter, and it is missing
      client.call('DELETE /tabs/:targetId'),
      // @ts-expect-error: a parameter the path does not have
      client.call('DELETE /tabs/:targetId', { params: { id: 'x' } }),
      // @ts-expect-error: POST /navigate's body needs a url
      client.call('POST /navigate', { body: { targetId: 'x' } }),
      // @ts-expect-error: a query's coerced number is a number, not any value
      client.call('GET /actions', { query: { limit: { many: true } } }),
      // @ts-expect-error: GET /tabs takes no body
      client.call('GET /tabs', { body: {} }),
      // The answer is the route's schema's: a tab list has tabs, not a `closed` tab.
      client.call('GET /tabs').then((answer) => answer.tabs.map((tab) => tab.targetId)),
      // @ts-expect-error: not in GET /tabs's answer
      client.call('GET /tabs').then((answer) => answer.closed),
    ];
    expect(typeof typed).toBe('function');
  });

  it("types a handler's path parameters by its route's key on the server's side too (compile-time)", () => {
    const handler = (input: HandlerInput<'POST /routines/:name/run'>) => [
      input.params.name,
      // @ts-expect-error: the path names it `name`
      input.params.id,
    ];
    expect(typeof handler).toBe('function');
  });
});
