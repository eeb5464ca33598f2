import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * The OpenAPI document against the server it describes: a real server, both
 * profiles, real Chromium. Each answer a route gives is checked against what
 * the checked-in document says that route answers with that status (its
 * JSON Schema, extra fields refused), so a shape that drifts from the code
 * fails here; the document's own freshness is checked by `npm run typecheck`.
 */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'components', ...document.components }, 'components');
const validators = new Map<string, ValidateFunction>();

/** The documented operation for a concrete request: /tabs/ABC matches /tabs/{targetId}. */
function operationFor(method: string, path: string): Operation {
  const bare = path.split('?')[0];
  for (const [template, operations] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (pattern.test(bare) && operations[method.toLowerCase()]) return operations[method.toLowerCase()];
  }
  throw new Error(`${method} ${bare} is not in docs/openapi.json`);
}

function validatorFor(method: string, path: string, status: number): ValidateFunction {
  const key = `${method} ${path.split('?')[0]} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    const response = operationFor(method, path).responses[String(status)];
    if (!response) throw new Error(`${method} ${path} answered ${status}, which its document does not list`);
    const schema = JSON.parse(JSON.stringify(response.content?.['application/json']?.schema ?? {}).replaceAll('#/components/schemas/', 'components#/schemas/'));
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

let env: ControlEnv;
const checked: string[] = [];

/** A request through the real server, its answer checked against the document; the answer is returned. */
async function call(method: string, path: string, body?: unknown, expectedStatus?: number): Promise<any> {
  const response = await env.raw(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const answer = await response.json();
  if (expectedStatus !== undefined) expect(response.status, `${method} ${path}: ${JSON.stringify(answer)}`).toBe(expectedStatus);
  const validate = validatorFor(method, path, response.status);
  expect(validate(answer) ? [] : validate.errors, `${method} ${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 400)}`).toEqual([]);
  checked.push(`${method} ${path.split('?')[0]}`);
  return answer;
}

beforeAll(async () => {
  env = await startControlEnv();
});

afterAll(async () => {
  await env?.close();
});

describe('GET /openapi.json', () => {
  it('is the checked-in document, behind the token', async () => {
    const served = await (await env.raw('/openapi.json')).json();
    expect(served).toEqual(document);
    const anonymous = await fetch(`http://127.0.0.1:${env.server.control.port}/openapi.json`);
    expect(anonymous.status).toBe(401);
  });

  it('compiles: every schema in it is valid JSON Schema 2020-12', () => {
    for (const [path, operations] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(operations))
        for (const status of Object.keys(operation.responses))
          expect(() => validatorFor(method.toUpperCase(), path.replace(/\{\w+\}/g, 'x'), Number(status))).not.toThrow();
  });
});

