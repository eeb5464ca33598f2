import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { createLogger } from '../../relay/src/log.js';
import { encodeNativeMessage } from '../../relay/src/native-host/framing.js';
import { freePortPair } from '../harness/ports.js';

/**
 * Every way in, tried as a hostile caller would (spec §9): no token, a wrong
 * one, a token in the wrong place, foreign Origins and Hosts, CSRF-shaped
 * requests, oversized bodies, names that try to leave their folder, cdpUrls
 * that are not DevTools endpoints or loop back into the server, and a
 * non-loopback bind nobody asked for. Each is refused with its status, and
 * the server keeps answering its rightful clients. The counts per surface
 * are printed for the record.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const OTHER_EXTENSION = 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

let server: ClawdServer;
let home: string;
let control: number;
let relay: number;
const tried = new Map<string, { tried: number; refused: number }>();

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'clawd-security-'));
  ({ control } = await freePortPair());
  relay = control + 1;
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, enabled: false }));
  server = await startServer({ home, logger: createLogger('silent') });
});
afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
  console.log(`refusals per surface: ${JSON.stringify(Object.fromEntries(tried))}`);
});

/** Raw HTTP, so any Host header can be sent. */
function raw(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...options.headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

function upgrade(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('error', () => resolve(0));
  });
}

/** An upgrade with its target sent as written (a WebSocket client would resolve its dot segments first). */
function rawUpgrade(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        host: `127.0.0.1:${port}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    request.on('upgrade', (_answer, socket) => {
      socket.destroy();
      resolve(101);
    });
    request.on('response', (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

function count(surface: string, refused: boolean): void {
  const entry = tried.get(surface) ?? { tried: 0, refused: 0 };
  entry.tried++;
  if (refused) entry.refused++;
  tried.set(surface, entry);
}

const HTTP_SURFACES: Array<[string, number, string, string]> = [
  ['control API', 0, 'GET', '/tabs'],
  ['/json/*', 1, 'GET', '/json/version'],
  ['/mcp', 0, 'POST', '/mcp'],
  ['screencast', 0, 'GET', '/screencast'],
  ['dashboard', 0, 'GET', '/'],
  // The person's tab picker (its own cookie only), and the chrome profile's discovery, which asks the person's Chrome nothing for a caller it refuses.
  ['picker', 0, 'POST', '/chrome/picker/lend'],
  ['/json/*?profile=chrome', 1, 'GET', '/json/version?profile=chrome'],
];

describe('every HTTP entry point', () => {
  const token = () => server.token;
  for (const [surface, offset, method, path] of HTTP_SURFACES) {
    it(`${surface}: refuses missing, wrong and misplaced tokens, foreign Origins and Hosts`, async () => {
      const port = offset ? relay : control;
      const accept = surface === 'dashboard' ? 'text/html' : 'application/json';
      const cases: Array<[string, Record<string, string>, number]> = [
        ['no token', { accept }, 401],
        ['a wrong token', { accept, authorization: 'Bearer wrong' }, 401],
        ['a token of the right length but wrong', { accept, authorization: `Bearer ${'0'.repeat(token().length)}` }, 401],
        ['the token in a cookie', { accept, cookie: `token=${token()}` }, 401],
        ['the token in another header', { accept, 'x-token': token() }, 401],
        ['a web page Origin', { accept, authorization: `Bearer ${token()}`, origin: 'https://evil.example' }, 403],
        ['Origin null', { accept, authorization: `Bearer ${token()}`, origin: 'null' }, 403],
        ["another extension's Origin", { accept, authorization: `Bearer ${token()}`, origin: OTHER_EXTENSION }, 403],
        ['a rebinding Host', { accept, authorization: `Bearer ${token()}`, host: `evil.example:${port}` }, 403],
        ['a loopback-looking Host', { accept, authorization: `Bearer ${token()}`, host: `127.0.0.1.nip.io:${port}` }, 403],
        ['a trailing-dot Host', { accept, authorization: `Bearer ${token()}`, host: `localhost.:${port}` }, 403],
        ['an IPv4-mapped IPv6 Host', { accept, authorization: `Bearer ${token()}`, host: `[::ffff:127.0.0.1]:${port}` }, 403],
        ['a long-form IPv6 Host', { accept, authorization: `Bearer ${token()}`, host: `[0:0:0:0:0:0:0:1]:${port}` }, 403],
        ['a Host with credentials', { accept, authorization: `Bearer ${token()}`, host: `localhost:${port}@evil.example` }, 403],
        ['a CSRF text/plain post from a page', { accept, 'content-type': 'text/plain', origin: 'https://evil.example' }, 403],
        ['a CSRF form post without the token', { accept, 'content-type': 'application/x-www-form-urlencoded' }, 401],
      ];
      for (const [what, headers, status] of cases) {
        const answer = await raw(port, path, { method, headers, body: method === 'POST' ? '{}' : undefined });
        expect(answer.status, `${surface}: ${what}`).toBe(status);
        expect(JSON.parse(answer.body).error.message.length, `${surface}: ${what}`).toBeGreaterThan(0);
        count(surface, answer.status === status);
      }
      // And the rightful client is still answered.
      const ok = await raw(port, surface.startsWith('/json/*') ? `/json/version?token=${token()}` : '/profiles', {
        headers: { authorization: `Bearer ${token()}` },
      });
      expect(ok.status).toBe(200);
    });
  }

  it('refuses oversized bodies with 413, and keeps answering', async () => {
    const big = Buffer.alloc(73 * 1024 * 1024, 0x20);
    const answer = await raw(control, '/tabs/open', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(answer.status).toBe(413);
    count('control API', true);
    expect((await raw(control, '/profiles', { headers: { authorization: `Bearer ${server.token}` } })).status).toBe(200);
  });
});

describe('slow senders', () => {
  it('a body that never finishes is cut off by the request timeout, while others are answered', async () => {
    const { connect } = await import('node:net');
    const socket = connect(control, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
    socket.on('error', () => {});
    socket.write(
      `POST /tabs/open HTTP/1.1\r\nHost: 127.0.0.1:${control}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":`,
    );
    // Meanwhile the server answers everyone else.
    expect((await raw(control, '/profiles', { headers: { authorization: `Bearer ${server.token}` } })).status).toBe(200);
    const after = await closed;
    expect(after).toBeLessThan(40_000);
    count('control API', true);
  }, 60_000);
});

