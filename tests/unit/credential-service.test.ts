import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_WAIT_MS } from '../../relay/src/api/schemas.js';
import type { ProfileManager } from '../../relay/src/driver/profile-manager.js';
import { ForbiddenError, UnavailableError } from '../../relay/src/errors.js';
import { ActionLog } from '../../relay/src/runtime/action-log.js';
import { CredentialService } from '../../relay/src/service/credential-service.js';
import type { AdmissionLimits } from '../../relay/src/sessions/admission-queue.js';
import type { TaskSessions } from '../../relay/src/sessions/task-sessions.js';
import { AuditLog } from '../../relay/src/vault/audit-log.js';
import { CookieVault, FileVaultRows } from '../../relay/src/vault/cookie-vault.js';
import { FileRevocations, Grants } from '../../relay/src/vault/grants.js';
import { FileSecretRows, SecretStore } from '../../relay/src/vault/secret-store.js';
import { fakeTaskSessions } from '../harness/service-fakes.js';
import { tempDirs } from '../harness/temp-dirs.js';

// CredentialService built alone over the real vault: the cookie vault, the secret store, the grants and
// their revocations, the audit log and the action log are the real ones, each in a temp dir. Faked is only
// what needs a browser: task sessions (harness/service-fakes.ts: the real admission queue, sessions that are
// their SessionInfo) and the profile manager (its config, and the user's Chrome as the extension reads it:
// its cookies and its shared tabs' localStorage). The person's answer in the extension is a function.

const dirs = tempDirs('clawd-credentials-');

/** A cookie as a browser reports it (Playwright's shape); `expires` in seconds, -1 for a session cookie. */
const browserCookie = (name: string, value: string, domain: string, expires = -1) => ({
  name,
  value,
  domain,
  path: '/',
  expires,
  httpOnly: true,
  secure: true,
  sameSite: 'Lax',
});
const inSeconds = (seconds: number) => Math.round(Date.now() / 1000) + seconds;

function setup(options: { actionTimeoutMs?: number; limits?: AdmissionLimits; consent?: (domains: string[]) => Promise<string[]> } = {}) {
  const home = dirs();
  const vaultKey = randomBytes(32);
  const vault = new CookieVault(new FileVaultRows(join(home, 'vault', 'cookies.json')), vaultKey);
  const secrets = new SecretStore(new FileSecretRows(join(home, 'vault', 'secrets.json')), vaultKey);
  const grants = new Grants(randomBytes(32), new FileRevocations(join(home, 'vault', 'revoked-grants.json')));
  const auditPath = join(home, 'logs', 'audit.jsonl');
  const audit = new AuditLog(auditPath);
  const actionLog = new ActionLog(join(home, 'logs'));
  const sessions = fakeTaskSessions(home, options.limits);
  // The user's own Chrome, as the extension profile reads it.
  const chrome = {
    cookies: [] as Array<ReturnType<typeof browserCookie>>,
    origins: [] as Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>,
    reads: 0,
  };
  const manager = {
    registry: { config: () => ({ actionTimeoutMs: options.actionTimeoutMs ?? 5_000 }) },
    driver: (name?: string) => {
      if (name !== 'extension') throw new Error(`only the user's Chrome is read here, not ${name}`);
      chrome.reads++;
      return { cookies: async () => chrome.cookies, toolbox: { openTabsStorage: async () => chrome.origins } };
    },
  } as unknown as ProfileManager;
  const asked: Array<{ tenant: string; domains: string[]; timeoutMs: number }> = [];
  const askConsent = async (tenant: string, domains: string[], timeoutMs: number) => {
    asked.push({ tenant, domains, timeoutMs });
    return options.consent ? options.consent(domains) : domains;
  };
  const credentials = { sessions: sessions as unknown as TaskSessions, vault: () => vault, secrets: () => secrets, grants: () => grants, audit, askConsent };
  const service = new CredentialService(credentials, manager, actionLog);
  /** The audit as it is on disk: what a value must never be found in. */
  const auditFile = () => (existsSync(auditPath) ? readFileSync(auditPath, 'utf8') : '');
  const events = () => audit.all().map((entry) => `${entry.event}:${entry.outcome}`);
  return { service, sessions, vault, secrets, grants, audit, auditFile, events, actionLog, chrome, asked };
}

const clean = { credential_mode: 'clean' as const };
const operations = (actionLog: ActionLog) => actionLog.recent().map((action) => `${action.profile}:${action.kind}:${action.outcome}`);

