import type { Request } from 'playwright-core';
import { BadRequestError, type ClawdError, ForbiddenError, TimeoutError, UnavailableError } from '../errors.js';
import { abortable } from '../runtime/operation.js';
import { privateHostRemedy } from '../runtime/url-policy.js';
import type { EgressFailureReason } from '../profiles/launch-envelope.js';
import type { DriverTab } from './driver-tab.js';
import { ACTION_TIMEOUT_MS } from '../api/limits.js';
import { takeRefusal } from './network/url-policy-guard.js';
import { failureKind, firstLine } from './browser-failure.js';

/** Why the browser's way out failed a connection to a host since a time (BrowserEndpoint.egressFailure); absent where there is none. */
export type EgressWitness = (host: string, since: number) => EgressFailureReason | undefined;

/**
 * Navigates a tab (the URL was checked before: checkNavigation). Failures
 * come back as our errors: the URL policy's refusal (403) when the guard
 * stopped it, a timeout, an invalid URL (400), or the browser's reason; a
 * browser behind our egress proxy hears only "tunnel failed" for whatever
 * the proxy could not connect, so the proxy's own reason is said instead
 * (egress/egress-failures.ts). On abort (the caller went, or the action
 * timeout passed) the navigation is stopped in the browser, as the Stop
 * button would.
 */
export async function navigateTab(
  tab: DriverTab,
  url: string,
  guard: (tab: DriverTab) => Promise<void>,
  signal?: AbortSignal,
  egress?: EgressWitness,
): Promise<void> {
  await guard(tab);
  // Only a refusal of this navigation's requests answers for it.
  tab.urlPolicy.lastRefusal = undefined;
  const since = Date.now();
  // The document request that failed, after any redirects: its host is the one to explain.
  let failedDocument: string | undefined;
  const onFailed = (request: Request) => {
    if (request.isNavigationRequest() && request.frame() === tab.page.mainFrame()) failedDocument = request.url();
  };
  tab.page.on('requestfailed', onFailed);
  let response;
  try {
    response = await abortable(tab.page.goto(url, { timeout: ACTION_TIMEOUT_MS }), signal);
  } catch (error) {
    if (signal?.aborted) {
      await stopLoading(tab);
      throw error;
    }
    const refused = takeRefusal(tab);
    if (refused) throw refused;
    const atEgress = egressError(egress, failedDocument ?? url, since, url);
    if (atEgress) throw atEgress;
    const message = firstLine((error as Error).message);
    const kind = failureKind(error);
    if (kind === 'timeout') throw new TimeoutError(`Navigating to ${url} timed out: ${message}`);
    if (kind === 'invalid-url') throw new BadRequestError(`Invalid URL ${JSON.stringify(url)}`);
    throw new UnavailableError(`Navigating to ${url} failed: ${message}`);
  } finally {
    tab.page.off('requestfailed', onFailed);
  }
  // A redirect the policy stopped ends the navigation without an error.
  const refused = takeRefusal(tab);
  if (refused) throw refused;
  // Plain http goes through the proxy as a request: what it refused or could not reach is its own answer (a 403 or 502 it marks).
  const headers = response?.headers() ?? {};
  if (headers['x-clawd-refused'] || headers['x-clawd-egress']) {
    const atEgress = egressError(egress, response!.url(), since, url);
    if (atEgress) throw atEgress;
  }
}

/** The error a failure at the way out is, for the navigation to `asked` (its document at `failed`), when the proxy noted one. */
function egressError(egress: EgressWitness | undefined, failed: string, since: number, asked: string): ClawdError | undefined {
  const host = URL.canParse(failed) ? new URL(failed).hostname : undefined;
  const failure = host ? egress?.(host, since) : undefined;
  if (!failure) return undefined;
  const via = withoutQuery(failed) === withoutQuery(asked) ? '' : ` (it led to ${withoutQuery(failed)})`;
  return failure.byPolicy
    ? new ForbiddenError(`Navigation refused${via}: ${failure.reason}${privateHostRemedy(failure.reason, failed)}`)
    : new UnavailableError(`Navigating to ${asked} failed${via}: ${failure.reason}`);
}

/**
 * A navigation an action set off that failed, as its answer's event says it:
 * the way out's reason when it has one, else the browser's error; nothing
 * for an answer only marked as the proxy's (a page could send the mark).
 */
export function failedNavigationEvent(egress: EgressWitness | undefined, url: string, browserError: string | undefined, since: number): string | undefined {
  const host = URL.canParse(url) ? new URL(url).hostname : undefined;
  const failure = host ? egress?.(host, since) : undefined;
  const why = failure ? `${failure.reason}${failure.byPolicy ? privateHostRemedy(failure.reason, url) : ''}` : browserError;
  return why === undefined ? undefined : `navigation to ${withoutQuery(url)} failed: ${why}`;
}

/** A URL as said in an answer: parsed (https://example.com is https://example.com/), without its query and fragment. */
function withoutQuery(url: string): string {
  if (!URL.canParse(url)) return url.split(/[?#]/)[0];
  const parsed = new URL(url);
  return `${parsed.origin === 'null' ? `${parsed.protocol}` : parsed.origin}${parsed.pathname}`;
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
  const session = await tab.page
    .context()
    .newCDPSession(tab.page)
    .catch(() => undefined);
  if (!session) return;
  try {
    await session.send('Page.stopLoading');
  } catch {
    // The tab closed meanwhile: nothing is loading.
  } finally {
    await session.detach().catch(() => {});
  }
}
