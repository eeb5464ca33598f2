import { navigationProblem } from '../../../../protocol/url-gate.js';
import { BadRequestError, ForbiddenError } from '../../errors.js';
import { countBrowserRefusal, policyActive, privateHostRemedy, resolveHost, type UrlPolicy, urlPolicyProblem } from '../../runtime/url-policy.js';
import type { Frame, Page } from 'playwright-core';
import type { DriverTab } from '../driver-tab.js';

/**
 * Where a profile's tabs may go: a URL asked for is checked before the
 * driver navigates (checkNavigation), and, with a URL policy, requests are
 * checked in the browser as they start: every request of every target where
 * the driver holds the browser (browser-url-guard.ts), each shared tab's
 * document requests on the extension profile, where chrome.debugger gives
 * no browser target (guardTab).
 */

/** Throws when `url` may not be opened: a 403 naming the policy's rule, or a 400 from the URL gate. */
export async function checkNavigation(url: string, urlPolicy: UrlPolicy | undefined, allowedUrlSchemes: string[]): Promise<void> {
  // The policy first: its refusals are 403s that name the rule, whatever the URL gate would say.
  const refused = await urlPolicyProblem(url, urlPolicy, resolveHost);
  if (refused) throw new ForbiddenError(`Navigation refused: ${refused}${privateHostRemedy(refused, url)}`);
  const problem = navigationProblem(url, allowedUrlSchemes);
  if (problem) throw new BadRequestError(`Navigation refused: ${problem}`);
}

/**
 * With a URL policy, every document request of the profile's tabs is
 * checked as it starts, through the tab's own CDP session's `Fetch` domain
 * (which, unlike Playwright's routes, also sees each redirect hop): redirects
 * and a page's own `location =` included. A refused one fails before it
 * leaves the browser, and is reported with the tab's next action. A popup
 * whose first page got there before the hold is closed. Once per tab;
 * `urlPolicy` is read at each request, so edits apply at once.
 */
export async function guardTab(tab: DriverTab, urlPolicy: () => UrlPolicy | undefined, tabOf: (page: Page) => DriverTab): Promise<void> {
  if (tab.urlPolicy.policed || !policyActive(urlPolicy())) return;
  tab.urlPolicy.policed = true;
  const session = await tab.cdp();
  session.on('Fetch.requestPaused', (event) => {
    void (async () => {
      const problem = await urlPolicyProblem(event.request.url, urlPolicy(), resolveHost);
      if (!problem) return session.send('Fetch.continueRequest', { requestId: event.requestId });
      countBrowserRefusal();
      tab.urlPolicy.lastRefusal = `${problem}${privateHostRemedy(problem, event.request.url)}`;
      tab.noteEvent(`navigation to ${event.request.url.split(/[?#]/)[0]} refused: ${problem}`);
      // 204 No Content: the navigation does not happen and the page stays as it was (a failed
      // request would commit an error page in its place).
      return session.send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 204, body: '' });
    })().catch(() => {});
  });
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
  // What got past the hold: on the extension profile, a popup's first page loads before the
  // extension may attach to its tab. Such a popup is closed before anything reads it, and that is
  // said with its opener's next action.
  const opener = await tab.page.opener().catch(() => null);
  if (!opener) return;
  const closeIfRefused = async (url: string) => {
    if (!/^https?:/.test(url)) return;
    const problem = await urlPolicyProblem(url, urlPolicy(), resolveHost);
    if (!problem) return;
    tabOf(opener).noteEvent(`a popup at ${url.split(/[?#]/)[0]} loaded before the URL policy could hold its tab, and was closed: ${problem}`);
    await tab.page.close();
  };
  if (tab.page.url() && tab.page.url() !== 'about:blank') return closeIfRefused(tab.page.url());
  const firstCommit = (frame: Frame) => {
    if (frame !== tab.page.mainFrame()) return;
    tab.page.off('framenavigated', firstCommit);
    void closeIfRefused(frame.url()).catch(() => {});
  };
  tab.page.on('framenavigated', firstCommit);
}

/** The refusal the guard made since the last call, as the error a goto answers with; cleared. */
export function takeRefusal(tab: DriverTab): ForbiddenError | undefined {
  const refusal = tab.urlPolicy.lastRefusal;
  tab.urlPolicy.lastRefusal = undefined;
  return refusal ? new ForbiddenError(`Navigation refused: ${refusal}`) : undefined;
}