describe('the WebSocket entry points', () => {
  it('/cdp and /extension refuse foreign Origins and Hosts, and /cdp a missing or wrong token', async () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['/cdp', '/cdp', {}, 401],
      ['/cdp', '/cdp?token=wrong', {}, 401],
      ['/cdp', `/cdp?token=${server.token}`, { origin: 'https://evil.example' }, 403],
      ['/cdp', `/cdp?token=${server.token}`, { origin: 'null' }, 403],
      ['/cdp', `/cdp?token=${server.token}`, { host: `evil.example:${relay}` }, 403],
      ['/extension', '/extension', { origin: 'https://evil.example' }, 403],
      ['/extension', '/extension', { origin: OTHER_EXTENSION }, 403],
      ['/extension', '/extension', { host: `evil.example:${relay}` }, 403],
    ];
    for (const [surface, path, headers, status] of cases) {
      expect(await upgrade(relay, path, headers), `${path} ${JSON.stringify(headers)}`).toBe(status);
      count(surface, true);
    }
    expect(await upgrade(relay, `/cdp?token=${server.token}`, {})).toBe(101);
  });
});

describe('request targets', () => {
  it('are read one way by every door and route: a query over the limit, a name given twice or a path a parser rewrites is a 400, on every door', async () => {
    const thousand = Array.from({ length: 1000 }, () => 'a').join('&');
    const headers = { authorization: `Bearer ${server.token}` };
    const cases: Array<[number, string, string, string]> = [
      [control, 'GET', `/tabs?${thousand}&profile=clawd`, 'The query has 1001 parameters'],
      [control, 'POST', `/act?${thousand}`, 'The query has 1000 parameters'],
      [control, 'POST', `/mcp?${thousand}`, 'The query has 1000 parameters'],
      [control, 'GET', '/tabs?profile=clawd&profile=nope', 'Query parameter "profile" is given more than once'],
      [control, 'GET', '/snapshot?hidden=false&hidden=true', 'Query parameter "hidden" is given more than once'],
      [control, 'GET', '/grants/..\\tabs\\x', 'The request target must be a plain path'],
      [control, 'GET', '/./profiles', 'The request target must be a plain path'],
      [control, 'GET', '/x/%2e%2e/profiles', 'The request target must be a plain path'],
      [relay, 'GET', `/json/version?${thousand}`, 'The query has 1000 parameters'],
      [relay, 'GET', '/json/version?profile=clawd&profile=chrome', 'Query parameter "profile" is given more than once'],
      [relay, 'GET', `/json/version?token=${server.token}&token=x`, 'Query parameter "token" is given more than once'],
      [relay, 'GET', '/json/../json/version', 'The request target must be a plain path'],
    ];
    for (const [port, method, path, message] of cases) {
      const answer = await raw(port, path, { method, headers, body: method === 'POST' ? '{}' : undefined });
      expect(answer.status, path.slice(0, 60)).toBe(400);
      expect(JSON.parse(answer.body).error.message, path.slice(0, 60)).toContain(message);
      count('request targets', true);
    }
    for (const path of [
      `/cdp?token=${server.token}&${thousand}`,
      `/cdp?token=${server.token}&profile=clawd&profile=extension`,
      `/x/../cdp?token=${server.token}`,
      `/cdp\\..\\cdp?token=${server.token}`,
    ]) {
      expect(await rawUpgrade(relay, path), path.slice(0, 60)).toBe(400);
      count('request targets', true);
    }
    // A query of the limit is read whole, and the rightful client is still answered.
    const hundred = Array.from({ length: 99 }, (_, index) => `k${index}=1`).join('&');
    expect((await raw(control, `/profiles?${hundred}`, { headers })).status).toBe(200);
    expect((await raw(relay, `/json/version?${hundred}`, { headers })).status).toBe(200);
  });
});

