import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { createLogger } from '../../relay/src/log.js';
import { freePortPair } from '../harness/ports.js';

/**
 * Property-based HTTP bodies and queries for every control-API route, from
 * a token holder (the guard's refusals have their own suite). The browser
 * is disabled in config, so a body that passes validation meets a 503, not a
 * launch: what is tested is the boundary. No answer may be a 500 (an
 * unexpected failure), every error has the one body shape, and the server
 * keeps answering. At least 10,000 requests.
 */

const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const ROUTES: Array<[string, string]> = [
  ['GET', '/'],
  ['POST', '/start'],
  ['POST', '/stop'],
  ['GET', '/tabs'],
  ['POST', '/tabs/open'],
  ['POST', '/tabs/focus'],
  ['DELETE', '/tabs/ABC'],
  ['POST', '/navigate'],
  ['POST', '/screenshot'],
  ['POST', '/pdf'],
  ['GET', '/console'],
  ['GET', '/snapshot'],
  ['POST', '/act'],
  ['POST', '/hooks/file-chooser'],
  ['POST', '/hooks/dialog'],
  ['GET', '/downloads'],
  ['GET', '/profiles'],
  ['POST', '/profiles/create'],
  ['DELETE', '/profiles/nope'],
  ['GET', '/actions'],
  ['POST', '/sessions'],
  ['GET', '/sessions'],
  ['DELETE', '/sessions/abc'],
  ['POST', '/sessions/abc/extend'],
  ['GET', '/grants'],
  ['GET', '/audit'],
  ['GET', '/audit/recording'],
  ['POST', '/network/record'],
  ['GET', '/network'],
  ['GET', '/network/body'],
  ['POST', '/network/har'],
  ['POST', '/trace/start'],
  ['POST', '/trace/stop'],
  ['POST', '/grants'],
  ['DELETE', '/grants/abc'],
  ['GET', '/vault'],
  ['DELETE', '/vault'],
  ['POST', '/vault/refresh'],
  ['POST', '/vault/refresh/abc/done'],
  ['POST', '/vault/from-extension'],
  ['GET', '/screencast'],
  ['GET', '/screencast/frame'],
  ['POST', '/screencast/input'],
  ['POST', '/dashboard/link'],
  ['GET', '/dashboard/login'],
  ['POST', '/mcp'],
  ['GET', '/no/such/route'],
  ['POST', '/demonstrations/start'],
  ['POST', '/demonstrations/stop'],
  ['GET', '/demonstrations'],
  ['GET', '/routines'],
  ['GET', '/routines/nope'],
  ['DELETE', '/routines/nope'],
  ['POST', '/routines/nope/run'],
  ['POST', '/notes/start'],
  ['POST', '/notes'],
  ['GET', '/notes'],
  ['POST', '/notes/done'],
  // The chrome profile's, but attach and picker/open: those look for the machine's own browser, which a test leaves alone.
  ['GET', '/chrome'],
  ['POST', '/chrome/detach'],
  ['GET', '/chrome/picker/login'],
  ['GET', '/chrome/picker/tabs'],
  ['POST', '/chrome/picker/lend'],
];

let server: ClawdServer;
let home: string;
let base: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'clawd-fuzz-http-'));
  const { control } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, enabled: false }));
  server = await startServer({ home, logger: createLogger('silent') });
  base = `http://127.0.0.1:${server.control.port}`;
});
afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('fuzzing the control API', () => {
  it(`${CASES} bodies and queries across every route: no 500, one error shape, the server keeps answering`, async () => {
    const before = Math.round(process.memoryUsage().rss / 1024 / 1024);
    const statuses = new Map<number, number>();
    const value = fc.jsonValue({ maxDepth: 3 });
    const body = fc.oneof(
      value.map((v) => JSON.stringify(v)),
      fc
        .dictionary(
          fc.constantFrom(
            'url',
            'targetId',
            'kind',
            'ref',
            'text',
            'name',
            'tenant',
            'domains',
            'grant',
            'credential_mode',
            'ttl',
            'accept',
            'paths',
            'files',
            'type',
            'x',
            'y',
            'fields',
            'fn',
          ),
          value,
          { maxKeys: 5 },
        )
        .map((o) => JSON.stringify(o)),
      fc.string({ maxLength: 80 }),
    );
    const query = fc.dictionary(
      fc.constantFrom(
        'profile',
        'targetId',
        'format',
        'limit',
        'interactive',
        'depth',
        'maxChars',
        'diff',
        'tenant',
        'domain',
        'code',
        'level',
        'ref',
        'selector',
      ),
      fc.string({ maxLength: 12 }),
      { maxKeys: 3 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        body,
        query,
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async ([method, path], text, params, type) => {
          const url = new URL(path, base);
          for (const [key, val] of Object.entries(params)) url.searchParams.set(key, val);
          const response = await fetch(url, {
            method,
            headers: { authorization: `Bearer ${server.token}`, 'content-type': type, accept: 'application/json, text/event-stream' },
            ...(method === 'GET' || method === 'DELETE' ? {} : { body: text }),
            signal: AbortSignal.timeout(10_000),
          });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const answer = await response.text();
          expect(response.status, `${method} ${url.pathname}${url.search} ${text}: ${answer}`).not.toBe(500);
          if (response.status >= 400 && path !== '/mcp') {
            const parsed = JSON.parse(answer) as { error: { code: string; message: string } };
            expect(typeof parsed.error.code).toBe('string');
            expect(parsed.error.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: CASES },
    );
    const health = await fetch(`${base}/profiles`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(health.status).toBe(200);
    console.log(
      `HTTP fuzz: ${CASES} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}, RSS ${before} → ${Math.round(process.memoryUsage().rss / 1024 / 1024)} MiB`,
    );
  }, 300_000);
});
