import type { Protocol } from 'devtools-protocol';
import { CLAWD_OWN_PAGE, clawdOwnPage } from '../../../protocol/url-gate.js';
import type { RelayCommand } from '../../../protocol/wire.js';
import type { BridgeCore } from './bridge-core.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import type { DebuggerSession } from './client-sessions.js';
import { parsePayload } from './extension-messages.js';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * clawd-browser's own origins (its control API, its relay, every port it
 * listens on) are unreachable from a shared or lent tab, as they are from a
 * task session's browser (whose proxy refuses them). The tab is the
 * person's: their browser holds the console's, the picker's and hand-offs'
 * cookies, and cookies ignore ports, so a request the tab makes there could
 * carry one; a client that drives the tab could then read the answer
 * (`Fetch.getResponseBody` on a navigation it sent through a redirect), or
 * act with it (lend itself tabs). Checking the URL a client names is not
 * enough: a redirect, a form, a script's `location`, a subresource, the
 * browser's own navigation all make requests no client command names.
 *
 * So on every shared tab's own debugger session, and each child's (frames
 * of other processes, workers), the relay holds request interception
 * (`Fetch`) for its own ports, whoever else intercepts: each request there,
 * at every hop of a redirect, is failed before it leaves the browser
 * (`BlockedByClient`), and no client hears of it. A client's own `Fetch`
 * patterns are added to the relay's, never put in their place, and its
 * `Fetch.disable` leaves the relay's on; a client's `continueRequest` may not
 * send a request on to those origins either.
 */

/** What a client asked of Fetch on one debugger session: its own patterns, and whether it answers auth challenges. */
export interface ClientFetch {
  patterns: Protocol.Fetch.RequestPattern[];
  handleAuthRequests: boolean;
}

export class OwnOrigins {
  constructor(
    private readonly core: BridgeCore,
    private readonly ownPorts: () => readonly number[],
  ) {}

  /** A debugger session (a tab's own, `chromeSessionId` '', or a child's) starts out with the relay's interception on. */
  watch(tab: SharedTabRecord, chromeSessionId = ''): void {
    if (!this.ownPorts().length) return;
    // Sent (or queued while the link comes up) before any client's command to the session.
    const command: RelayCommand = { type: 'cdp', id: 0, tabId: tab.tabId, method: 'Fetch.enable', params: this.merged(tab, chromeSessionId), ...(chromeSessionId ? { sessionId: chromeSessionId } : {}) };
    this.core.link.send(command, { kind: 'internal', tabId: tab.tabId });
  }

  /** The ports are others now (a proxy started or stopped): every tab's interception follows. */
  refresh(): void {
    if (!this.core.link.isUp) return;
    for (const tab of this.core.tabs.all()) for (const chromeSessionId of ['', ...tab.children.keys()]) this.watch(tab, chromeSessionId);
  }

  /** `Fetch.enable` from a client: what goes to Chrome instead (its patterns beside the relay's). */
  clientEnabled(session: DebuggerSession, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const asked = (params ?? {}) as Protocol.Fetch.EnableRequest;
    // Without patterns, Fetch intercepts every request at the request stage.
    const patterns = Array.isArray(asked.patterns) ? asked.patterns : [{ urlPattern: '*' }];
    session.tab.chromeSession(session.chromeSessionId).fetch.set(session.key, { patterns, handleAuthRequests: asked.handleAuthRequests === true });
    return this.merged(session.tab, session.chromeSessionId);
  }

  /**
   * A client's `Fetch.disable`: what Chrome is sent instead, keeping the relay's patterns and the other
   * clients' (a real disable only when there are none at all).
   */
  clientDisabled(session: DebuggerSession): { method: 'Fetch.enable' | 'Fetch.disable'; params: Record<string, unknown> } {
    session.tab.chromeSessions.get(session.chromeSessionId)?.fetch.delete(session.key);
    return this.left(session.tab, session.chromeSessionId);
  }

  /** A client session went: its patterns go, the relay's and the others' stay. */
  released(tab: SharedTabRecord, chromeSessionId: string, clientSessionKey: string): void {
    const state = tab.chromeSessions.get(chromeSessionId);
    if (!state?.fetch.delete(clientSessionKey)) return;
    const { method, params } = this.left(tab, chromeSessionId);
    this.core.sendInternal(tab, method, params, chromeSessionId || undefined);
  }

  private left(tab: SharedTabRecord, chromeSessionId: string): { method: 'Fetch.enable' | 'Fetch.disable'; params: Record<string, unknown> } {
    const params = this.merged(tab, chromeSessionId);
    return (params.patterns as unknown[]).length ? { method: 'Fetch.enable', params } : { method: 'Fetch.disable', params: {} };
  }

  /**
   * A paused request (`Fetch.requestPaused`): one for this server's own origins is failed here and
   * heard by no client (true); one the relay's patterns caught that is not ours (a host of the
   * internet on one of these ports) goes on unless a client asked for it.
   */
  paused(tab: SharedTabRecord, chromeSessionId: string, payload: Uint8Array): boolean {
    const { requestId, request } = parsePayload<Protocol.Fetch.RequestPausedEvent>(payload);
    if (typeof requestId !== 'string' || typeof request?.url !== 'string') return false;
    const session = chromeSessionId || undefined;
    if (clawdOwnPage(request.url, this.ownPorts())) {
      this.core.sendInternal(tab, 'Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }, session);
      return true;
    }
    if ((tab.chromeSessions.get(chromeSessionId)?.fetch.size ?? 0) > 0) return false;
    this.core.sendInternal(tab, 'Fetch.continueRequest', { requestId }, session);
    return true;
  }

  /** A client's `Fetch.continueRequest` may rewrite a request's URL, but not onto this server's own origins. */
  checkContinue(params: Record<string, unknown> | undefined): void {
    const url = params?.url;
    if (typeof url === 'string' && clawdOwnPage(url, this.ownPorts()))
      throw new CdpFailure(CdpErrorCode.serverError, `Fetch.continueRequest refused: ${CLAWD_OWN_PAGE}, and no request of a shared tab goes there`, 'forbidden');
  }

  /** The relay's patterns (each of its ports, at the request stage), then every client's on that session. */
  private merged(tab: SharedTabRecord, chromeSessionId: string): Record<string, unknown> {
    const own: Protocol.Fetch.RequestPattern[] = this.ownPorts().map((port) => ({ urlPattern: `*://*:${port}/*`, requestStage: 'Request' }));
    const clients = [...(tab.chromeSessions.get(chromeSessionId)?.fetch.values() ?? [])];
    return { patterns: [...own, ...clients.flatMap((client) => client.patterns)], handleAuthRequests: clients.some((client) => client.handleAuthRequests) };
  }
}