describe('CredentialService: task sessions', () => {
  it("opens a session in an admission slot as a logged operation, lists it with the fleet's and the spares, extends and closes it", async () => {
    const { service, sessions, actionLog } = setup();
    const opened = await service.openSession({ ...clean, tenant: 'acme', ttl: 60 });
    expect(opened).toMatchObject({ credential_mode: 'clean', tenant: 'acme', key: `key-of-${opened.id}` });
    expect(sessions.opened).toEqual([{ request: { ...clean, tenant: 'acme', ttl: 60 }, refresh: false }]);
    expect(sessions.admission.inUse).toBe(1);
    expect(operations(actionLog)).toEqual(['sessions:session-open:ok']);

    sessions.elsewhere.push({ ...opened, id: 'fedcba987654', profile: 'session-fedcba987654', key: undefined });
    const listed = await service.listSessions();
    expect(listed.sessions.map((session) => session.id)).toEqual([opened.id, 'fedcba987654']);
    expect(listed.spares).toEqual({ ready: 1, starting: 0, wanted: 1 });

    const { extended } = await service.extendSession(opened.id, 3600);
    expect(Date.parse(extended.expiresAt)).toBeGreaterThan(Date.parse(opened.expiresAt));
    expect((await service.closeSession(opened.id)).closed.id).toBe(opened.id);
    expect(sessions.admission.inUse).toBe(0);
    await expect(service.closeSession(opened.id)).rejects.toMatchObject({ status: 404 });
  });

  it('keeps a request beyond capacity waiting; one whose caller leaves the queue starts nothing, the next gets the freed slot', async () => {
    const { service, sessions } = setup({ limits: { capacity: 1, queue: 2, waitMs: 60_000 } });
    const first = await service.openSession(clean);
    const leaving = new AbortController();
    const left = service.openSession(clean, leaving.signal);
    const next = service.openSession(clean);
    await expect.poll(() => sessions.admission.waiting).toBe(2);
    leaving.abort();
    await expect(left).rejects.toThrow();
    expect(sessions.admission.waiting).toBe(1);
    await service.closeSession(first.id);
    const second = await next;
    expect(sessions.opened).toHaveLength(2);
    expect([...sessions.live.keys()]).toEqual([second.id]);
  });

  it('starts no browser for a caller that left between being given its slot and its start, and frees the slot', async () => {
    const { service, sessions, actionLog } = setup({ limits: { capacity: 1, queue: 1, waitMs: 60_000 } });
    const first = await service.openSession(clean);
    const leaving = new AbortController();
    const left = service.openSession(clean, leaving.signal);
    await expect.poll(() => sessions.admission.waiting).toBe(1);
    // The first's end hands its slot to the waiter at once; the caller goes before its start runs.
    void sessions.close(first.id);
    leaving.abort();
    await expect(left).rejects.toThrow(/the caller disconnected/);
    expect(sessions.opened).toHaveLength(1);
    expect(sessions.live.size).toBe(0);
    expect(sessions.admission.inUse).toBe(0);
    expect(operations(actionLog)).toEqual(['sessions:session-open:ok', 'sessions:session-open:aborted']);
  });

  it('closes a session whose caller left while it started as soon as it exists, freeing its slot', async () => {
    const { service, sessions, actionLog } = setup();
    const release = sessions.holdStarts();
    const leaving = new AbortController();
    const opening = service.openSession(clean, leaving.signal);
    await expect.poll(() => sessions.opened.length).toBe(1);
    leaving.abort();
    await expect(opening).rejects.toThrow(/the caller disconnected/);
    expect(sessions.closed).toEqual([]);
    release();
    await expect.poll(() => sessions.closed).toEqual([{ id: expect.any(String), reason: 'its caller left while it started' }]);
    expect(sessions.admission.inUse).toBe(0);
    expect(operations(actionLog)).toEqual(['sessions:session-open:aborted']);
  });

  it('bounds a start by the action timeout: a 504 naming the limit, and the session that came late is closed', async () => {
    const { service, sessions, actionLog } = setup({ actionTimeoutMs: 100 });
    const release = sessions.holdStarts();
    await expect(service.openSession(clean)).rejects.toMatchObject({
      status: 504,
      message: expect.stringContaining('session-open took longer than the action timeout of 100 ms'),
    });
    release();
    await expect.poll(() => sessions.closed.map((closed) => closed.reason)).toEqual(['its caller left while it started']);
    expect(sessions.admission.inUse).toBe(0);
    expect(operations(actionLog)).toEqual(['sessions:session-open:timeout']);
  });

  it('answers a start that fails with its error, logs it, and the slot is free again', async () => {
    const { service, sessions, actionLog } = setup();
    sessions.failStarts(new ForbiddenError('Grant refused: it expired at 2020-01-01T00:00:00.000Z'));
    await expect(service.openSession({ credential_mode: 'operator', tenant: 'acme', grant: 'x.y' })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('expired'),
    });
    expect(sessions.admission.inUse).toBe(0);
    expect(actionLog.recent()[0]).toMatchObject({ kind: 'session-open', outcome: 'error', error: 'Grant refused: it expired at 2020-01-01T00:00:00.000Z' });
  });

  it('opens a vault refresh as a clean session a person drives, says where to watch it and where to say done; done saves and ends it', async () => {
    const { service, sessions, actionLog } = setup();
    const refresh = await service.refresh({ tenant: 'acme', domains: ['shop.example'] });
    expect(sessions.opened).toEqual([{ request: { credential_mode: 'clean', tenant: 'acme', domains: ['shop.example'], ttl: 900 }, refresh: true }]);
    expect(refresh).toMatchObject({
      credential_mode: 'refresh',
      liveView: `/screencast?profile=session-${refresh.id}`,
      done: `/vault/refresh/${refresh.id}/done`,
    });
    expect(operations(actionLog)).toEqual(['sessions:vault-refresh:ok']);
    const plain = await service.openSession(clean);
    await expect(service.refreshDone(plain.id)).rejects.toMatchObject({ status: 404 });
    expect(await service.refreshDone(refresh.id, ['shop.example'])).toEqual({ saved: [{ domain: 'shop.example', cookies: 1, origins: 0 }] });
    expect(sessions.refreshesSaved).toEqual([{ id: refresh.id, domains: ['shop.example'] }]);
    expect(sessions.closed).toEqual([{ id: refresh.id, reason: 'refresh saved' }]);
  });
});

