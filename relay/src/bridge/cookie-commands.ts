import type { Protocol } from 'devtools-protocol';
import { BridgeCore } from './bridge-core.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import type { Session } from './client-sessions.js';
import { filterCookies, planCookieCommand, sharedHosts } from './cookie-scope.js';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * Runs a cookie or storage method, scoped to the shared tabs' sites
 * the client sees (cookie-scope.ts decides): refused, forwarded with its answer filtered, or,
 * for "clear all", emulated as a delete of each cookie in scope. Sent through
 * `tab`'s own session (or the child's the client spoke on).
 */
export function runCookieCommand(
  core: BridgeCore,
  session: Session,
  messageId: number,
  method: string,
  params: Record<string, unknown>,
  tab: SharedTabRecord,
): void {
  // A grouped client's scope is its group's sites (bridge-core.ts sees()).
  const hosts = sharedHosts(core.tabsFor(session.client).map((shared) => shared.info.url));
  const plan = planCookieCommand(method, params, hosts);
  const chromeSessionId = session.kind === 'child' ? session.chromeSessionId : undefined;
  const work = { session, messageId, tabId: tab.tabId };
  switch (plan.kind) {
    case 'refuse':
      throw new CdpFailure(CdpErrorCode.serverError, plan.message, 'forbidden');
    case 'forward': {
      const command = BridgeCore.cdp(tab, plan.method, plan.params, chromeSessionId);
      if (!plan.filter) return core.link.send(command, { kind: 'forward', ...work });
      return core.link.send(command, { kind: 'transform', ...work, transform: (result) => filterCookies(result, hosts) });
    }
    case 'clear':
      return core.link.send(BridgeCore.cdp(tab, 'Network.getAllCookies', {}, chromeSessionId), {
        kind: 'transform',
        ...work,
        transform: (result) => {
          deleteCookies(core, session, messageId, tab, filterCookies(result, hosts).cookies);
          return undefined;
        },
      });
  }
}

/** Deletes each cookie, then answers the client once Chrome has answered every delete. */
function deleteCookies(core: BridgeCore, session: Session, messageId: number, tab: SharedTabRecord, cookies: Protocol.Network.Cookie[]): void {
  let remaining = cookies.length;
  if (!remaining) return core.out.reply(session, messageId, 'Storage.clearCookies', {});
  const done = () => {
    if (--remaining === 0 && !session.closed) core.out.reply(session, messageId, 'Storage.clearCookies', {});
  };
  for (const cookie of cookies) {
    const params = { name: cookie.name, domain: cookie.domain, path: cookie.path };
    core.link.send(BridgeCore.cdp(tab, 'Network.deleteCookies', params), { kind: 'internal', tabId: tab.tabId, followup: { kind: 'step', done } });
  }
}
