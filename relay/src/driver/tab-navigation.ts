import { BadRequestError, TimeoutError, UnavailableError } from '../errors.js';
import { abortable } from '../runtime/operation.js';
import type { DriverTab } from './driver-tab.js';
import { ACTION_TIMEOUT_MS } from '../api/limits.js';
import { takeRefusal } from './url-policy-guard.js';

/**
 * Navigates a tab (the URL was checked before: checkNavigation). Failures
 * come back as our errors: the URL policy's refusal (403) when the guard
 * stopped it, a timeout, an invalid URL (400), or the browser's reason.
 * On abort (the caller went, or the action timeout passed) the navigation
 * is stopped in the browser, as the Stop button would.
 */
export async function navigateTab(tab: DriverTab, url: string, guard: (tab: DriverTab) => Promise<void>, signal?: AbortSignal): Promise<void> {
  await guard(tab);
  // Only a refusal of this navigation's requests answers for it.
  tab.urlPolicy.lastRefusal = undefined;
  try {
    await abortable(tab.page.goto(url, { timeout: ACTION_TIMEOUT_MS }), signal);
  } catch (error) {
    if (signal?.aborted) {
      await stopLoading(tab);
      throw error;
    }
    const refused = takeRefusal(tab);
    if (refused) throw refused;
    const message = (error as Error).message.split('\n')[0];
    if ((error as Error).name === 'TimeoutError') throw new TimeoutError(`Navigating to ${url} timed out: ${message}`);
    if (/Cannot navigate to invalid URL|invalid url/i.test(message)) throw new BadRequestError(`Invalid URL ${JSON.stringify(url)}`);
    throw new UnavailableError(`Navigating to ${url} failed: ${message}`);
  }
  // A redirect the policy stopped ends the navigation without an error.
  const refused = takeRefusal(tab);
  if (refused) throw refused;
}

/**
 * Stops the tab's loading, as the Stop button does (an abandoned navigation
 * must not go on). Through a session of its own, not the tab's kept one
 * (DriverTab.cdp): opening that one enables the Page domain, and Chromium
 * holds a new session's `Page.enable` until a pending navigation commits, so
 * the first stop of a tab would wait for the very response that never comes.
 * `Page.stopLoading` is answered by the browser process at once.
 */
async function stopLoading(tab: DriverTab): Promise<void> {
  const session = await tab.page.context().newCDPSession(tab.page).catch(() => undefined);
  if (!session) return;
  try {
    await session.send('Page.stopLoading');
  } catch {
    // The tab closed meanwhile: nothing is loading.
  } finally {
    await session.detach().catch(() => {});
  }
}