describe('CredentialService: grants', () => {
  it("refuses, with a 404 before anything is issued, a grant naming a secret the tenant does not have (another tenant's does not count)", async () => {
    const { service, secrets, events } = setup();
    await secrets.set('other', 'pw', ['shop.example'], 'other-tenants-password');
    await expect(service.issueGrant({ tenant: 'acme', domains: ['shop.example'], ttl: 3600, secrets: ['pw', 'otp'] })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('Tenant acme has no secret pw, otp'),
    });
    await secrets.set('acme', 'pw', ['shop.example'], 'acme-password');
    await expect(service.issueGrant({ tenant: 'acme', domains: ['shop.example'], ttl: 3600, secrets: ['pw', 'otp'] })).rejects.toThrow(
      /has no secret otp: set it first/,
    );
    expect(events()).toEqual([]);
    expect(await service.liveGrants()).toEqual({ grants: [] });
  });

  it('issues a grant the grants verify, audited with its tenant, domains, expiry and secret names, never a cookie value or the token', async () => {
    const { service, vault, secrets, grants, audit, auditFile } = setup();
    await vault.save('acme', 'shop.example', [{ name: 'sid', value: 'cookie-value-7f3a', domain: '.shop.example', path: '/', expires: inSeconds(30 * 86400) }]);
    await secrets.set('acme', 'pw', ['shop.example'], 'hunter2-password');
    const issued = await service.issueGrant({ tenant: 'acme', domains: ['Shop.Example'], ttl: 3600, secrets: ['pw'], origin_session_id: 'abc' });
    expect(issued.grant).toMatchObject({ tenant: 'acme', allowed_domains: ['shop.example'], allowed_secrets: ['pw'], origin_session_id: 'abc' });
    expect(issued.grant.expires_at - Date.now()).toBeGreaterThan(3590_000);
    expect('warnings' in issued).toBe(false);
    expect((await grants.verify(issued.token, { tenant: 'acme', domains: ['shop.example'] })).id).toBe(issued.grant.id);
    await expect(grants.verify(issued.token, { tenant: 'acme', domains: ['bank.example'] })).rejects.toThrow(/outside the grant/);

    const expiresAt = new Date(issued.grant.expires_at).toISOString();
    expect(audit.all()).toEqual([
      {
        time: expect.any(String),
        event: 'grant',
        tenant: 'acme',
        domains: ['shop.example'],
        grantId: issued.grant.id,
        expiresAt,
        outcome: 'ok',
        detail: `expires ${expiresAt}; secrets pw`,
      },
    ]);
    expect((await service.audit({ event: 'grant', limit: 10 })).entries.map((entry) => entry.grantId)).toEqual([issued.grant.id]);
    for (const kept of ['cookie-value-7f3a', 'hunter2', issued.token, issued.token.split('.')[1]]) expect(auditFile()).not.toContain(kept);
  });

  it('warns, on the grant and in its audit, of lent logins that will not last: a domain the vault has nothing for, cookies that expire first', async () => {
    const { service, vault, audit } = setup();
    await vault.save('acme', 'shop.example', [{ name: 'sid', value: 'v', domain: 'shop.example', path: '/', expires: inSeconds(60) }]);
    const issued = await service.issueGrant({ tenant: 'acme', domains: ['shop.example', 'bank.example'], ttl: 3600 });
    expect(issued).toMatchObject({
      warnings: [
        expect.stringMatching(/^shop\.example: 1 of 1 lent cookies of acme expire at .* before /),
        'bank.example: the vault holds no login of acme for it: refresh the login first',
      ],
    });
    const detail = audit.all()[0].detail!;
    for (const warning of (issued as { warnings: string[] }).warnings) expect(detail).toContain(warning);
  });

  it('lists live grants newest first with the sessions given cookies under each; a revoked grant stops verifying and drops out, an expired one too', async () => {
    const { service, grants, audit, events } = setup();
    const first = await service.issueGrant({ tenant: 'acme', domains: ['shop.example'], ttl: 3600 });
    const second = await service.issueGrant({ tenant: 'beta', domains: ['bank.example'], ttl: 600 });
    // What TaskSessions records as it lends a grant's cookies to a session.
    audit.record({ event: 'inject', tenant: 'acme', session: 's1', grantId: first.grant.id, outcome: 'ok' });
    audit.record({ event: 'inject', tenant: 'acme', session: 's2', grantId: first.grant.id, outcome: 'refused' });
    // Grants an older server audited with their expiry in the detail only: one long expired, one still live.
    audit.record({ event: 'grant', tenant: 'acme', domains: ['old.example'], grantId: 'long-gone', outcome: 'ok', detail: 'expires 2020-01-01T00:00:00.000Z' });
    const later = new Date(Date.now() + 60_000).toISOString();
    audit.record({ event: 'grant', tenant: 'acme', domains: ['old.example'], grantId: 'older-live', outcome: 'ok', detail: `expires ${later}` });

    const live = (await service.liveGrants()).grants;
    expect(live.map((grant) => [grant.id, grant.tenant, grant.domains, grant.sessions])).toEqual([
      ['older-live', 'acme', ['old.example'], []],
      [second.grant.id, 'beta', ['bank.example'], []],
      [first.grant.id, 'acme', ['shop.example'], ['s1']],
    ]);
    expect(live[2].expiresAt).toBe(new Date(first.grant.expires_at).toISOString());

    expect(await service.revokeGrant(first.grant.id)).toEqual({ revoked: first.grant.id });
    await expect(grants.verify(first.token, { tenant: 'acme', domains: ['shop.example'] })).rejects.toThrow(`grant ${first.grant.id} was revoked`);
    expect(await grants.verify(second.token, { tenant: 'beta', domains: ['bank.example'] })).toMatchObject({ id: second.grant.id });
    expect((await service.liveGrants()).grants.map((grant) => grant.id)).toEqual(['older-live', second.grant.id]);
    expect(audit.all().at(-1)).toMatchObject({ event: 'grant-revoked', grantId: first.grant.id, outcome: 'ok' });
    expect(events().filter((event) => event.startsWith('grant'))).toEqual(['grant:ok', 'grant:ok', 'grant:ok', 'grant:ok', 'grant-revoked:ok']);
  });
});

