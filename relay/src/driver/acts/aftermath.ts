import type { CDPSession, Page, Request } from 'playwright-core';
import { sleep } from '../../runtime/operation.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * What an action set off, waited for briefly so that the action's own answer
 * reports it. A click returns once the page has handled the event; the
 * download it asked for starts when the response arrives, and the tab it
 * opened is announced a few round trips later. Without this, "download
 * started" came with the *next* action's answer.
 *
 * How it knows what to wait for, without a fixed pause:
 * - the tab's own CDP session (DriverTab.cdp: kept open, with the Page
 *   domain on, so an action costs no attach and detach) hears
 *   `Page.windowOpen` for every tab the action opens (links with a target,
 *   window.open, forms);
 * - after the action, one round trip to the page lets every request the
 *   action started be announced first;
 * - then it waits for those requests to finish or fail (a download's does,
 *   once the download begins) and for the opened tabs to be ready, never
 *   longer than AFTERMATH_MS in all. An action that started nothing costs
 *   the round trip.
 */

const AFTERMATH_MS = 2_000;
const POLL_MS = 20;
/** After the last request ended: the download it turned into is reported just after. */
const STRAGGLER_MS = 50;

export interface Aftermath<T> {
  result: T;
  /** Lines for the action's `events`: tabs the action opened. */
  events: string[];
  /**
   * Navigations of the tab the action set off that failed (a download's or a
   * stopped one's abort aside), with the browser's error; without one, an
   * answer marked as the egress proxy's (only the proxy itself can say whether it was).
   */
  failedNavigations: Array<{ url: string; error?: string }>;
}

export async function withAftermath<T>(
  tab: DriverTab,
  act: () => Promise<T>,
  describeTab: (popup: Page) => Promise<string>,
  signal?: AbortSignal,
): Promise<Aftermath<T>> {
  const { page } = tab;
  const started = new Set<Request>();
  const popups: Array<Promise<string>> = [];
  let windowsOpened = 0;
  const onRequest = (request: Request) => started.add(request);
  const failedNavigations: Array<{ url: string; error?: string }> = [];
  const proxyAnswers: Array<Promise<void>> = [];
  const onFailed = (request: Request) => {
    started.delete(request);
    const error = request.failure()?.errorText ?? 'failed';
    if (request.isNavigationRequest() && error !== 'net::ERR_ABORTED' && mainFrameOf(request, page)) failedNavigations.push({ url: request.url(), error });
  };
  // Plain http goes through the egress proxy as a request: what it refused or could not reach is its own answer, marked.
  const onFinished = (request: Request) => {
    started.delete(request);
    if (!request.isNavigationRequest() || !mainFrameOf(request, page)) return;
    const headers = request.response().then(
      (response) => response?.headers() ?? {},
      () => ({}) as Record<string, string>,
    );
    proxyAnswers.push(
      headers.then((answer) => {
        if (answer['x-clawd-refused'] || answer['x-clawd-egress']) failedNavigations.push({ url: request.url() });
      }),
    );
  };
  const onPopup = (popup: Page) =>
    popups.push(
      describeTab(popup).then(
        (described) => `opened a new tab: ${described}`,
        () => 'opened a new tab',
      ),
    );
  const onWindowOpen = () => windowsOpened++;
  const session: CDPSession | undefined = await tab.cdp().catch(() => undefined);
  session?.on('Page.windowOpen', onWindowOpen);
  page.on('request', onRequest);
  page.on('requestfinished', onFinished);
  page.on('requestfailed', onFailed);
  page.on('popup', onPopup);
  try {
    let result: T;
    try {
      result = await act();
      // Whatever the page sent the browser while handling the action arrives before this answer.
      if (session && !page.isClosed()) await Promise.race([session.send('Runtime.evaluate', { expression: '0' }).catch(() => {}), sleep(200, signal)]);
    } finally {
      page.off('request', onRequest);
    }
    const waited = started.size > 0;
    const deadline = Date.now() + AFTERMATH_MS;
    while ((started.size || popups.length < windowsOpened) && Date.now() < deadline && !page.isClosed()) await sleep(POLL_MS, signal);
    if (waited && !page.isClosed()) await sleep(STRAGGLER_MS, signal);
    await Promise.all(proxyAnswers);
    return { result, events: await Promise.all(popups), failedNavigations };
  } finally {
    page.off('requestfinished', onFinished);
    page.off('requestfailed', onFailed);
    page.off('popup', onPopup);
    session?.off('Page.windowOpen', onWindowOpen);
  }
}

/** Whether a request is the tab's own document (a service worker's has no frame). */
function mainFrameOf(request: Request, page: Page): boolean {
  try {
    return request.frame() === page.mainFrame();
  } catch {
    return false;
  }
}
