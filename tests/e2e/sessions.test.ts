import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient, ForbiddenError } from '../../relay/src/client/browser-client.js';
import { loadOrCreateGrantKey, readToken } from '../../relay/src/config/state-dir.js';
import { findProfileProcesses } from '../../relay/src/profiles/orphans.js';
import { FileRevocations, Grants } from '../../relay/src/vault/grants.js';
import { pageTargets, waitFor } from '../harness/chromium.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { freePortPair } from '../harness/ports.js';
import { type ControlEnv, freshHome, startControlEnv } from '../harness/control-env.js';

/**
 * Task sessions and the cookie vault (spec §11) against real Chromium: a
 * loopback site with a login form that sets a session cookie; a refresh a
 * "person" drives saves it; operator sessions with a grant are logged in on
 * their first page, and nothing else is; the vault holds no plaintext and
 * refuses a changed byte; teardown and the reaper leave nothing behind, also
 * after the server is killed with SIGKILL.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
let siteUrl: string;
/** The session value the site hands out: nowhere on disk may it appear in plaintext. */
const secretSession = `sid-${randomBytes(12).toString('hex')}`;
/** Whether each /account request came with the cookie (the first page proves injection came first). */
const accountVisits: boolean[] = [];

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    const signedIn = (request.headers.cookie ?? '').includes(`session=${secretSession}`);
    if (url.pathname === '/login' && request.method === 'POST') {
      response.writeHead(303, { location: '/account', 'set-cookie': `session=${secretSession}; Path=/; HttpOnly; Max-Age=3600` }).end();
      return;
    }
    if (url.pathname === '/login') {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Log in</title><form method="post" action="/login"><label>User <input name="user"></label><button>Log in</button></form>');
      return;
    }
    if (url.pathname === '/account') accountVisits.push(signedIn);
    // The site keeps a workspace in localStorage and drafts in IndexedDB, written once at setup (?setup):
    // what its first script finds on a later visit is what the browser held before the page.
    const setup = signedIn && url.searchParams.has('setup');
    const storage = `<p id="workspace"></p><script>
      document.getElementById('workspace').textContent = localStorage.getItem('workspace') ?? 'none';
      window.written = ${setup} ? new Promise((resolve) => {
        localStorage.setItem('workspace', 'alice-ws');
        const open = indexedDB.open('app', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('drafts', { keyPath: 'id' });
        open.onsuccess = () => { const tx = open.result.transaction('drafts', 'readwrite'); tx.objectStore('drafts').put({ id: 1, text: 'dear bob' }); tx.oncomplete = () => resolve(true); };
      }) : Promise.resolve(false);
    </script>`;
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Account</title><p id="who">${signedIn ? 'Signed in as alice' : 'Signed out'}</p>${storage}`);
  });
  siteUrl = site.url;
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

async function who(client: BrowserClient): Promise<string> {
  await client.navigate(`${siteUrl}/account`);
  return (await client.evaluate("() => document.getElementById('who').textContent")).result as string;
}

describe('the cookie vault and operator sessions', () => {
  let grantToken: string;

  it('a refresh session a person logs in with saves the cookie, then goes', async () => {
    const api = env.client('clawd');
    const refresh = await api.vaultRefresh({ tenant: 'acme', domains: ['127.0.0.1'] });
    expect(refresh.liveView).toBe(`/screencast?profile=${refresh.profile}`);
    // The person, through the session's profile.
    const person = env.client(refresh.profile);
    await person.openTab(`${siteUrl}/login`);
    const { text } = await person.snapshot();
    await person.type(/textbox "User" \[ref=(\w+)\]/.exec(text)![1], 'alice');
    await person.click(/button "Log in" \[ref=(\w+)\]/.exec(text)![1]);
    expect(await who(person)).toBe('Signed in as alice');
    await person.navigate(`${siteUrl}/account?setup`);
    expect((await person.evaluate('() => window.written')).result).toBe(true);

    const { saved } = await api.vaultRefreshDone(refresh.id);
    expect(saved).toEqual([{ domain: '127.0.0.1', cookies: 1, origins: 1 }]);
    expect((await api.sessions()).sessions).toEqual([]);
    expect(existsSync(join(env.home, 'sessions', refresh.id))).toBe(false);
    expect((await api.vault('acme')).entries).toEqual([{ tenant: 'acme', domain: '127.0.0.1', savedAt: expect.any(String), cookies: 1, origins: 1 }]);
  });

  it('an operator session with a grant is logged in on its first page; a clean one is not', async () => {
    const api = env.client('clawd');
    ({ token: grantToken } = await api.issueGrant({ tenant: 'acme', domains: ['127.0.0.1'], ttl: 600 }));
    const operator = await api.openSession({ credential_mode: 'operator', tenant: 'acme', grant: grantToken });
    expect(operator).toMatchObject({ credential_mode: 'operator', domains: ['127.0.0.1'], injectedCookies: 1, injectedOrigins: 1 });
    const visitsBefore = accountVisits.length;
    const agent = env.client(operator.profile);
    expect(await who(agent)).toBe('Signed in as alice');
    expect(accountVisits[visitsBefore]).toBe(true); // the very first request carried it
    // The site's storage was there before its first script: localStorage and IndexedDB, lent with the cookie.
    expect((await agent.evaluate("() => document.getElementById('workspace').textContent")).result).toBe('alice-ws');
    const draft = await agent.evaluate(`() => new Promise((resolve) => {
      const open = indexedDB.open('app');
      open.onsuccess = () => { const get = open.result.transaction('drafts').objectStore('drafts').get(1); get.onsuccess = () => resolve(get.result?.text); };
    })`);
    expect(draft.result).toBe('dear bob');
    await api.closeSession(operator.id);

    const clean = await api.openSession({ credential_mode: 'clean' });
    expect(await who(env.client(clean.profile))).toBe('Signed out');
    await api.closeSession(clean.id);
  });

  it('a grant for another domain injects nothing for this one', async () => {
    const api = env.client('clawd');
    const { token } = await api.issueGrant({ tenant: 'acme', domains: ['localhost'], ttl: 600 });
    const session = await api.openSession({ credential_mode: 'operator', tenant: 'acme', grant: token });
    expect(session.injectedCookies).toBe(0);
    expect(await who(env.client(session.profile))).toBe('Signed out');
    await api.closeSession(session.id);
  });

  it('refuses grants that are expired, tampered, revoked, for another tenant or another domain, and none at all', async () => {
    const api = env.client('clawd');
    const expired = new Grants(
      loadOrCreateGrantKey(env.home),
      new FileRevocations(join(env.home, 'vault', 'revoked-grants.json')),
      () => Date.now() - 3_600_000,
    ).issue({ tenant: 'acme', domains: ['127.0.0.1'], ttlMs: 60_000 }).token;
    const [body, signature] = grantToken.split('.');
    const forged = `${Buffer.from(Buffer.from(body, 'base64url').toString().replace('"acme"', '"evil"')).toString('base64url')}.${signature}`;
    const { token: revocable, grant } = await api.issueGrant({ tenant: 'acme', domains: ['127.0.0.1'], ttl: 600 });
    await api.revokeGrant(grant.id);
    const cases: Array<[{ grant?: string; tenant?: string; domains?: string[] }, RegExp]> = [
      [{ grant: expired }, /expired at/],
      [{ grant: forged }, /signature does not match/],
      [{ grant: `${grantToken}x` }, /signature does not match/],
      [{ grant: revocable }, /was revoked/],
      [{ grant: grantToken, tenant: 'other' }, /for tenant "acme", not "other"/],
      [{ grant: grantToken, domains: ['evil.example'] }, /evil\.example is outside the grant/],
      [{ grant: undefined }, /needs a grant token/],
    ];
    for (const [request, reason] of cases) {
      const error = await rejection(api.openSession({ credential_mode: 'operator', tenant: 'acme', ...request }));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toMatch(reason);
    }
    expect((await api.sessions()).sessions).toEqual([]);
  });

  it('the vault file holds no cookie value or stored item in plaintext, and a flipped byte is refused', async () => {
    const path = join(env.home, 'vault', 'cookies.json');
    const bytes = readFileSync(path);
    expect(bytes.includes(secretSession)).toBe(false);
    expect(bytes.includes(secretSession.slice(4))).toBe(false);
    // The lent storage is sealed alike.
    for (const stored of ['alice-ws', 'dear bob', 'workspace', 'drafts']) expect(bytes.includes(stored), stored).toBe(false);
    for (const file of [join(env.home, 'logs', 'audit.jsonl'), join(env.home, 'logs', 'actions.jsonl')])
      expect(readFileSync(file, 'utf8')).not.toContain(secretSession);

    const vault = JSON.parse(bytes.toString()) as { entries: Array<{ data: string }> };
    const data = Buffer.from(vault.entries[0].data, 'base64');
    data[3] ^= 0x01;
    vault.entries[0].data = data.toString('base64');
    writeFileSync(path, JSON.stringify(vault));
    const error = await rejection(env.client('clawd').openSession({ credential_mode: 'operator', tenant: 'acme', grant: grantToken }));
    expect(error.message).toMatch(/acme \/ 127\.0\.0\.1 failed authentication/);
    expect((await env.client('clawd').sessions()).sessions).toEqual([]);
    writeFileSync(path, bytes); // as it was, for what follows
  });

  it('audits refreshes, grants, injections and session starts and stops, without values', () => {
    const events = readFileSync(join(env.home, 'logs', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; outcome: string });
    for (const kind of ['refresh-start', 'refresh-saved', 'grant', 'inject', 'session-start', 'session-stop', 'grant-revoked'])
      expect(events.map((e) => e.event)).toContain(kind);
    expect(events.some((e) => e.event === 'inject' && e.outcome === 'refused')).toBe(true);
  });
});

describe("saving from the user's own browser", () => {
  /** The person's click in the extension's consent page (in the user's Chromium). */
  async function answerInExtension(choose: string): Promise<void> {
    const cdp = env.userBrowser.cdp;
    let targetId: string | undefined;
    await waitFor(
      async () => {
        targetId = (await pageTargets(cdp)).find((target) => target.url.includes('options.html#consent='))?.targetId;
        return targetId !== undefined;
      },
      { message: 'the extension did not open its consent page' },
    );
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const evaluate = (expression: string) =>
      cdp.send<{ result: { value: unknown } }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
    await waitFor(async () => (await evaluate("document.querySelectorAll('#consent-domains input').length")).result.value !== 0, {
      message: 'the consent page never listed the domains',
    });
    // Clicked a moment later: answering closes the page, and an evaluate still waiting on a closed page never returns.
    await evaluate(`setTimeout(() => { ${choose}; }, 50); true`);
  }

  it('saves only what the person allows in the extension; an operator session is then logged in', async () => {
    const user = env.client('extension');
    const [tab] = await user.tabs();
    await user.navigate(`${siteUrl}/login`, tab.targetId);
    const { text } = await user.snapshot({ targetId: tab.targetId });
    await user.type(/textbox "User" \[ref=(\w+)\]/.exec(text)![1], 'alice', { targetId: tab.targetId });
    await user.click(/button "Log in" \[ref=(\w+)\]/.exec(text)![1], { targetId: tab.targetId });
    await waitFor(
      async () => (await user.evaluate("() => document.getElementById('who')?.textContent", { targetId: tab.targetId })).result === 'Signed in as alice',
    );
    await user.navigate(`${siteUrl}/account?setup`, tab.targetId);
    expect((await user.evaluate('() => window.written', { targetId: tab.targetId })).result).toBe(true);

    const api = env.client('clawd');
    const saving = api.vaultFromExtension({ tenant: 'home', domains: ['127.0.0.1', 'localhost'] });
    // The person keeps 127.0.0.1 ticked, unticks localhost, and allows.
    await answerInExtension(`(() => {
      for (const box of document.querySelectorAll('#consent-domains input')) box.checked = box.value === '127.0.0.1';
      document.getElementById('consent-allow').click();
    })()`);
    // The shared tab's localStorage goes with the cookie.
    expect(await saving).toEqual({ saved: [{ domain: '127.0.0.1', cookies: 1, origins: 1 }], refused: ['localhost'] });
    expect((await api.vault('home')).entries.map((entry) => entry.domain)).toEqual(['127.0.0.1']);

    const { token } = await api.issueGrant({ tenant: 'home', domains: ['127.0.0.1'], ttl: 600 });
    const session = await api.openSession({ credential_mode: 'operator', tenant: 'home', grant: token });
    expect(session.injectedOrigins).toBe(1);
    expect(await who(env.client(session.profile))).toBe('Signed in as alice');
    expect((await env.client(session.profile).evaluate("() => document.getElementById('workspace').textContent")).result).toBe('alice-ws');
    await api.closeSession(session.id);
  });

  it('saves nothing when the person refuses', async () => {
    const api = env.client('clawd');
    const saving = rejection(api.vaultFromExtension({ tenant: 'home2', domains: ['127.0.0.1'] }));
    await answerInExtension("document.getElementById('consent-deny').click()");
    const error = await saving;
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.message).toMatch(/did not allow 127\.0\.0\.1/);
    expect((await api.vault('home2')).entries).toEqual([]);
  });
});

describe('session lifecycle', () => {
  it('teardown leaves no process, dir or port; sessions expire; beyond the cap one waits for a slot', async () => {
    const api = env.client('clawd');
    const session = await api.openSession({ credential_mode: 'clean', record: 'transient' });
    const userDataDir = userDataDirOf(env.home, session.id);
    expect(findProfileProcesses(userDataDir).length).toBeGreaterThan(0);
    const browser = env.client(session.profile);
    await browser.openTab(`${siteUrl}/account`);
    await browser.press('Tab');
    expect(readdirSync(join(env.home, 'audit', session.id)).length).toBeGreaterThan(0); // a screenshot per action
    await api.closeSession(session.id);
    expect(findProfileProcesses(userDataDir)).toEqual([]);
    expect(existsSync(join(env.home, 'sessions', session.id))).toBe(false);
    expect(existsSync(userDataDir)).toBe(false);
    expect(existsSync(join(env.home, 'audit', session.id))).toBe(false); // transient

    const brief = await api.openSession({ credential_mode: 'clean', ttl: 10 });
    await waitFor(async () => !(await api.sessions()).sessions.some((s) => s.id === brief.id), { timeoutMs: 20_000, message: 'the session did not expire' });
    await waitFor(() => !existsSync(join(env.home, 'sessions', brief.id)), { message: 'the expired session left its dir' });

    const open = await Promise.all([1, 2, 3, 4].map(() => api.openSession({ credential_mode: 'clean' })));
    // At the cap a fifth waits in the admission queue, and gets the first slot freed.
    const fifth = api.openSession({ credential_mode: 'clean' });
    await waitFor(async () => ((await (await env.raw('/pressure')).json()) as { sessions: { waiting: number } }).sessions.waiting === 1, {
      message: 'the fifth did not wait',
    });
    await api.closeSession(open[0].id);
    const admitted = await fifth;
    expect((await api.sessions()).sessions.map((s) => s.id).sort()).toEqual([...open.slice(1).map((s) => s.id), admitted.id].sort());
    await Promise.all([...open.slice(1), admitted].map((s) => api.closeSession(s.id)));
  }, 60_000);

  it('a session taken from a spare starts with nothing of the session before it: no cookie, storage or history', async () => {
    const api = env.client('clawd');
    const marker = `spare-check-${randomBytes(8).toString('hex')}`;
    /** The files under `dir` that hold the marker. */
    const mentions = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((file) => {
          try {
            return readFileSync(file).includes(marker);
          } catch {
            return false; // a file Chromium removed meanwhile
          }
        });
    const before = await api.openSession({ credential_mode: 'clean' });
    const first = env.client(before.profile);
    await first.openTab(`${siteUrl}/account?visit=${marker}`);
    await first.evaluate(
      `() => { document.cookie = 'left=${marker}; path=/; max-age=3600'; localStorage.setItem('left', '${marker}'); sessionStorage.setItem('left', '${marker}'); }`,
    );
    await first.navigate(`${siteUrl}/login?after=${marker}`);
    // The search below can see such traces: the first session's own files hold them.
    const beforeData = dirname(userDataDirOf(env.home, before.id));
    await waitFor(() => mentions(beforeData).length > 0, { timeoutMs: 20_000, message: 'the first session wrote nothing down' });
    await api.closeSession(before.id);

    await waitFor(async () => (await api.sessions()).spares.ready >= 1, { timeoutMs: 30_000, message: 'no spare got ready' });
    const spareDirs = readdirSync(join(env.home, 'sessions'));
    const after = await api.openSession({ credential_mode: 'clean' });
    expect(spareDirs).toContain(after.id); // it was a spare, started before it was asked for
    const next = env.client(after.profile);
    expect((await next.tabs()).map((tab) => tab.url)).toEqual(['about:blank']); // the spare's warm page, nothing else
    await next.openTab(`${siteUrl}/account`);
    expect((await next.evaluate('() => [document.cookie, localStorage.length, sessionStorage.length]')).result).toEqual(['', 0, 0]);
    // No file of the new session's browser, nor of the template, holds anything of the one before.
    expect(mentions(join(env.home, 'sessions', after.id))).toEqual([]);
    expect(mentions(dirname(userDataDirOf(env.home, after.id)))).toEqual([]);
    expect(mentions(join(env.home, 'sessions', 'template'))).toEqual([]);
    await api.closeSession(after.id);
  }, 60_000);

  it('after the server is killed with SIGKILL mid-session, its browsers end with it, the reaper removes the rest, and is safe to run twice', async () => {
    const { control } = await freePortPair();
    const home = freshHome({ controlUrl: `http://127.0.0.1:${control}`, headless: true, noSandbox: true });
    const childEnv = { ...process.env, CLAWD_HOME: home };
    const server: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      await waitFor(
        async () =>
          readToken(home) !== undefined &&
          (await fetch(`http://127.0.0.1:${control}/`, { headers: { authorization: `Bearer ${readToken(home)}` } }).then(
            (r) => r.ok,
            () => false,
          )),
        { timeoutMs: 20_000, message: 'serve did not start' },
      );
      const api = new BrowserClient({ baseUrl: `http://127.0.0.1:${control}`, token: readToken(home)! });
      const session = await api.openSession({ credential_mode: 'clean' });
      const userDataDir = userDataDirOf(home, session.id);
      expect(findProfileProcesses(userDataDir).length).toBeGreaterThan(0);
      server.kill('SIGKILL');
      await new Promise((resolve) => server.once('exit', resolve));
      // Its pipe closed with the server: the browser reads end-of-file and exits by itself.
      await waitFor(() => findProfileProcesses(userDataDir).length === 0, { timeoutMs: 10_000, message: 'the session browser outlived its server' });

      const first = await run(process.execPath, [CLI, '--json', 'reap'], { env: childEnv });
      // The session's dir (and the warm spare's, if the server had made one already).
      expect(JSON.parse(first.stdout).reaped).toContainEqual({ id: session.id, killed: [] });
      expect(readdirSync(join(home, 'sessions')).filter((name) => name !== 'template')).toEqual([]);
      expect(existsSync(join(home, 'sessions', session.id))).toBe(false);
      expect(existsSync(userDataDir)).toBe(false);
      const second = await run(process.execPath, [CLI, '--json', 'reap'], { env: childEnv });
      expect(JSON.parse(second.stdout).reaped).toEqual([]);
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 60_000);
});

/** Where a session's browser keeps its data: its session dir, or its jail's own dir (session.json says, for the reaper too). */
function userDataDirOf(home: string, id: string): string {
  return (JSON.parse(readFileSync(join(home, 'sessions', id, 'session.json'), 'utf8')) as { userDataDir: string }).userDataDir;
}