describe('CredentialService: the cookie vault and secrets', () => {
  it('lists what the vault holds without values, forgets a domain or all of a tenant, audited by domain; forgetting needs a tenant', async () => {
    const { service, vault, audit } = setup();
    await vault.save('acme', 'shop.example', [{ name: 'sid', value: 'shop-cookie-value', domain: 'shop.example', path: '/' }]);
    await vault.save('acme', 'bank.example', [{ name: 'sid', value: 'bank-cookie-value', domain: 'bank.example', path: '/' }]);
    await vault.save('other', 'shop.example', [{ name: 'sid', value: 'others-cookie-value', domain: 'shop.example', path: '/' }]);
    const listed = await service.vault('acme');
    expect(listed.entries.map((entry) => [entry.tenant, entry.domain, entry.cookies])).toEqual([
      ['acme', 'shop.example', 1],
      ['acme', 'bank.example', 1],
    ]);
    expect(JSON.stringify(listed)).not.toContain('cookie-value');

    await expect(service.forget(undefined)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Give the tenant') });
    expect((await service.forget('acme', 'Shop.Example')).forgotten.map((entry) => entry.domain)).toEqual(['shop.example']);
    expect((await service.forget('acme')).forgotten.map((entry) => entry.domain)).toEqual(['bank.example']);
    expect((await service.vault()).entries.map((entry) => `${entry.tenant}/${entry.domain}`)).toEqual(['other/shop.example']);
    expect(audit.all().map((entry) => [entry.event, entry.tenant, entry.domains])).toEqual([
      ['vault-forget', 'acme', ['shop.example']],
      ['vault-forget', 'acme', ['bank.example']],
    ]);
  });

  it('takes a secret in and never gives its value out, in an answer, a listing or the audit; a forgotten secret can no longer be granted', async () => {
    const { service, secrets, audit, auditFile } = setup();
    const set = await service.setSecret({ tenant: 'acme', name: 'pw', domains: ['Shop.Example', 'shop.example'], value: 'hunter2-password', kind: 'secret' });
    expect(set).toEqual({ tenant: 'acme', name: 'pw', domains: ['shop.example'], savedAt: expect.any(String) });
    await service.setSecret({ tenant: 'acme', name: 'otp', domains: ['shop.example'], value: 'JBSWY3DPEHPK3PXP', kind: 'totp' });
    const listed = await service.secrets('acme');
    expect(listed.secrets.map((secret) => [secret.name, secret.kind])).toEqual([
      ['pw', undefined],
      ['otp', 'totp'],
    ]);
    expect((await secrets.open('acme', 'pw'))?.value).toBe('hunter2-password');
    expect(await service.secrets('other')).toEqual({ secrets: [] });

    expect(await service.forgetSecret('acme', 'pw')).toEqual({ forgotten: [set] });
    await expect(service.issueGrant({ tenant: 'acme', domains: ['shop.example'], ttl: 60, secrets: ['pw'] })).rejects.toMatchObject({ status: 404 });
    expect(audit.all().map((entry) => [entry.event, entry.tenant, entry.domains, entry.detail])).toEqual([
      ['secret-set', 'acme', ['shop.example'], 'pw'],
      ['secret-set', 'acme', ['shop.example'], 'otp (one-time code seed)'],
      ['secret-forget', 'acme', undefined, 'pw'],
    ]);
    for (const value of ['hunter2', 'JBSWY3DP']) {
      expect(JSON.stringify(listed)).not.toContain(value);
      expect(auditFile()).not.toContain(value);
    }
  });
});

describe("CredentialService: saving from the user's Chrome", () => {
  it('reads no cookie and saves nothing when the person does not allow it: a 403, audited as refused', async () => {
    const { service, vault, chrome, asked, audit } = setup({ consent: async () => [] });
    chrome.cookies.push(browserCookie('sid', 'shop-cookie-value', '.shop.example'));
    await expect(service.fromExtension({ tenant: 'acme', domains: ['shop.example'] })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('did not allow shop.example'),
    });
    expect(asked).toEqual([{ tenant: 'acme', domains: ['shop.example'], timeoutMs: MAX_WAIT_MS }]);
    expect(chrome.reads).toBe(0);
    expect(await vault.list()).toEqual([]);
    expect(audit.all()).toMatchObject([
      { event: 'extension-saved', tenant: 'acme', domains: ['shop.example'], outcome: 'refused', detail: 'not confirmed in the extension' },
    ]);
  });

  it('saves only the domains the person allowed, with the localStorage of their shared tabs, and says which were refused', async () => {
    const { service, vault, chrome, asked, audit, auditFile } = setup({ consent: async (domains) => domains.filter((domain) => domain === 'shop.example') });
    chrome.cookies.push(
      browserCookie('sid', 'shop-cookie-value', '.shop.example', inSeconds(86400)),
      browserCookie('pref', 'dark-mode-pref', 'www.shop.example'),
      browserCookie('sid', 'bank-cookie-value', '.bank.example'),
    );
    chrome.origins.push(
      { origin: 'https://www.shop.example', localStorage: [{ name: 'cart', value: 'cart-contents-42' }] },
      { origin: 'https://bank.example', localStorage: [{ name: 'token', value: 'bank-local-token' }] },
    );
    const answer = await service.fromExtension({ tenant: 'acme', domains: ['shop.example', 'bank.example'], timeoutMs: 30_000 });
    expect(answer).toEqual({ saved: [{ domain: 'shop.example', cookies: 2, origins: 1 }], refused: ['bank.example'] });
    expect(asked).toEqual([{ tenant: 'acme', domains: ['shop.example', 'bank.example'], timeoutMs: 30_000 }]);

    expect((await vault.list()).map((entry) => `${entry.tenant}/${entry.domain}`)).toEqual(['acme/shop.example']);
    const shop = await vault.load('acme', ['shop.example']);
    expect(shop.cookies.map((cookie) => cookie.value)).toEqual(['shop-cookie-value', 'dark-mode-pref']);
    expect(shop.origins).toEqual([{ origin: 'https://www.shop.example', localStorage: [{ name: 'cart', value: 'cart-contents-42' }] }]);
    expect(await vault.load('acme', ['bank.example'])).toEqual({ cookies: [], origins: [], passkeys: [] });

    expect(audit.all()).toMatchObject([
      { event: 'extension-saved', tenant: 'acme', domains: ['shop.example'], outcome: 'ok', detail: 'shop.example: 2 cookies, 1 origins' },
    ]);
    for (const value of ['cookie-value', 'dark-mode-pref', 'cart-contents', 'bank-local-token']) expect(auditFile()).not.toContain(value);
  });

  it('saves no domain it did not ask about, whatever the answer holds', async () => {
    const { service, vault, chrome } = setup({ consent: async (domains) => [...domains, 'bank.example'] });
    chrome.cookies.push(browserCookie('sid', 'shop-cookie-value', '.shop.example'), browserCookie('sid', 'bank-cookie-value', '.bank.example'));
    const answer = await service.fromExtension({ tenant: 'acme', domains: ['shop.example'] });
    expect(answer).toEqual({ saved: [{ domain: 'shop.example', cookies: 1, origins: 0 }], refused: [] });
    expect((await vault.list()).map((entry) => entry.domain)).toEqual(['shop.example']);
  });

  it('answers that the extension is not there when it cannot ask, and saves nothing', async () => {
    const { service, vault, chrome, events } = setup({
      consent: async () => Promise.reject(new UnavailableError('The clawd-browser extension is not connected')),
    });
    await expect(service.fromExtension({ tenant: 'acme', domains: ['shop.example'] })).rejects.toMatchObject({ status: 503 });
    expect(chrome.reads).toBe(0);
    expect(await vault.list()).toEqual([]);
    expect(events()).toEqual([]);
  });
});

