import type { Browser, CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { countBrowserRefusal, policyActive, privateHostRemedy, resolveHost, type UrlPolicy, urlPolicyProblem } from '../../runtime/url-policy.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * The URL policy on every request of a browser clawd-browser drives at the
 * browser level (managed profiles, task sessions, remote profiles): one
 * `Fetch` interception on the browser target pauses each request of every
 * target — top-level navigations and their redirects, frames in this
 * process or another, popups and new tabs, subresources (fetch, XHR, images,
 * scripts, styles), dedicated, shared and service workers, and whatever a
 * CDP client of the browser does — before it leaves. In `public-only` mode
 * the name is resolved first, so a name that resolves to loopback or a
 * private range is refused as the address would be.
 *
 * A refusal keeps what is allowed standing: a tab's own navigation is
 * answered 204 (the page stays; the navigation that asked for it fails with
 * a 403); a frame, a new tab or a subresource fails as blocked. Each is reported as an event with the next action of the tab
 * it belongs to (the tab being driven, for frames and popups).
 *
 * Cost: one round trip to this process per request while a policy is set
 * (interception is switched off without one).
 */
export class BrowserUrlGuard {
  private session: CDPSession | undefined;
  private enabled = false;
  private switching: Promise<void> | undefined;

  constructor(
    private readonly browser: Browser,
    private readonly policy: () => UrlPolicy | undefined,
    /** The tab whose main frame is this target id, if the driver knows it (never asks the browser: requests wait). */
    private readonly tabWithId: (targetId: string) => DriverTab | undefined,
    /** The tab being driven: where refusals of frames and popups are reported. */
    private readonly drivenTab: () => DriverTab | undefined,
  ) {}

  /** Interception on while a policy is set, off without one; config edits apply at the next action. */
  async sync(): Promise<void> {
    await this.switching;
    const wanted = policyActive(this.policy());
    if (wanted === this.enabled) return;
    this.switching = this.switchTo(wanted).finally(() => (this.switching = undefined));
    await this.switching;
  }

  private async switchTo(on: boolean): Promise<void> {
    if (!this.session) {
      this.session = await this.browser.newBrowserCDPSession();
      const session = this.session;
      // A request is never left paused: if deciding fails, it is refused (the policy fails closed).
      session.on(
        'Fetch.requestPaused',
        (event) =>
          void this.decide(event).catch(() =>
            session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => {}),
          ),
      );
    }
    if (on) await this.session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    else await this.session.send('Fetch.disable');
    this.enabled = on;
  }

  private async decide(event: Protocol.Fetch.RequestPausedEvent): Promise<void> {
    const session = this.session!;
    const problem = await urlPolicyProblem(event.request.url, this.policy(), resolveHost);
    if (!problem) return void (await session.send('Fetch.continueRequest', { requestId: event.requestId }));
    countBrowserRefusal();
    const where = event.request.url.split(/[?#]/)[0];
    const document = event.resourceType === 'Document';
    // Chromium names a page's main frame by its target id: a request of a tab's main frame is that tab's.
    const ownTab = this.tabWithId(event.frameId);
    if (ownTab && document) {
      ownTab.urlPolicy.lastRefusal = `${problem}${privateHostRemedy(problem, event.request.url)}`;
      ownTab.noteEvent(`navigation to ${where} refused: ${problem}`);
    } else {
      const what = document
        ? "a frame's or new tab's navigation"
        : `${/^[aeiou]/i.test(event.resourceType) ? 'an' : 'a'} ${event.resourceType.toLowerCase()} request`;
      (ownTab ?? this.drivenTab())?.noteEvent(`${what} to ${where} refused: ${problem}`);
    }
    // A tab's own navigation gets 204, which keeps its page where it was (an error page would
    // replace it). Anything else fails as blocked: a frame or a new tab then shows Chrome's
    // "blocked" page (a new tab left on a 204 would never finish its first navigation, and CDP
    // clients such as Playwright wait for that when they attach).
    if (ownTab && document) await session.send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 204, body: '' });
    else await session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' });
  }
}