describe.each(['clawd', 'extension'])('the %s profile answers as its document says', (profile) => {
  const q = (path: string, extra = '') => `${path}?profile=${profile}${extra}`;

  it('status, tabs, pages, snapshots, actions, hooks and recordings', async () => {
    await call('POST', q('/start'), undefined, 200);
    await call('GET', q('/'), undefined, 200);
    const tab = await call('POST', q('/tabs/open'), { url: env.fixtures.url('form.html') }, 200);
    await call('GET', q('/tabs'), undefined, 200);
    await call('POST', q('/tabs/focus'), { targetId: tab.targetId }, 200);
    await call('POST', q('/network/record'), { targetId: tab.targetId, on: true }, 200);
    await call('POST', q('/navigate'), { url: env.fixtures.url('form.html?again=1'), targetId: tab.targetId }, 200);
    const snapshot = await call('GET', q('/snapshot', `&targetId=${tab.targetId}`), undefined, 200);
    await call('GET', q('/snapshot', `&targetId=${tab.targetId}&format=aria&limit=5`), undefined, 200);
    await call('GET', q('/text', `&targetId=${tab.targetId}&maxChars=1000`), undefined, 200);
    const ref = /\[ref=(e\d+)\]/.exec(snapshot.text)?.[1];
    expect(ref).toBeDefined();
    await call('POST', q('/act', '&diff=2000'), { kind: 'hover', targetId: tab.targetId, ref }, 200);
    await call('POST', q('/act'), { kind: 'evaluate', targetId: tab.targetId, fn: '() => document.title' }, 200);
    await call('POST', q('/screenshot'), { targetId: tab.targetId, type: 'jpeg', quality: 20 }, 200);
    await call('POST', q('/screenshot/labelled'), { targetId: tab.targetId, type: 'jpeg', snapshot: true }, 200);
    await call('POST', q('/computer/openai'), { targetId: tab.targetId, actions: [{ type: 'move', x: 5, y: 5 }], changes: true }, 200);
    await call('POST', q('/computer/anthropic'), { targetId: tab.targetId, actions: [{ action: 'cursor_position' }], screenshot: false }, 200);
    await call('POST', q('/computer/anthropic'), { targetId: tab.targetId, actions: [{ action: 'fly' }] }, 400);
    await call('GET', q('/script'), undefined, 200);
    await call('GET', q('/console', `&targetId=${tab.targetId}`), undefined, 200);
    await call('GET', q('/downloads'), undefined, 200);
    await call('POST', q('/hooks/dialog'), { targetId: tab.targetId, accept: true }, 200);
    const log = await call('GET', q('/network', `&targetId=${tab.targetId}`), undefined, 200);
    const first = log.network.entries[0];
    await call('GET', q('/network/body', `&targetId=${tab.targetId}&id=${first.id}`), undefined, 200);
    await call('POST', q('/network/har'), { targetId: tab.targetId }, 200);
    await call('POST', q('/trace/start'), undefined, 200);
    await call('POST', q('/trace/stop'), {}, 200);
    await call('POST', q('/video/start'), { targetId: tab.targetId }, 200);
    await call('POST', q('/video/start'), { targetId: tab.targetId }, 400);
    await call('POST', q('/video/stop'), {}, 200);
    await call('GET', q('/videos'), undefined, 200);
    // A person teaching: a demonstration (of nothing, here) saved as a routine, run, deleted; a note.
    await call('POST', q('/demonstrations/start'), { targetId: tab.targetId }, 200);
    await call('GET', q('/demonstrations'), undefined, 200);
    await call('POST', q('/demonstrations/stop'), { targetId: tab.targetId, name: `shown-${profile}` }, 200);
    await call('GET', '/routines', undefined, 200);
    await call('GET', `/routines/shown-${profile}`, undefined, 200);
    await call('GET', `/routines/shown-${profile}/script`, undefined, 200);
    await call('POST', q(`/routines/shown-${profile}/run`), { targetId: tab.targetId }, 200);
    await call('POST', q(`/routines/shown-${profile}/run`), { targetId: tab.targetId, params: { nope: 'x' } }, 400);
    await call('DELETE', `/routines/shown-${profile}`, undefined, 200);
    await call('GET', `/routines/shown-${profile}`, undefined, 404);
    await call('POST', q('/notes/start'), { targetId: tab.targetId }, 200);
    await call('POST', q('/notes/cancel'), { targetId: tab.targetId }, 200);
    const note = await call('POST', q('/notes'), { targetId: tab.targetId, text: 'mind the form' }, 201);
    await call('GET', q('/notes', `&targetId=${tab.targetId}`), undefined, 200);
    await call('POST', q('/notes/done'), { id: note.id }, 200);
    await call('POST', q('/screencast/input'), { targetId: tab.targetId, type: 'move', x: 0.5, y: 0.5 }, 200);
    await call('GET', q('/actions', '&limit=5'), undefined, 200);
    await call('DELETE', q(`/tabs/${tab.targetId}`), undefined, 200);
  });

  it('the toolbox: emulation, routes, init scripts, storage', async () => {
    const tab = await call('POST', q('/tabs/open'), { url: env.fixtures.url('form.html') }, 200);
    const targetId = tab.targetId;
    await call(
      'POST',
      q('/emulation'),
      {
        targetId,
        device: 'Pixel 7',
        timezone: 'Europe/Paris',
        headers: { values: { 'x-a': '1' } },
        httpCredentials: { username: 'u', password: 'p', origin: 'https://example.com' },
      },
      200,
    );
    await call('GET', q('/emulation', `&targetId=${targetId}`), undefined, 200);
    await call('DELETE', q('/emulation', `&targetId=${targetId}`), undefined, 200);
    const route = await call('POST', q('/routes'), { targetId, url: '**/nothing', action: 'fulfill', body: 'x' }, 201);
    await call('GET', q('/routes'), undefined, 200);
    await call('DELETE', q(`/routes/${route.id}`), undefined, 200);
    const script = await call('POST', q('/init-scripts'), { targetId, script: 'window.a = 1' }, 201);
    await call('GET', q('/init-scripts'), undefined, 200);
    await call('DELETE', q(`/init-scripts/${script.id}`), undefined, 200);
    await call('POST', q('/storage/cookies'), { cookies: [{ name: 'c', value: 'v', url: env.fixtures.url('') }] }, 200);
    await call('GET', q('/storage/cookies', `&url=${encodeURIComponent(env.fixtures.url(''))}`), undefined, 200);
    await call('DELETE', q('/storage/cookies', '&name=c'), undefined, 200);
    await call('POST', q('/storage/items'), { targetId, items: { k: 'v' } }, 200);
    await call('GET', q('/storage/items', `&targetId=${targetId}`), undefined, 200);
    await call('DELETE', q('/storage/items', `&targetId=${targetId}`), undefined, 200);
    if (profile === 'clawd') {
      const state = await call('GET', q('/storage/state', '&indexedDB=true'), undefined, 200);
      await call('POST', q('/storage/state'), { state: { cookies: state.cookies, origins: state.origins } }, 200);
    } else {
      await call('GET', q('/storage/state'), undefined, 403);
    }
    await call('DELETE', q(`/tabs/${targetId}`), undefined, 200);
  });

  it('its errors: a bad body names the field, an unknown tab is a 404, both in the documented shape', async () => {
    const bad = await call('POST', q('/navigate'), { url: 'not a url' }, 400);
    expect(bad.error.message).toMatch(/url/);
    await call('POST', q('/tabs/focus'), { targetId: 'NO-SUCH-TAB' }, 404);
    await call('POST', q('/act'), { kind: 'click' }, 400);
  });
});