describe('CredentialService: recorded screenshots', () => {
  it("lists a session's recorded screenshots oldest first and serves one only by a recorded screenshot's name", async () => {
    const { service, sessions } = setup();
    const id = '0123456789ab';
    const dir = sessions.recordingDir(id);
    mkdirSync(dir, { recursive: true });
    for (const file of ['0002-type.jpeg', '0001-click.jpeg', 'notes.txt', '0003-click.png']) writeFileSync(join(dir, file), `bytes of ${file}`);
    expect(service.recording(id)).toEqual({
      session: id,
      shots: [
        { file: '0001-click.jpeg', action: 'click', time: expect.any(String) },
        { file: '0002-type.jpeg', action: 'type', time: expect.any(String) },
      ],
    });
    expect(service.recordedShot(id, '0002-type.jpeg').toString()).toBe('bytes of 0002-type.jpeg');
    expect(() => service.recordedShot(id, 'notes.txt')).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => service.recordedShot(id, '../../vault/cookies.json')).toThrow(/is not a recorded screenshot's name/);
    expect(() => service.recordedShot(id, '0009-click.jpeg')).toThrow(expect.objectContaining({ status: 404 }));
    expect(service.recording('ba9876543210')).toEqual({ session: 'ba9876543210', shots: [] });
  });
});
