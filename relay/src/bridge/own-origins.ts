import type { Protocol } from 'devtools-protocol';
import { CLAWD_OWN_PAGE, clawdOwnPage } from '../../../protocol/url-gate.js';
import type { RelayCommand } from '../../../protocol/wire.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import type { DebuggerSession } from './client-sessions.js';
import type { ExtensionLink } from './extension-link.js';
import { parsePayload } from './extension-messages.js';
import type { Followup, PendingWork } from './pending-work.js';
import type { SharedTabRecord, TabRegistry } from './tab-registry.js';

/**
 * clawd-browser's own origins (its control API, its relay, every port it
 * listens on) are unreachable from a shared or lent tab, as they are from a
 * task session's browser (whose proxy refuses them). The tab is the
 * person's: their browser holds the console's, the picker's and hand-offs'
 * cookies, and cookies ignore ports, so a request the tab makes there could
 * carry one, and a client driving the tab could read the answer (a
 * navigation through a redirect, its body read with `Fetch.getResponseBody`)
 * or act with it. Checking the URL a client names is not enough: a redirect,
 * a form, a script's `location`, a subresource, the browser's own
 * navigation all make requests no client command names.
 *
 * So on every shared tab's own debugger session, and each child's (frames
 * of other processes), the relay holds network conditions of its own
 * (`Network.emulateNetworkConditionsByRule`): its ports are offline. Chromium
 * applies them in its network stack, cheaply (a page's load costs what it
 * did), to every navigation and each hop of a redirect, and to every
 * subresource and fetch while the tab's network is watched (Playwright and
 * Puppeteer always watch it; unwatched, no answer can be read). A client's
 * own conditions go after the relay's, never in their place, and a
 * `Network.disable` that clears them is followed by the relay's again.
 * Where a client intercepts requests itself (`Fetch`), the relay's ports
 * are among its patterns, and each such request is failed before the client
 * hears of it; a client's `continueRequest` may not rewrite a request onto
 * them. A browser too old for conditions by rule gets the relay's own
 * interception instead (it costs each request a detour through Chromium's
 * interceptor).
 */

/** What of the bridge the guard uses: the link to the extension, and the shared tabs. */
export interface OwnOriginsBridge {
  readonly link: Pick<ExtensionLink<PendingWork>, 'isUp' | 'send'>;
  readonly tabs: Pick<TabRegistry, 'all'>;
}

export class OwnOrigins {
  constructor(
    private readonly core: OwnOriginsBridge,
    private readonly ownPorts: () => readonly number[],
  ) {}

  /** A debugger session (a tab's own, `chromeSessionId` '', or a child's) starts out with this server's ports offline. */
  watch(tab: SharedTabRecord, chromeSessionId = ''): void {
    if (!this.ownPorts().length) return;
    const state = tab.chromeSession(chromeSessionId);
    // A browser without conditions by rule: the relay's own interception instead (its main session's; a child's error is a target without a network).
    const orElse: Followup | undefined = chromeSessionId
      ? undefined
      : {
          kind: 'orElse',
          run: () => {
            state.ownFetch = true;
            this.send(tab, chromeSessionId, 'Fetch.enable', this.fetchParams(tab, chromeSessionId));
          },
        };
    this.send(tab, chromeSessionId, 'Network.emulateNetworkConditionsByRule', this.conditions(tab, chromeSessionId), orElse);
    if (state.ownFetch) this.send(tab, chromeSessionId, 'Fetch.enable', this.fetchParams(tab, chromeSessionId));
  }

  /** The ports are others now (a proxy started or stopped): every tab follows. */
  refresh(): void {
    if (!this.core.link.isUp) return;
    for (const tab of this.core.tabs.all()) for (const chromeSessionId of ['', ...tab.children.keys()]) this.watch(tab, chromeSessionId);
  }

  // ---- a client's network conditions -------------------------------------------

