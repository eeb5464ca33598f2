import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import type { Logger } from '../../relay/src/log.js';
import { MIGRATIONS } from '../../relay/src/store/migrations.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { startPostgres, type TestPostgres } from '../harness/postgres.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { freshHome } from '../harness/control-env.js';

/**
 * Two servers with one store, Debian's PostgreSQL in a cluster of the
 * test's own: they start together and the schema is brought up once; the
 * audit written through either is one query through the other, and its
 * console hears the other's entries as they are written; a grant revoked
 * through one is refused by the other at once; a login saved to the vault
 * through one is lent by the other (the store holds sealed rows, never a
 * cookie), and a secret set through one is typed by the other; with the store
 * stopped, reading is a 503 that names it, writing is acknowledged and
 * kept, and nothing acknowledged is lost when it comes back; the store's
 * password is never logged; a server whose store does not answer does not
 * start.
 */

let postgres: TestPostgres;
const servers: Array<{ server: ClawdServer; home: string; base: string }> = [];
const logLines: string[] = [];
const logger: Logger = {
  debug: (message) => void logLines.push(message),
  info: (message) => void logLines.push(message),
  warn: (message) => void logLines.push(message),
  error: (message) => void logLines.push(message),
};

/** The grant and vault keys every server of the fleet is given (secrets each mounts; never in the store). */
const sharedGrantKey = randomBytes(32).toString('hex');
const sharedVaultKey = randomBytes(32).toString('hex');
const sharedToken = randomBytes(32).toString('hex');
/** The session value a test site hands out at login: nowhere in the store may it appear in plaintext. */
const sessionValue = `sid-${randomBytes(12).toString('hex')}`;
let site: Awaited<ReturnType<typeof startTestSite>>;

async function serverWith(storeUrl: string) {
  const base = `http://127.0.0.1:${(await freePortPair()).control}`;
  const home = freshHome({ controlUrl: base, headless: true, noSandbox: true, sessionSpares: 0, store: { postgres: { url: storeUrl } } });
  writeFileSync(join(home, 'grant.key'), `${sharedGrantKey}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'vault.key'), `${sharedVaultKey}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'token'), `${sharedToken}\n`, { mode: 0o600 });
  return { home, base, start: () => startServer({ home, logger }) };
}

