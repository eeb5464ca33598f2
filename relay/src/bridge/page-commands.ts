import { BridgeCore } from './bridge-core.js';
import type { Followup } from './pending-work.js';
import type { BrowserTarget } from './browser-target.js';
import type { FileUploads } from './file-uploads.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import type { DebuggerSession } from './client-sessions.js';
import { runCookieCommand } from './cookie-commands.js';
import { beginDisable, beginEnable, domainOf } from './domain-gate.js';
import { classifyPageMethod, deniedMessage, isRepeatable } from './method-policy.js';

/**
 * Commands on a page or child session: checked against the method policy
 * (method-policy.ts), counted by the domain gate when they enable or disable
 * a domain, and otherwise forwarded to chrome.debugger as they are.
 */
export function runPageCommand(
  core: BridgeCore,
  browser: BrowserTarget,
  uploads: FileUploads,
  session: DebuggerSession,
  id: number,
  method: string,
  params: Record<string, unknown> | undefined,
): void {
  switch (method) {
    case 'Target.detachFromTarget':
      return browser.detach(session, id, params);
    case 'Browser.getVersion':
      return core.out.reply(session, id, method, browser.version());
    case 'Target.getTargetInfo':
      if (session.kind === 'page' && !params?.targetId) return core.out.reply(session, id, method, { targetInfo: session.tab.pageTargetInfo() });
      break;
    case 'Target.setAutoAttach':
      // Chrome announces existing children only to the first caller; later
      // clients get them replayed when the answer arrives.
      return forward(core, session, id, method, params, { kind: 'children', session });
  }
  switch (classifyPageMethod(method)) {
    case 'deny':
      throw new CdpFailure(CdpErrorCode.serverError, deniedMessage(method), 'forbidden');
    case 'cookies':
      return runCookieCommand(core, session, id, method, params ?? {}, session.tab);
    case 'upload':
      return uploads.start(session, id, params);
    case 'navigate':
      core.checkUrl(typeof params?.url === 'string' ? params.url : '');
      break;
    case 'forward':
      break;
  }
  const domain = domainOf(method);
  const action = method.slice(domain.length + 1);
  // This server's own origins stay out of the tab's reach whatever a client asks (own-origins.ts).
  if (method === 'Fetch.continueRequest') core.ownOrigins.checkContinue(params);
  if (method === 'Network.emulateNetworkConditionsByRule' || method === 'Network.emulateNetworkConditions')
    return runConditions(core, session, id, method, params);
  if (action === 'enable') {
    const contexts = beginEnable(session, domain);
    // A client's interception has the relay's ports among its patterns.
    const sent = domain === 'Fetch' ? core.ownOrigins.clientFetchEnabled(session, params) : params;
    return forward(core, session, id, method, sent, { kind: 'enable', session, domain, contexts });
  }
  if (method === 'Fetch.disable') {
    // Chrome keeps the other clients' patterns: answered to the client as its disable.
    beginDisable(session, domain);
    const left = core.ownOrigins.clientFetchDisabled(session);
    return forward(core, session, id, left.method, left.params);
  }
  if (action === 'disable') {
    // Another client still relies on the domain: disabling it for this one is local.
    if (!beginDisable(session, domain)) return core.out.reply(session, id, 'Runtime.disable', {});
    const followup: Followup | undefined = domain === 'Runtime' ? { kind: 'runtimeDisabled', chromeSessionId: session.chromeSessionId } : undefined;
    forward(core, session, id, method, params, followup);
    // Network.disable forgets network conditions: the relay's go on again right behind it.
    if (domain === 'Network') core.ownOrigins.networkDisabled(session.tab, session.chromeSessionId);
    return;
  }
  if (method === 'Page.createIsolatedWorld' && typeof params?.frameId === 'string') {
    const worldName = typeof params.worldName === 'string' ? params.worldName : '';
    const followup: Followup = { kind: 'isolatedWorld', chromeSessionId: session.chromeSessionId, frameId: params.frameId, worldName };
    return forward(core, session, id, method, params, followup);
  }
  return forward(core, session, id, method, params);
}

/** A client's network conditions, sent after the relay's own; its answer's rule ids are its own rules' only. */
function runConditions(core: BridgeCore, session: DebuggerSession, messageId: number, method: string, params: Record<string, unknown> | undefined): void {
  const commands = core.ownOrigins.clientConditions(session, method, params);
  const chromeSessionId = session.kind === 'child' ? session.chromeSessionId : undefined;
  const last = commands.pop()!;
  for (const command of commands)
    core.link.send(BridgeCore.cdp(session.tab, command.method, command.params, chromeSessionId), { kind: 'internal', tabId: session.tab.tabId });
  const owned = core.ownOrigins.ownRuleCount();
  const work = { session, messageId, tabId: session.tab.tabId };
  const command = BridgeCore.cdp(session.tab, last.method, last.params, chromeSessionId);
  if (last.method !== 'Network.emulateNetworkConditionsByRule') return core.link.send(command, { kind: 'forward', ...work });
  core.link.send(command, {
    kind: 'transform',
    ...work,
    transform: (result) => {
      const { ruleIds, ...rest } = (result ?? {}) as { ruleIds?: string[] };
      return { ...rest, ...(Array.isArray(ruleIds) ? { ruleIds: ruleIds.slice(owned) } : {}) };
    },
  });
}

function forward(core: BridgeCore, session: DebuggerSession, messageId: number, method: string, params: object | undefined, followup?: Followup): void {
  const command = BridgeCore.cdp(session.tab, method, params, session.kind === 'child' ? session.chromeSessionId : undefined);
  core.link.send(command, { kind: 'forward', session, messageId, tabId: session.tab.tabId, followup }, { repeatable: isRepeatable(method) });
}