  /**
   * A client's `Network.emulateNetworkConditionsByRule`, or the older `emulateNetworkConditions` (one rule for
   * every request): the commands Chrome is sent instead, the relay's rules first; the last one answers the client.
   */
  clientConditions(
    session: DebuggerSession,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Array<{ method: string; params: Record<string, unknown> }> {
    const state = session.tab.chromeSession(session.chromeSessionId);
    if (method === 'Network.emulateNetworkConditionsByRule') {
      const { matchedNetworkConditions, ...rest } = (params ?? {}) as Partial<Protocol.Network.EmulateNetworkConditionsByRuleRequest>;
      state.conditions = Array.isArray(matchedNetworkConditions) ? matchedNetworkConditions : [];
      return [{ method, params: { ...rest, ...this.conditions(session.tab, session.chromeSessionId) } }];
    }
    // The older call is a rule for every request (the last, empty pattern) and navigator.onLine's state.
    const asked = (params ?? {}) as unknown as Protocol.Network.EmulateNetworkConditionsRequest;
    const { offline, latency, downloadThroughput, uploadThroughput, connectionType } = asked;
    state.conditions = [{ ...asked, urlPattern: '' }];
    return [
      { method: 'Network.emulateNetworkConditionsByRule', params: this.conditions(session.tab, session.chromeSessionId) },
      {
        method: 'Network.overrideNetworkState',
        params: { offline, latency, downloadThroughput, uploadThroughput, ...(connectionType ? { connectionType } : {}) },
      },
    ];
  }

  /** `Network.disable` reached Chrome, which forgets every condition with it: the relay's go on again, nobody else's. */
  networkDisabled(tab: SharedTabRecord, chromeSessionId: string): void {
    const state = tab.chromeSessions.get(chromeSessionId);
    if (state) state.conditions = [];
    if (this.ownPorts().length) this.send(tab, chromeSessionId, 'Network.emulateNetworkConditionsByRule', this.conditions(tab, chromeSessionId));
  }

  // ---- a client's interception (Fetch) ----------------------------------------------

  /** `Fetch.enable` from a client: what goes to Chrome instead (its patterns after the relay's). */
  clientFetchEnabled(session: DebuggerSession, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const asked = (params ?? {}) as Protocol.Fetch.EnableRequest;
    // Without patterns, Fetch intercepts every request at the request stage.
    const patterns = Array.isArray(asked.patterns) ? asked.patterns : [{ urlPattern: '*' }];
    session.tab.chromeSession(session.chromeSessionId).fetch.set(session.key, { patterns, handleAuthRequests: asked.handleAuthRequests === true });
    return this.fetchParams(session.tab, session.chromeSessionId);
  }

  /** A client's `Fetch.disable`: what Chrome is sent instead, keeping the other clients' patterns (a real disable when none are left). */
  clientFetchDisabled(session: DebuggerSession): { method: 'Fetch.enable' | 'Fetch.disable'; params: Record<string, unknown> } {
    session.tab.chromeSessions.get(session.chromeSessionId)?.fetch.delete(session.key);
    return this.fetchLeft(session.tab, session.chromeSessionId);
  }

  /** A client session went: its patterns go, the others' stay. */
  released(tab: SharedTabRecord, chromeSessionId: string, clientSessionKey: string): void {
    const state = tab.chromeSessions.get(chromeSessionId);
    if (!state?.fetch.delete(clientSessionKey)) return;
    const { method, params } = this.fetchLeft(tab, chromeSessionId);
    this.send(tab, chromeSessionId, method, params);
  }

  /**
   * A paused request (`Fetch.requestPaused`): one for this server's own origins is failed here and heard by
   * no client (true); one only the relay's patterns caught (another host on one of these ports) goes on.
   */
  paused(tab: SharedTabRecord, chromeSessionId: string, payload: Uint8Array): boolean {
    const { requestId, request } = parsePayload<Protocol.Fetch.RequestPausedEvent>(payload);
    if (typeof requestId !== 'string' || typeof request?.url !== 'string') return false;
    if (clawdOwnPage(request.url, this.ownPorts())) {
      this.send(tab, chromeSessionId, 'Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
      return true;
    }
    if ((tab.chromeSessions.get(chromeSessionId)?.fetch.size ?? 0) > 0) return false;
    this.send(tab, chromeSessionId, 'Fetch.continueRequest', { requestId });
    return true;
  }

  /** A client's `Fetch.continueRequest` may rewrite a request's URL, but not onto this server's own origins. */
  checkContinue(params: Record<string, unknown> | undefined): void {
    const url = params?.url;
    if (typeof url === 'string' && clawdOwnPage(url, this.ownPorts()))
      throw new CdpFailure(
        CdpErrorCode.serverError,
        `Fetch.continueRequest refused: ${CLAWD_OWN_PAGE}, and no request of a shared tab goes there`,
        'forbidden',
      );
  }

  /** How many network conditions of the relay's come before a client's (its ports'). */
  ownRuleCount(): number {
    return this.ownPorts().length;
  }

  // ---- what Chrome is told ----------------------------------------------------------

  /**
   * The relay's conditions, then the clients'. Its ports are offline whatever the host: every loopback name
   * reaches this server (127.0.0.2, [::1], a name under .localhost), and a site elsewhere on one of these ports
   * is rare enough to go without in a shared tab.
   */
  private conditions(tab: SharedTabRecord, chromeSessionId: string): { matchedNetworkConditions: Protocol.Network.NetworkConditions[] } {
    const own = this.ownPorts().map((port) => ({ urlPattern: `*://*:${port}/*`, offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }));
    return { matchedNetworkConditions: [...own, ...(tab.chromeSessions.get(chromeSessionId)?.conditions ?? [])] };
  }

  /** The relay's patterns (each of its ports, at the request stage), then every client's on that session. */
  private fetchParams(tab: SharedTabRecord, chromeSessionId: string): Record<string, unknown> {
    const own: Protocol.Fetch.RequestPattern[] = this.ownPorts().map((port) => ({ urlPattern: `*://*:${port}/*`, requestStage: 'Request' }));
    const clients = [...(tab.chromeSessions.get(chromeSessionId)?.fetch.values() ?? [])];
    return { patterns: [...own, ...clients.flatMap((client) => client.patterns)], handleAuthRequests: clients.some((client) => client.handleAuthRequests) };
  }

  /** Fetch as it stands without a client that left: the others' patterns with the relay's, or off when nobody intercepts. */
  private fetchLeft(tab: SharedTabRecord, chromeSessionId: string): { method: 'Fetch.enable' | 'Fetch.disable'; params: Record<string, unknown> } {
    const state = tab.chromeSessions.get(chromeSessionId);
    const intercepting = (state?.fetch.size ?? 0) > 0 || (state?.ownFetch === true && this.ownPorts().length > 0);
    return intercepting ? { method: 'Fetch.enable', params: this.fetchParams(tab, chromeSessionId) } : { method: 'Fetch.disable', params: {} };
  }

  private send(tab: SharedTabRecord, chromeSessionId: string, method: string, params: object, followup?: Followup): void {
    // Sent, or queued while the link comes up, before any later client command to the session.
    const command: RelayCommand = { type: 'cdp', id: 0, tabId: tab.tabId, method, params, ...(chromeSessionId ? { sessionId: chromeSessionId } : {}) };
    this.core.link.send(command, { kind: 'internal', tabId: tab.tabId, followup });
  }
}
