import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserClient, ForbiddenError } from '../../relay/src/client/browser-client.js';
import { chromiumPath, waitFor } from '../harness/chromium.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * The operator's console in the dashboard, driven as a person would, in a
 * real browser: a login refreshed through the page's live view (clicking
 * and typing in the picture of a clean browser) and saved to the vault; a
 * grant issued from the page that an operator session is logged in with;
 * sessions that appear and go without a reload; revoke and forget from the
 * page; the audit table showing all of it; bad input answered with the
 * server's own message and nothing half-done.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
let browser: Browser;
let page: Page;
let api: BrowserClient;
const secret = `sid-${randomBytes(12).toString('hex')}`;
const TENANT = 'console-acme';

beforeAll(async () => {
  env = await startControlEnv();
  api = env.client('clawd');
  site = await startTestSite((request, response, url) => {
    const signedIn = (request.headers.cookie ?? '').includes(`session=${secret}`);
    if (url.pathname === '/login' && request.method === 'POST') {
      response.writeHead(303, { location: '/account', 'set-cookie': `session=${secret}; Path=/; HttpOnly; Max-Age=3600` }).end();
      return;
    }
    if (url.pathname === '/login') {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>Log in</title><form method="post" action="/login" style="font-size:28px;margin:40px"><input id="user" name="user" style="font-size:28px;width:320px"> <button id="go" style="font-size:28px">Log in</button></form>',
        );
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><title>Account</title><p id="who">${signedIn ? 'Signed in as alice' : 'Signed out'}</p>`);
  });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto((await api.dashboardLink()).url);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await env?.close();
  await site?.close();
});

/** Clicks, in the dashboard's live view, on the middle of `selector` in the remote page, as a person clicks on what they see. */
async function clickInLiveView(remote: BrowserClient, targetId: string, selector: string): Promise<void> {
  const at = (
    await remote.evaluate(
      `() => { const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: (box.left + box.width / 2) / innerWidth, y: (box.top + box.height / 2) / innerHeight }; }`,
      { targetId },
    )
  ).result as { x: number; y: number };
  const view = page.locator('#live-view');
  await page.waitForFunction(() => (document.getElementById('live-view') as HTMLImageElement).naturalWidth > 0);
  const box = (await view.boundingBox())!;
  await view.click({ position: { x: at.x * box.width, y: at.y * box.height } });
}

async function who(client: BrowserClient): Promise<string> {
  await client.navigate(`${site.url}/account`);
  return (await client.evaluate("() => document.getElementById('who').textContent")).result as string;
}

describe('the dashboard at first sight', () => {
  it('shows the profiles, the tabs and the recent actions above the fold; nothing empty (no film player without a film, no column of blank thumbnails); every box labelled', async () => {
    const { targetId } = await api.openTab(`${site.url}/account`);
    const bare = await api.openSession({ credential_mode: 'clean', ttl: 600 });
    const first = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await first.goto((await api.dashboardLink()).url);
      await first.waitForSelector(`#session-rows tr[data-session="${bare.id}"]`);
      await first.waitForSelector(`.tab[data-target-id="${targetId}"]`);
      await first.waitForFunction(() => document.querySelectorAll('#actions tr').length > 0);
      const aboveTheFold = async (selector: string) => {
        const box = await first.locator(selector).first().boundingBox();
        return box !== null && box.y + box.height <= 800;
      };
      for (const selector of ['#profiles .profile', `.tab[data-target-id="${targetId}"]`, '#actions tr', '#extension'])
        expect(await aboveTheFold(selector), selector).toBe(true);

      // No film was made: no player and no empty list; no screenshots recorded: no timeline.
      expect(await first.locator('#replay').isVisible()).toBe(false);
      expect(await first.locator('#replay-video').isVisible()).toBe(false);
      expect(await first.locator('#audit-timeline').isVisible()).toBe(false);
      // No session has a tab: no column of empty thumbnails.
      expect(await first.locator('#sessions th.now').isVisible()).toBe(false);
      // The minutes box says what it is, on the page (not only to a screen reader).
      const minutes = first.locator(`#session-rows tr[data-session="${bare.id}"] input[type=number]`);
      expect(await minutes.evaluate((input: HTMLInputElement) => input.labels?.[0]?.innerText.trim())).toBe('min');

      // A session with a tab shows its picture (the page, framed); one without says so.
      const shown = await api.openSession({ credential_mode: 'clean', ttl: 600 });
      await api.withProfile(shown.profile).openTab(`${site.url}/account`);
      await first.reload();
      await first.waitForSelector(`#session-rows tr[data-session="${shown.id}"] img.thumb`);
      expect(await first.locator('#sessions th.now').isVisible()).toBe(true);
      await first.waitForFunction(
        (id) => ((document.querySelector(`#session-rows tr[data-session="${id}"] img.thumb`) as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
        shown.id,
      );
      expect(await first.locator(`#session-rows tr[data-session="${bare.id}"] td.now`).innerText()).toBe('no tab');
      await api.closeSession(shown.id);
    } finally {
      await first.close();
      await api.closeSession(bare.id);
      await api.closeTab(targetId);
    }
  }, 60_000);
});

