import type { Page } from 'playwright-core';
import type { ProfileDriver } from '../driver/profile-driver.js';
import { underSite } from '../vault/cookie-vault.js';

/**
 * A lent login that did not hold: an operator session's page of a granted
 * domain that shows a password field (the site sent it to its login form).
 * The tab's next action says so, and `onLoginPage` hears it (the session
 * audits it, and the operator's console offers to refresh that login).
 * Once per page address, so a login form the agent stays on is said once.
 */

export interface LoginPage {
  domain: string;
  /** Without its query or fragment. */
  url: string;
}

export function watchLoginPages(driver: ProfileDriver, lent: { tenant: string; domains: string[] }, onLoginPage: (page: LoginPage) => void): void {
  const told = new Set<string>();
  const check = async (page: Page) => {
    let url: URL;
    try {
      url = new URL(page.url());
    } catch {
      return;
    }
    const domain = lent.domains.find((granted) => underSite(url.hostname, granted));
    const where = `${url.origin}${url.pathname}`;
    if (!domain || told.has(where)) return;
    // Chromium's own check of what a person would see: a password field that is rendered.
    const asksForLogin = await page
      .locator('input[type=password]')
      .first()
      .isVisible()
      .catch(() => false);
    if (!asksForLogin || told.has(where)) return;
    told.add(where);
    driver
      .tabOf(page)
      .noteEvent(
        `${url.hostname} shows a login form at ${where}: ${lent.tenant}'s lent login for ${domain} did not hold (expired or signed out); hand the tab to a person, or ask the operator to refresh the login`,
      );
    onLoginPage({ domain, url: where });
  };
  const watch = (page: Page) => page.on('load', () => void check(page).catch(() => {}));
  void driver
    .context()
    .then((context) => {
      context.pages().forEach(watch);
      context.on('page', watch);
    })
    .catch(() => {});
}
