import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, waitFor } from '../harness/chromium.js';
import { startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Lent logins that do not hold: a site whose session cookie lives three
 * seconds is saved to the vault; a grant warns that it will expire, then
 * that it has; an operator session opened with it warns too, lands on the
 * site's login form, and its next action says so; the audit records it, and
 * the operator's console offers to refresh that login (Playwright clicking
 * as an operator would).
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
let operator: Browser;
const TENANT = 'short-lived';

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    const signedIn = /(?:^|;\s*)session=ok/.test(request.headers.cookie ?? '');
    if (url.pathname === '/login' && request.method === 'POST') {
      response.writeHead(303, { location: '/account', 'set-cookie': 'session=ok; Path=/; HttpOnly; Max-Age=3' }).end();
      return;
    }
    if (url.pathname === '/login') {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>Log in</title><form method="post" action="/login"><label>User <input name="user"></label><label>Password <input type="password" name="password"></label><button>Log in</button></form>',
        );
      return;
    }
    if (!signedIn) {
      response.writeHead(302, { location: '/login' }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Account</title><p id="who">Signed in</p>');
  });
  operator = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
}, 90_000);
afterAll(async () => {
  await operator?.close();
  await env?.close();
  await site?.close();
});

describe('a lent login that expires', () => {
  it('is warned about at grant time and at session start, reported when a session lands on its login form, and offered for refresh in the console', async () => {
    const api = env.client('clawd');
    // A person logs in once through a refresh session: the vault gets a cookie that lives three seconds.
    const refresh = await api.vaultRefresh({ tenant: TENANT, domains: ['127.0.0.1'] });
    const person = env.client(refresh.profile);
    await person.openTab(`${site.url}/login`);
    await person.click(/button "Log in" \[ref=(\w+)\]/.exec((await person.snapshot()).text)![1]);
    await waitFor(async () => (await person.tabs())[0]?.title === 'Account', { message: 'the person never got signed in' });
    expect((await api.vaultRefreshDone(refresh.id)).saved).toEqual([{ domain: '127.0.0.1', cookies: 1, origins: 0 }]);

    const soon = await api.issueGrant({ tenant: TENANT, domains: ['127.0.0.1', 'localhost'], ttl: 600 });
    expect(soon.warnings).toEqual([
      expect.stringMatching(/^127\.0\.0\.1: 1 of 1 lent cookies of short-lived expire at \S+, before \S+$/),
      'localhost: the vault holds no login of short-lived for it: refresh the login first',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const late = await api.issueGrant({ tenant: TENANT, domains: ['127.0.0.1'], ttl: 600 });
    expect(late.warnings).toEqual([
      expect.stringMatching(/^127\.0\.0\.1: 1 of 1 lent cookies of short-lived have expired \(the first at \S+\): the login may be gone; refresh it$/),
    ]);

    const session = await api.openSession({ credential_mode: 'operator', tenant: TENANT, grant: late.token });
    try {
      expect(session.warnings).toEqual([expect.stringMatching(/have expired/)]);
      const agent = env.client(session.profile);
      const tab = await agent.openTab(`${site.url}/account`);
      expect(tab.title).toBe('Log in');
      // The agent's next answer says why it is on a login form.
      const next = await agent.evaluate('() => document.title');
      expect(next.events).toEqual([
        expect.stringMatching(/^127\.0\.0\.1 shows a login form at http:\/\/127\.0\.0\.1:\d+\/login: short-lived's lent login for 127\.0\.0\.1 did not hold/),
      ]);
      const { entries } = await api.audit({ session: session.id, event: 'login-page' });
      expect(entries).toEqual([expect.objectContaining({ tenant: TENANT, domains: ['127.0.0.1'], detail: `${site.url}/login` })]);

      // The operator's console offers to refresh it, and does.
      const page = await operator.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto((await api.dashboardLink()).url);
      const row = page.locator('#login-rows tr', { hasText: TENANT });
      await row.waitFor();
      expect(await row.locator('td').nth(1).textContent()).toBe('127.0.0.1');
      await row.getByRole('button', { name: 'Refresh login' }).click();
      await waitFor(async () => (await api.sessions()).sessions.some((open) => open.credential_mode === 'refresh' && open.tenant === TENANT), {
        message: 'no refresh session opened',
      });
      const opened = (await api.sessions()).sessions.find((open) => open.credential_mode === 'refresh')!;
      expect(opened.domains).toEqual(['127.0.0.1']);
      // It opens on the login page the session landed on, in the console's live view.
      await waitFor(
        async () =>
          (
            await env
              .client(opened.profile)
              .tabs()
              .catch(() => [])
          )[0]?.title === 'Log in',
        { message: 'the refresh session never showed the login page' },
      );
      await page.locator('#live[open]').waitFor();
      await page.close();
      await api.closeSession(opened.id);
    } finally {
      await api.closeSession(session.id).catch(() => {});
    }
  }, 60_000);
});
