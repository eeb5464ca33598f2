import type { Protocol } from 'devtools-protocol';
import { rawEvent } from './cdp-frames.js';
import type { DebuggerSession } from './client-sessions.js';
import { BadPayload, parsePayload } from './extension-messages.js';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * Which client sessions see a tab's events, when several share one
 * chrome.debugger session.
 *
 * Chrome sends most domains' events only after `X.enable`. The relay enables
 * a domain in Chrome once, counts which client sessions asked for it, and
 * delivers its events only to those: a client must not see Runtime contexts
 * before it asked (Playwright drops contexts of frames it does not know yet),
 * nor another client's paused requests. Between a session's enable and
 * Chrome's answer, events for it are held and go out just before the answer,
 * as they would from a browser of one's own. V8 reports execution contexts
 * only on the first Runtime.enable, so a later client gets them replayed.
 */

const DOMAINS_NEEDING_ENABLE = new Set([
  'Accessibility',
  'Animation',
  'Audits',
  'Autofill',
  'BackgroundService',
  'CSS',
  'Console',
  'DOM',
  'DOMStorage',
  'Database',
  'Debugger',
  'DeviceAccess',
  'FedCm',
  'Fetch',
  'HeapProfiler',
  'IndexedDB',
  'Inspector',
  'LayerTree',
  'Log',
  'Media',
  'Network',
  'Overlay',
  'Page',
  'Performance',
  'PerformanceTimeline',
  'Preload',
  'Profiler',
  'Runtime',
  'Security',
  'ServiceWorker',
  'WebAuthn',
]);
/** Events of those domains that Chrome sends without the enable. */
const EVENTS_WITHOUT_ENABLE = new Set(['Page.screencastFrame', 'Page.screencastVisibilityChanged']);

export function domainOf(method: string): string {
  return method.slice(0, method.indexOf('.'));
}

/**
 * A session asks for `domain`: counted now, its events held until Chrome
 * answers. Returns the Runtime contexts Chrome will not report again.
 */
export function beginEnable(session: DebuggerSession, domain: string): Uint8Array[] {
  const state = session.tab.chromeSession(session.chromeSessionId);
  state.enable(domain, session.key);
  (session.enabling ??= new Map()).set(domain, []);
  return domain === 'Runtime' ? [...state.contexts.values()] : [];
}

/** Chrome enabled the domain: the frames to send before its answer (replayed contexts, then held events). */
export function finishEnable(session: DebuggerSession, domain: string, contexts: Uint8Array[]): Uint8Array[] {
  const held = session.enabling?.get(domain) ?? [];
  session.enabling?.delete(domain);
  return [...contexts.map((context) => rawEvent('Runtime.executionContextCreated', session.id, context)), ...held];
}

/** Chrome refused the enable: stop holding. */
export function enableFailed(session: DebuggerSession, domain: string): void {
  session.enabling?.delete(domain);
}

/**
 * A session switches `domain` off. Returns true when Chrome must be told
 * (nobody else relies on it); otherwise disabling is local to the session.
 */
export function beginDisable(session: DebuggerSession, domain: string): boolean {
  const state = session.tab.chromeSession(session.chromeSessionId);
  if (!state.disable(domain, session.key)) return false;
  session.enabling?.delete(domain);
  return true;
}

/** A session leaves: the domains nobody else has on, which Chrome should now disable. */
export function releaseDomains(session: DebuggerSession): string[] {
  return session.tab.chromeSessions.get(session.chromeSessionId)?.forget(session.key) ?? [];
}

/** Runtime.disable reached Chrome: its contexts will be reported afresh on the next enable. */
export function runtimeDisabled(tab: SharedTabRecord, chromeSessionId: string): void {
  tab.chromeSessions.get(chromeSessionId)?.contexts.clear();
}

/**
 * Keeps a chrome session's live contexts from Chrome's own events, whoever
 * enabled Runtime: events arriving prove Chrome has it on.
 */
export function trackContexts(tab: SharedTabRecord, chromeSessionId: string, method: string, payload: Uint8Array): void {
  const state = tab.chromeSession(chromeSessionId);
  if (method === 'Runtime.executionContextCreated') {
    const { context } = parsePayload<Protocol.Runtime.ExecutionContextCreatedEvent>(payload);
    if (typeof context?.id !== 'number') throw new BadPayload('executionContextCreated without a context id');
    state.contexts.set(context.id, payload.slice());
  } else if (method === 'Runtime.executionContextDestroyed') {
    state.contexts.delete(parsePayload<Protocol.Runtime.ExecutionContextDestroyedEvent>(payload).executionContextId);
  } else if (method === 'Runtime.executionContextsCleared') {
    state.contexts.clear();
  }
}

/**
 * The params of the executionContextCreated Chrome would have sent for an
 * isolated world, when nobody was told of it: a Page.createIsolatedWorld sent
 * again after the extension's worker restarted answers the world's context
 * id, and when the first one had run, its event went with the old worker
 * (Chrome reports a world once, on creation, and the id only when asked
 * again). Undefined when the context is known, or Runtime is off (Chrome
 * reports it on the next enable).
 *
 * Made as Chrome reports isolated worlds: the frame's origin (from its main
 * world), `isolated` in auxData. Chrome's uniqueId is not known here; the
 * relay names one.
 */
export function unreportedWorld(
  tab: SharedTabRecord,
  chromeSessionId: string,
  world: { contextId: number; frameId: string; worldName: string },
): Uint8Array | undefined {
  const state = tab.chromeSessions.get(chromeSessionId);
  if (!state?.isEnabled('Runtime') || state.contexts.has(world.contextId)) return undefined;
  let origin = '';
  for (const payload of state.contexts.values()) {
    const { context } = parsePayload<Protocol.Runtime.ExecutionContextCreatedEvent>(payload);
    if (context.auxData?.frameId === world.frameId && context.auxData?.isDefault) origin = context.origin;
  }
  const context: Protocol.Runtime.ExecutionContextDescription = {
    id: world.contextId,
    origin,
    name: world.worldName,
    uniqueId: `clawd-relay.${tab.tabId}.${chromeSessionId}.${world.contextId}`,
    auxData: { frameId: world.frameId, isDefault: false, type: 'isolated' },
  };
  return new TextEncoder().encode(JSON.stringify({ context }));
}

/**
 * Routes one event to the sessions on its chrome session that should see it.
 * Returns the frames to send now; frames for a session mid-enable are held.
 */
export function routeEvent(
  tab: SharedTabRecord,
  chromeSessionId: string,
  method: string,
  payload: Uint8Array,
  sessions: DebuggerSession[],
): Array<{ session: DebuggerSession; frame: Uint8Array }> {
  const domain = domainOf(method);
  const enabledBy =
    DOMAINS_NEEDING_ENABLE.has(domain) && !EVENTS_WITHOUT_ENABLE.has(method)
      ? (tab.chromeSessions.get(chromeSessionId)?.enabledBy.get(domain) ?? new Set<string>())
      : undefined;
  const now: Array<{ session: DebuggerSession; frame: Uint8Array }> = [];
  for (const session of sessions) {
    if (enabledBy && !enabledBy.has(session.key)) continue;
    const frame = rawEvent(method, session.id, payload);
    const held = session.enabling?.get(domain);
    if (held) held.push(frame);
    else now.push({ session, frame });
  }
  return now;
}