beforeAll(async () => {
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/login' && request.method === 'POST')
      return void response.writeHead(303, { location: '/account', 'set-cookie': `session=${sessionValue}; Path=/; HttpOnly; Max-Age=3600` }).end();
    if (url.pathname === '/login')
      return void response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Log in</title><form method="post" action="/login"><button>Log in</button></form>');
    // The page says what was typed by its length and its last character only.
    if (url.pathname === '/code')
      return void response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>Code</title><label>Code <input id="code"></label><button onclick="document.title = `typed ${code.value.length} ${code.value.slice(-1)}`">Check</button>',
        );
    const signedIn = (request.headers.cookie ?? '').includes(`session=${sessionValue}`);
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Account</title><p id="who">${signedIn ? 'Signed in' : 'Signed out'}</p>`);
  });
  postgres = await startPostgres();
  const made = await Promise.all([serverWith(postgres.url), serverWith(postgres.url)]);
  // Started together: both migrate at once.
  const started = await Promise.all(made.map((each) => each.start()));
  started.forEach((server, index) => servers.push({ server, home: made[index].home, base: made[index].base }));
}, 90_000);
afterAll(async () => {
  for (const { server, home } of servers) {
    await server.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
  postgres?.close();
  await site?.close();
});

function call(which: number, path: string, init: RequestInit = {}) {
  const { base, server } = servers[which];
  return fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...init.headers } });
}
const grant = (which: number, tenant: string, domains = ['example.com']) =>
  call(which, '/grants', { method: 'POST', body: JSON.stringify({ tenant, domains, ttl: 600 }) });
type AuditPage = { entries: Array<{ event: string; tenant?: string; grantId?: string; position: number }>; next?: number };

describe('a fleet of two servers with one store', () => {
  it('brings the schema up once when both start together', async () => {
    const rows = await postgres.query<{ version: number; applied_by: string }>('SELECT version, applied_by FROM clawd_migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(new Set(rows.map((row) => row.applied_by)).size).toBe(1);
  });

  it("answers one audit through either server, and each console hears the other's entries as they are written", async () => {
    expect((await grant(0, 'fleet-a')).status).toBe(201);
    const throughB = (await (await call(1, '/audit?tenant=fleet-a&event=grant')).json()) as AuditPage;
    expect(throughB.entries).toHaveLength(1);
    // Live grants come from the audit, so B lists the grant A issued.
    const grants = (await (await call(1, '/grants')).json()) as { grants: Array<{ tenant: string }> };
    expect(grants.grants.map((each) => each.tenant)).toContain('fleet-a');

    // B's event stream (its console) hears an entry written through A.
    const controller = new AbortController();
    const stream = await call(1, '/events', { signal: controller.signal });
    const reader = stream.body!.getReader();
    let heard = '';
    await grant(0, 'fleet-heard');
    const deadline = Date.now() + 10_000;
    while (!heard.includes('fleet-heard') && Date.now() < deadline) heard += Buffer.from((await reader.read()).value ?? []).toString();
    controller.abort();
    expect(heard).toMatch(/event: audit\ndata: \{[^\n]*"tenant":"fleet-heard"/);

    // Pages by position, newest first, across both servers' entries; and by time.
    await grant(1, 'fleet-a');
    const first = (await (await call(0, '/audit?tenant=fleet-a&limit=1')).json()) as AuditPage;
    expect(first.entries).toHaveLength(1);
    const second = (await (await call(0, `/audit?tenant=fleet-a&limit=1&before=${first.next}`)).json()) as AuditPage;
    expect(second.entries[0].position).toBeLessThan(first.entries[0].position);
    const future = (await (
      await call(0, `/audit?tenant=fleet-a&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    ).json()) as AuditPage;
    expect(future.entries).toEqual([]);
  });

  it('honours a grant issued through one server on the other, and refuses it there at once once revoked through the first', async () => {
    const issued = (await (await grant(0, 'fleet-revoke')).json()) as { token: string; grant: { id: string } };
    const open = () =>
      call(1, '/sessions', {
        method: 'POST',
        body: JSON.stringify({ credential_mode: 'operator', tenant: 'fleet-revoke', grant: issued.token, domains: ['example.com'] }),
      });
    const opened = await open();
    expect(opened.status).toBe(201);
    expect((await call(1, `/sessions/${((await opened.json()) as { id: string }).id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(0, `/grants/${issued.grant.id}`, { method: 'DELETE' })).status).toBe(200);
    const refused = await open();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(`Grant refused: grant ${issued.grant.id} was revoked`);
    expect((await postgres.query<{ grant_id: string }>('SELECT grant_id FROM clawd_revoked_grants')).map((row) => row.grant_id)).toEqual([issued.grant.id]);
  }, 60_000);

  it('opens through one server the vault a login was saved to through the other; the store holds no cookie', async () => {
    const client = (which: number, profile?: string) => new BrowserClient({ baseUrl: servers[which].base, token: servers[which].server.token, profile });
    // A person logs in through a refresh session of server A, and A saves the login.
    const refresh = await client(0).vaultRefresh({ tenant: 'fleet-vault', domains: ['127.0.0.1'] });
    const person = client(0, refresh.profile);
    await person.openTab(`${site.url}/login`);
    await person.click(/button "Log in" \[ref=(\w+)\]/.exec((await person.snapshot()).text)![1]);
    expect((await client(0).vaultRefreshDone(refresh.id)).saved).toEqual([{ domain: '127.0.0.1', cookies: 1, origins: 0 }]);
    // Server B lists it and lends it: an operator session there is signed in on its first page.
    expect((await client(1).vault('fleet-vault')).entries).toEqual([{ tenant: 'fleet-vault', domain: '127.0.0.1', savedAt: expect.any(String), cookies: 1 }]);
    const issued = (await (await grant(1, 'fleet-vault', ['127.0.0.1'])).json()) as { token: string };
    const session = await client(1).openSession({ credential_mode: 'operator', tenant: 'fleet-vault', grant: issued.token });
    expect(session.injectedCookies).toBe(1);
    const agent = client(1, session.profile);
    await agent.openTab(`${site.url}/account`);
    expect((await agent.evaluate("() => document.getElementById('who').textContent")).result).toBe('Signed in');
    await client(1).closeSession(session.id);
    // What the store holds: sealed rows, counts, never the cookie.
    const rows = await postgres.query<Record<string, unknown>>('SELECT * FROM clawd_vault');
    expect(rows.map((row) => [row.tenant, row.domain, row.cookies])).toEqual([['fleet-vault', '127.0.0.1', 1]]);
    expect(JSON.stringify(rows)).not.toContain(sessionValue);
    expect(JSON.stringify(await postgres.query('SELECT entry FROM clawd_audit'))).not.toContain(sessionValue);
  }, 60_000);

  it('types through one server a secret set through the other; the store holds no value', async () => {
    const client = (which: number, profile?: string) => new BrowserClient({ baseUrl: servers[which].base, token: servers[which].server.token, profile });
    const value = `code-${randomBytes(8).toString('hex')}Z`;
    expect(
      (await call(0, '/secrets', { method: 'POST', body: JSON.stringify({ tenant: 'fleet-secret', name: 'code', domains: ['127.0.0.1'], value }) })).status,
    ).toBe(201);
    expect(
      ((await (await call(1, '/secrets?tenant=fleet-secret')).json()) as { secrets: Array<{ name: string }> }).secrets.map((secret) => secret.name),
    ).toEqual(['code']);
    const issued = (await (
      await call(1, '/grants', { method: 'POST', body: JSON.stringify({ tenant: 'fleet-secret', domains: ['127.0.0.1'], ttl: 600, secrets: ['code'] }) })
    ).json()) as { token: string };
    const session = await client(1).openSession({ credential_mode: 'operator', tenant: 'fleet-secret', grant: issued.token });
    const agent = client(1, session.profile);
    await agent.openTab(`${site.url}/code`);
    const { text } = await agent.snapshot();
    await agent.type(/textbox "Code" \[ref=(\w+)\]/.exec(text)![1], '{{secret:code}}');
    const checked = await agent.click(/button "Check" \[ref=(\w+)\]/.exec(text)![1]);
    expect(checked.title).toBe(`typed ${value.length} Z`);
    await client(1).closeSession(session.id);
    const rows = await postgres.query<Record<string, unknown>>('SELECT * FROM clawd_secrets');
    expect(rows.map((row) => [row.tenant, row.name, row.domains])).toEqual([['fleet-secret', 'code', ['127.0.0.1']]]);
    expect(JSON.stringify(rows)).not.toContain(value);
    expect(JSON.stringify(await postgres.query('SELECT entry FROM clawd_audit'))).not.toContain(value);
  }, 60_000);

  it('with the store stopped: what needs it is a 503 that names it, what was acknowledged is written when it is back', async () => {
    // Opened before the store stops; ended while it is away.
    const opened = await call(0, '/sessions', { method: 'POST', body: JSON.stringify({ credential_mode: 'clean', ttl: 60 }) });
    expect(opened.status).toBe(201);
    const whileDown = ((await opened.json()) as { id: string }).id;
    postgres.stop();
    try {
      const refused = await call(0, '/audit');
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        new RegExp(`The store \\(PostgreSQL at ${postgres.name.replace(/[./]/g, '\\$&')}\\) does not answer`),
      );
      // What needs the store is refused, naming it: the vault lends nothing it cannot read, and no session
      // opens that the fleet's other servers could not find.
      expect((await grant(0, 'fleet-while-down')).status).toBe(503);
      const notOpened = await call(0, '/sessions', { method: 'POST', body: JSON.stringify({ credential_mode: 'clean', ttl: 60 }) });
      expect(notOpened.status).toBe(503);
      expect(((await notOpened.json()) as { error: { message: string } }).error.message).toContain(postgres.name);
      // What does not need it goes on, and is acknowledged: the session is closed.
      expect((await call(0, `/sessions/${whileDown}`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      postgres.start();
    }
    // Its end, written when the store came back: in the audit, and in the fleet's registry.
    await waitFor(
      async () => {
        const response = await call(1, `/audit?session=${whileDown}`);
        return response.ok && ((await response.json()) as AuditPage).entries.map((entry) => entry.event).join() === 'session-stop,session-start';
      },
      { timeoutMs: 20_000, message: 'the entries acknowledged while the store was away never reached it' },
    );
    await waitFor(async () => (await postgres.query<{ state: string }>('SELECT state FROM clawd_sessions WHERE id = $1', [whileDown]))[0]?.state === 'ended', {
      timeoutMs: 20_000,
      message: "the session's end never reached the registry",
    });
    // And no browser was left by the session that could not open.
    expect(servers[0].server.sessions.list()).toEqual([]);
  }, 60_000);

  it("never logs the store's password; a server whose store does not answer, or whose token is not the fleet's, does not start", async () => {
    expect(logLines.join('\n')).not.toContain('clawd-test');
    expect(logLines.join('\n')).toContain(`PostgreSQL at ${postgres.name}`);
    const dead = (await freePortPair()).control;
    const orphan = await serverWith(`postgresql://clawd:secret-pw@127.0.0.1:${dead}/clawd`);
    try {
      const failed = await rejection(orphan.start());
      expect(failed.message).toMatch(new RegExp(`The store \\(PostgreSQL at 127.0.0.1:${dead}/clawd\\) does not answer`));
      expect(failed.message).not.toContain('secret-pw');
    } finally {
      rmSync(orphan.home, { recursive: true, force: true });
    }
    // A server given another token than the fleet's does not join it (calls carried between them would be refused).
    const stranger = await serverWith(postgres.url);
    writeFileSync(join(stranger.home, 'token'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    try {
      expect((await rejection(stranger.start())).message).toMatch(/token is not the fleet's/);
    } finally {
      rmSync(stranger.home, { recursive: true, force: true });
    }
  });
});