describe('names, paths and endpoints', () => {
  it('refuses profile and session names that try to leave their folder, and cdpUrls that are not DevTools endpoints or loop back', async () => {
    const post = (path: string, body: object) =>
      raw(control, path, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const del = (path: string) => raw(control, path, { method: 'DELETE', headers: { authorization: `Bearer ${server.token}` } });
    const get = (path: string) => raw(control, path, { headers: { authorization: `Bearer ${server.token}` } });
    const cases: Array<[string, () => Promise<{ status: number; body: string }>, number]> = [
      ['profile ../x', () => post('/profiles/create', { name: '../x' }), 400],
      ['profile with NUL', () => post('/profiles/create', { name: 'a\u0000b' }), 400],
      ['profile absolute path', () => post('/profiles/create', { name: '/etc/passwd' }), 400],
      ['?profile=../../etc', () => get('/tabs?profile=..%2F..%2Fetc'), 400],
      ['delete profile ..', () => del('/profiles/..%2F..'), 400],
      ['session ../..', () => del('/sessions/..%2F..%2Fetc'), 404],
      ['cdpUrl file:', () => post('/profiles/create', { name: 'r1', cdpUrl: 'file:///etc/passwd' }), 400],
      ['cdpUrl javascript:', () => post('/profiles/create', { name: 'r2', cdpUrl: 'javascript:alert(1)' }), 400],
      ['cdpUrl at the relay', () => post('/profiles/create', { name: 'r3', cdpUrl: `ws://127.0.0.1:${relay}/cdp` }), 400],
      ['cdpUrl at the control API', () => post('/profiles/create', { name: 'r4', cdpUrl: `http://localhost:${control}` }), 400],
      ['vault tenant ../', () => get('/vault?tenant=..%2F..'), 400],
      ['grant tenant with NUL', () => post('/grants', { tenant: 'a\u0000', domains: ['a.example'], ttl: 60 }), 400],
      // Captures never take a path from the caller: the server names the file in its own folder.
      ['screenshot to a path of the caller', () => post('/screenshot', { path: '../../../../tmp/owned.png' }), 400],
      ['pdf to a path of the caller', () => post('/pdf', { path: '/etc/cron.d/owned' }), 400],
      ['inline upload named ../', () => post('/hooks/file-chooser', { files: [{ name: '../../.bashrc', base64: 'AA==' }] }), 400],
      ['inline upload named with NUL', () => post('/hooks/file-chooser', { files: [{ name: 'a\u0000.txt', base64: 'AA==' }] }), 400],
    ];
    for (const [what, attempt, status] of cases) {
      const answer = await attempt();
      expect(answer.status, `${what}: ${answer.body}`).toBe(status);
      count('names and endpoints', answer.status === status);
    }
  });

  it('will not bind beyond loopback unless configured to, twice over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clawd-bind-'));
    try {
      const { control: port } = await freePortPair();
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${port}` }));
      const refused = await promisify(execFile)(process.execPath, [CLI, 'serve', '--host', '0.0.0.0'], { env: { ...process.env, CLAWD_HOME: dir } }).then(
        () => undefined,
        (error: { stderr: string; code: number }) => error,
      );
      expect(refused?.code).toBe(1);
      expect(refused?.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0.*allowNonLoopback/);
      count('bind', true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the native host', () => {
  it('refuses a caller whose origin is not the extension', async () => {
    const answer = await new Promise<string>((resolve) => {
      const child = execFile(
        process.execPath,
        [CLI, 'native-host', `${OTHER_EXTENSION}/`],
        { env: { ...process.env, CLAWD_HOME: home }, encoding: 'buffer' },
        (_error, stdout) => resolve((stdout as Buffer).subarray(4).toString()),
      );
      child.stdin!.end(encodeNativeMessage({ op: 'bootstrap', id: 1 }));
    });
    expect(JSON.parse(answer)).toMatchObject({ ok: false, error: { code: 'forbidden_origin' } });
    count('native host', true);
  });
});