describe("the operator's console", () => {
  let token: string;
  let grantId: string;
  /** The operator session, recorded (record: audit). */
  let recorded: string;

  it('refreshes a login through the live view and saves it to the vault', async () => {
    await page.fill('#refresh-form [name=tenant]', TENANT);
    await page.fill('#refresh-form [name=domains]', '127.0.0.1');
    await page.fill('#refresh-form [name=url]', `${site.url}/login`);
    await page.click('#refresh-form button');
    await page.waitForSelector('dialog#live[open]');
    const refresh = (await api.sessions()).sessions.find((session) => session.credential_mode === 'refresh' && session.tenant === TENANT)!;
    const remote = env.client(refresh.profile);
    const [tab] = (await remote.tabs()).filter((t) => t.url.endsWith('/login'));
    // The session appeared in the list without a reload.
    await page.waitForSelector(`#session-rows tr[data-session="${refresh.id}"]`);

    await clickInLiveView(remote, tab.targetId, '#user');
    await waitFor(async () => (await remote.evaluate('() => document.activeElement?.id', { targetId: tab.targetId })).result === 'user', {
      message: 'the click never focused the field',
    });
    await page.keyboard.type('alice');
    await waitFor(async () => (await remote.evaluate("() => document.getElementById('user').value", { targetId: tab.targetId })).result === 'alice', {
      message: 'the typing never reached the field',
    });
    await clickInLiveView(remote, tab.targetId, '#go');
    await waitFor(async () => (await remote.tabs()).some((t) => t.url.endsWith('/account')), { message: 'the login never went through' });

    await page.click('#live-actions button:text("Save cookies")');
    await page.waitForSelector('dialog#live:not([open])', { state: 'attached' });
    await page.waitForSelector(`#vault-rows tr[data-vault="${TENANT}/127.0.0.1"]`);
    expect(await page.locator('#refresh-message').innerText()).toMatch(/Saved: 127\.0\.0\.1 \(1 cookies\); the session has ended/);
    await page.waitForSelector(`#session-rows tr[data-session="${refresh.id}"]`, { state: 'detached' });
    expect((await api.vault(TENANT)).entries.map((entry) => entry.domain)).toEqual(['127.0.0.1']);
  }, 90_000);

  it('issues a grant from the page; an operator session with it is logged in on its first page, and goes from the list when it ends', async () => {
    await page.fill('#grant-form [name=tenant]', TENANT);
    await page.fill('#grant-form [name=domains]', '127.0.0.1');
    await page.fill('#grant-form [name=minutes]', '30');
    await page.click('#grant-form button');
    await page.waitForSelector('#grant-issued:not([hidden])');
    token = await page.inputValue('#grant-token');
    grantId = (await api.grants()).grants.find((grant) => grant.tenant === TENANT)!.id;
    await page.waitForSelector(`#grant-rows tr[data-grant="${grantId}"]`);

    const session = await api.openSession({ credential_mode: 'operator', tenant: TENANT, grant: token, record: 'audit' });
    recorded = session.id;
    const agent = env.client(session.profile);
    expect(await who(agent)).toBe('Signed in as alice');
    await agent.press('Tab');
    await page.waitForSelector(`#session-rows tr[data-session="${session.id}"]`);
    // The grant lists the session that used it.
    await page.waitForFunction(
      ([grant, id]) => document.querySelector(`#grant-rows tr[data-grant="${grant}"]`)?.textContent?.includes(id),
      [grantId, session.id],
    );
    // Ended elsewhere: it leaves the page by itself.
    await api.closeSession(session.id);
    await page.waitForSelector(`#session-rows tr[data-session="${session.id}"]`, { state: 'detached' });
  }, 60_000);

  it('revokes the grant and forgets the vault entry from the page', async () => {
    await page.click(`#grant-rows tr[data-grant="${grantId}"] button:text("Revoke")`);
    await page.waitForSelector(`#grant-rows tr[data-grant="${grantId}"]`, { state: 'detached' });
    const refused = await rejection(api.openSession({ credential_mode: 'operator', tenant: TENANT, grant: token }));
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect(refused.message).toMatch(/revoked/);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`#vault-rows tr[data-vault="${TENANT}/127.0.0.1"] button:text("Forget")`);
    await page.waitForSelector(`#vault-rows tr[data-vault="${TENANT}/127.0.0.1"]`, { state: 'detached' });
    expect((await api.vault(TENANT)).entries).toEqual([]);
  }, 60_000);

  it('shows all of it in the audit table, filtered by tenant, newest first', async () => {
    await page.fill('#audit-form [name=tenant]', TENANT);
    await page.click('#audit-form button');
    for (const kind of ['refresh-start', 'refresh-saved', 'grant', 'inject', 'session-start', 'session-stop', 'vault-forget'])
      await page.waitForSelector(`#audit-rows tr[data-event="${kind}"]`);
    const kinds = await page.locator('#audit-rows tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.event));
    expect(kinds[0]).toBe('vault-forget');
    expect(kinds.lastIndexOf('refresh-start')).toBeGreaterThan(kinds.indexOf('grant'));
    expect(await page.locator('#audit-rows').innerText()).not.toContain(secret);

    // One session's entries, and beside them its recorded screenshots, one per action.
    await page.fill('#audit-form [name=session]', recorded);
    await page.click('#audit-form button');
    await page.waitForSelector('#audit-timeline:not([hidden]) figure img');
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('#audit-timeline img')].every((image) => image.naturalWidth > 0));
    expect(await page.locator('#audit-timeline figcaption').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/press/)]));
    const sessions = await page.locator('#audit-rows tr td:nth-child(4)').allInnerTexts();
    expect(new Set(sessions)).toEqual(new Set([recorded]));
  });

  it("plays an ended session's film beside its audit and actions; a click on an action or an audit row seeks the film there", async () => {
    const session = await api.openSession({ credential_mode: 'clean', record: 'video' });
    const agent = env.client(session.profile);
    const { targetId } = await agent.openTab(`${site.url}/login`);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await agent.act({ kind: 'click', x: 60, y: 60, targetId });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await agent.press('Tab');
    await new Promise((resolve) => setTimeout(resolve, 600));
    await api.closeSession(session.id);
    const [film] = (await env.client(session.profile).video.list()).films;
    expect(film.kept).toBe(true);

    await page.fill('#audit-form [name=tenant]', '');
    await page.fill('#audit-form [name=session]', session.id);
    await page.click('#audit-form button');
    await page.waitForSelector('#replay:not([hidden])');
    // The film loads and is as long as it says.
    await page.waitForFunction(() => (document.getElementById('replay-video') as HTMLVideoElement).readyState >= 1);
    const duration = await page.evaluate(() => (document.getElementById('replay-video') as HTMLVideoElement).duration);
    expect(Math.abs(duration * 1000 - film.durationMs)).toBeLessThan(1200);
    // One timeline: a mark per action above, per audit entry of the session below; a line for each.
    expect(await page.locator('#replay-bar button.action').count()).toBe(film.chapters.length);
    expect(await page.locator('#replay-bar button.audit').count()).toBeGreaterThanOrEqual(1);
    const press = film.chapters.find((chapter) => chapter.kind === 'press')!;
    await page.click(`#replay-list button.action:text("press")`);
    await page.waitForFunction((at) => Math.abs((document.getElementById('replay-video') as HTMLVideoElement).currentTime * 1000 - at) < 50, press.at);
    expect(await page.locator('#replay-list button[aria-current="true"]').innerText()).toContain('press');
    // A row of the audit table: the film at that entry.
    const started = await page.locator('#audit-rows tr[data-event="session-start"]').getAttribute('data-time');
    await page.click('#audit-rows tr[data-event="session-start"] td:first-child');
    const expected = Math.max(0, Date.parse(started!) - Date.parse(film.startedAt));
    await page.waitForFunction((at) => Math.abs((document.getElementById('replay-video') as HTMLVideoElement).currentTime * 1000 - at) < 50, expected);
  }, 60_000);

  it('answers bad input with the server message, and leaves nothing half-done', async () => {
    const grantsBefore = (await api.grants()).grants.length;
    await page.fill('#grant-form [name=tenant]', TENANT);
    await page.fill('#grant-form [name=domains]', 'not a domain!!');
    await page.click('#grant-form button');
    await page.waitForFunction(() => document.getElementById('grants-message')!.textContent !== '');
    expect(await page.locator('#grants-message').innerText()).toMatch(/domains/);
    expect((await api.grants()).grants.length).toBe(grantsBefore);

    const sessionsBefore = (await api.sessions()).sessions.length;
    await page.fill('#refresh-form [name=tenant]', 'no such tenant!');
    await page.fill('#refresh-form [name=domains]', '127.0.0.1');
    await page.fill('#refresh-form [name=url]', `${site.url}/login`);
    await page.click('#refresh-form button');
    await page.waitForFunction(() => /tenant/.test(document.getElementById('refresh-message')!.textContent ?? ''));
    expect((await api.sessions()).sessions.length).toBe(sessionsBefore);
  }, 30_000);
});
