/**
 * `npm run docs:screenshots`: the docs' pictures of the operator's
 * console, made from a real server with real state (a vault entry saved
 * from a refresh session, a grant, an operator session using it, the audit
 * that follows), so that they show the page as it is. Writes
 * docs/console/*.png; run it after changing the dashboard.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startTestSite } from '../tests/harness/test-site.js';
import { startControlEnv } from '../tests/harness/control-env.js';

const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));

const env = await startControlEnv();
const site = await startTestSite((request, response) => {
  response
    .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=example; Path=/; Max-Age=3600' })
    .end('<!doctype html><title>Example account</title><h1>Example account</h1><p>Signed in.</p>');
});
const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
try {
  const api = env.client('clawd');
  const refresh = await api.vaultRefresh({ tenant: 'acme', domains: ['127.0.0.1'] });
  await api.withProfile(refresh.profile).openTab(`${site.url}/account`);
  await api.vaultRefreshDone(refresh.id);
  const { token } = await api.issueGrant({ tenant: 'acme', domains: ['127.0.0.1'], ttl: 3600 });
  const session = await api.openSession({ credential_mode: 'operator', tenant: 'acme', grant: token, record: 'audit' });
  await api.withProfile(session.profile).openTab(`${site.url}/account`);
  await api.openTab(`${site.url}/account`);

  mkdirSync(OUT, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto((await api.dashboardLink()).url);
  await page.waitForSelector(`#session-rows tr[data-session="${session.id}"] img.thumb`);
  await page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>('#session-rows img.thumb, .tab img')].every((image) => image.naturalWidth > 0),
  );
  await page.waitForSelector('#audit-rows tr');
  await page.waitForSelector('#actions tr');
  // What a person sees first: the tabs, the profiles and the recent actions, then the sessions.
  await page.screenshot({ path: join(OUT, 'overview.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const section of ['sessions', 'grants', 'vault', 'refresh', 'audit']) {
    await page.locator(`#${section}`).screenshot({ path: join(OUT, `${section}.png`) });
  }
  await page.click(`#session-rows tr[data-session="${session.id}"] button:text("Watch")`);
  await page.waitForFunction(() => (document.getElementById('live-view') as HTMLImageElement).naturalWidth > 0);
  await page.screenshot({ path: join(OUT, 'live-view.png') });
  await page.click('#live-close');
  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto(page.url().split('#')[0]);
  await page.waitForSelector('#session-rows tr');
  await page.locator('#sessions').screenshot({ path: join(OUT, 'narrow.png') });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await env.close();
  await site.close();
}