describe('sessions, grants, the vault and profiles answer as their document says', () => {
  it('a task session from open to close', async () => {
    const session = await call('POST', '/sessions', { credential_mode: 'clean', ttl: 300 }, 201);
    await call('GET', '/sessions', undefined, 200);
    await call('POST', `/sessions/${session.id}/extend`, { ttl: 600 }, 200);
    await call('POST', `/sessions/${session.id}/approvals`, { rule: 'payments' }, 200);
    await call('POST', `/sessions/${session.id}/approvals`, { rule: 'no-such-rule' }, 404);
    await call('POST', `/tabs/open?profile=${session.profile}`, { url: env.fixtures.url('index.html') }, 200);
    const handoff = await call('POST', `/handoff?profile=${session.profile}`, { reason: 'documented', timeoutSec: 60 }, 201);
    await call('GET', '/handoffs', undefined, 200);
    await call('GET', `/handoff/${handoff.id}?wait=0`, undefined, 200);
    await call('DELETE', `/handoff/${handoff.id}`, undefined, 200);
    await call('GET', `/handoff/${handoff.id}?wait=1`, undefined, 200);
    await call('GET', `/audit?session=${session.id}`, undefined, 200);
    await call('GET', `/audit/recording?session=${session.id}`, undefined, 200);
    await call('DELETE', `/sessions/${session.id}`, undefined, 200);
    await call('DELETE', `/sessions/${session.id}`, undefined, 404);
  });

  it('grants, the vault, profiles, the dashboard link', async () => {
    await call('GET', '/grants', undefined, 200);
    await call('GET', '/vault', undefined, 200);
    await call('POST', '/secrets', { tenant: 'documented', name: 'pw', domains: ['example.com'], value: 'not shown' }, 201);
    await call('GET', '/secrets?tenant=documented', undefined, 200);
    await call('DELETE', '/secrets?tenant=documented&name=pw', undefined, 200);
    await call('DELETE', '/secrets', undefined, 400);
    await call('GET', '/profiles', undefined, 200);
    await call('POST', '/profiles/create', { name: 'documented', color: '#123456' }, 201);
    await call('POST', '/profiles/create', { name: 'documented' }, 409);
    await call('DELETE', '/profiles/documented', undefined, 200);
    await call('POST', '/dashboard/link', undefined, 200);
    // A health check's answer, 200 or 503, has the same documented shape.
    await call('GET', '/pressure');
    // The person's own Chrome, never attached here: its state, and a detach that has nothing to let go of.
    await call('GET', '/chrome');
    await call('POST', '/chrome/detach', {});
  });

  it('covered most of the document', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const reached = new Set(checked.map((key) => operationKey(key)));
    // The streams, images, MCP, the one-time login, page tools (page-tools.test.ts), the browse runtime (browse.test.ts) and attaching the person's Chrome (chrome-consent.test.ts) are checked by their own suites.
    const elsewhere = [
      'POST /chrome/attach',
      'POST /chrome/picker/open',
      'GET /chrome/picker/login',
      'GET /chrome/picker',
      'GET /chrome/picker/tabs',
      'POST /chrome/picker/lend',
      'GET /page-tools',
      'POST /page-tools/call',
      'POST /browse',
      'GET /browse',
      'DELETE /browse/{run}',
      'GET /screencast',
      'GET /screencast/frame',
      'GET /dashboard/login',
      'GET /events',
      'POST /mcp',
      'GET /openapi.json',
      'POST /pdf',
      'POST /hooks/file-chooser',
      'POST /reset-profile',
      'POST /stop',
      'POST /grants',
      'DELETE /grants/{id}',
      'DELETE /vault',
      'POST /vault/refresh',
      'POST /vault/refresh/{id}/done',
      'POST /vault/from-extension',
      'GET /handoff/{id}/open',
      'GET /handoff/{id}/page',
      'POST /handoff/{id}/answer',
      'GET /videos/file',
      'GET /metrics',
      'GET /handoff/{id}/screencast',
      'POST /handoff/{id}/input',
    ];
    expect(documented.filter((key) => !reached.has(key) && !elsewhere.includes(key))).toEqual([]);
  });
});

/** `DELETE /tabs/ABC` → `DELETE /tabs/{targetId}`, as the document names it. */
function operationKey(key: string): string {
  const [method, path] = key.split(' ');
  for (const template of Object.keys(document.paths)) if (new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(path)) return `${method} ${template}`;
  return key;
}
