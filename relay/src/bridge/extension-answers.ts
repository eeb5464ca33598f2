import type { Protocol } from 'devtools-protocol';
import { shareableUrlProblem } from '../../../protocol/url-gate.js';
import { BridgeCore } from './bridge-core.js';
import type { Followup, PendingWork } from './pending-work.js';
import type { BrowserTarget } from './browser-target.js';
import { CdpErrorCode, rawErrorResponse, rawEvent, rawResponse } from './cdp-frames.js';
import type { DebuggerSession } from './client-sessions.js';
import { enableFailed, finishEnable, routeEvent, runtimeDisabled, trackContexts, unreportedWorld } from './domain-gate.js';
import { BadPayload, parsePayload } from './extension-messages.js';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * What comes back from the extension for the clients (cdp-bridge.ts routes
 * the frames here): answers to the commands the relay sent, with what each
 * entails before the client sees it (domain enables, child replays,
 * isolated worlds), and the tabs' events, child targets attaching and
 * detaching among them. Payloads are spliced into client messages
 * unparsed wherever that is safe.
 */
export class ExtensionAnswers {
  constructor(
    private readonly core: BridgeCore,
    private readonly browser: BrowserTarget,
  ) {}

  /** The answer to a command the relay sent: to the client that asked, after what it entails (followups). */
  answer(commandId: number, isError: boolean, payload: Uint8Array): void {
    const work = this.core.link.settle(commandId);
    if (!work) return; // already failed (tab gone, extension reconnected, expired)
    if (work.kind === 'internal') {
      if (work.followup?.kind === 'step') work.followup.done();
      else if (work.followup?.kind === 'orElse') {
        if (isError) work.followup.run();
      } else if (!isError && work.followup) this.runFollowup(work.followup, work.tabId, payload);
      return;
    }
    const session = work.session;
    if (session.closed) return;
    const out = this.core.out;
    if (!looksLikeObject(payload)) {
      // Spliced unparsed, it would break the client's JSON: the client is told instead.
      out.fail(session, work.messageId, { code: CdpErrorCode.serverError, message: 'the extension sent an unreadable answer: payload is not a JSON object' });
      throw new BadPayload('payload is not a JSON object');
    }
    if (isError) {
      if (work.kind === 'forward' && work.followup?.kind === 'enable') enableFailed(work.followup.session, work.followup.domain);
      out.toClient(session.client, rawErrorResponse(work.messageId, session.id, payload));
      return;
    }
    try {
      switch (work.kind) {
        case 'forward':
          if (work.followup) this.runFollowup(work.followup, work.tabId, payload);
          out.toClient(session.client, rawResponse(work.messageId, session.id, payload));
          return;
        case 'transform': {
          const result = work.transform(parsePayload<object>(payload));
          if (result) out.answer(session, work.messageId, result);
          return;
        }
        case 'createTarget':
          out.reply(session, work.messageId, 'Target.createTarget', { targetId: parsePayload<{ targetId: string }>(payload).targetId });
          return;
        case 'tabOp':
          out.answer(session, work.messageId, work.result);
          return;
      }
    } catch (error) {
      if (!(error instanceof BadPayload)) throw error;
      out.fail(session, work.messageId, { code: CdpErrorCode.serverError, message: `the extension sent an unreadable answer: ${error.message}` });
      throw error;
    }
  }

  /** What a successful answer entails, before the client sees the answer itself. */
  private runFollowup(followup: Followup, tabId: number, payload: Uint8Array): void {
    switch (followup.kind) {
      case 'enable':
        for (const frame of finishEnable(followup.session, followup.domain, followup.contexts)) this.core.out.toClient(followup.session.client, frame);
        return;
      case 'children':
        return this.replayChildren(followup.session);
      case 'runtimeDisabled': {
        const tab = this.core.tabs.get(tabId);
        if (tab) runtimeDisabled(tab, followup.chromeSessionId);
        return;
      }
      case 'step':
        return followup.done();
      case 'orElse':
        return;
      case 'isolatedWorld': {
        const tab = this.core.tabs.get(tabId);
        if (!followup.repeated || !tab) return;
        const { executionContextId } = parsePayload<Protocol.Page.CreateIsolatedWorldResponse>(payload);
        if (typeof executionContextId !== 'number') return;
        const { chromeSessionId, frameId, worldName } = followup;
        const created = unreportedWorld(tab, chromeSessionId, { contextId: executionContextId, frameId, worldName });
        // As if from Chrome, before the answer: tracked, and routed to the sessions that have Runtime on.
        if (created) this.event(tabId, chromeSessionId, 'Runtime.executionContextCreated', created);
        return;
      }
    }
  }

  /** An event of a shared tab (or of a child target in it), routed to the sessions that hear it. */
  event(tabId: number, chromeSessionId: string, method: string, payload: Uint8Array): void {
    const tab = this.core.tabs.get(tabId);
    if (!tab) return;
    if (chromeSessionId && !tab.children.has(chromeSessionId)) return;
    if (method.startsWith('Runtime.executionContext')) trackContexts(tab, chromeSessionId, method, payload);
    if (method === 'Target.attachedToTarget') return this.onChildAttached(tab, chromeSessionId, payload);
    if (method === 'Target.detachedFromTarget') return this.onChildDetached(tab, parsePayload<{ sessionId: string }>(payload).sessionId);
    if (method === 'Inspector.targetCrashed' && !chromeSessionId) this.browser.tabCrashed(tab);
    // A request for this server's own origins is failed before any client hears of it (own-origins.ts).
    if (method === 'Fetch.requestPaused' && this.core.ownOrigins.paused(tab, chromeSessionId, payload)) return;
    const sessions = this.core.sessions.onChromeSession(tab, chromeSessionId);
    for (const { session, frame } of routeEvent(tab, chromeSessionId, method, payload, sessions)) this.core.out.toClient(session.client, frame);
  }

  private onChildAttached(tab: SharedTabRecord, parentSessionId: string, payload: Uint8Array): void {
    const params = parsePayload<Protocol.Target.AttachedToTargetEvent>(payload);
    if (typeof params.sessionId !== 'string' || typeof params.targetInfo?.targetId !== 'string')
      throw new BadPayload('attachedToTarget needs a sessionId and a targetInfo');
    // A frame or worker of an extension (or a browser page) inside a shared tab
    // would run with its powers: not the user's to lend. Let it go unseen.
    if (shareableUrlProblem(params.targetInfo?.url)) {
      if (params.sessionId) this.core.sendInternal(tab, 'Target.detachFromTarget', { sessionId: params.sessionId }, parentSessionId || undefined);
      return;
    }
    tab.children.set(params.sessionId, { sessionId: params.sessionId, parentSessionId, targetInfo: params.targetInfo });
    // A frame or worker of another process makes requests of its own: out of this server's origins too, before it runs.
    this.core.ownOrigins.watch(tab, params.sessionId);
    let delivered = false;
    for (const parent of this.core.sessions.onChromeSession(tab, parentSessionId)) {
      if (parent.client.sessions.has(params.sessionId)) continue; // one view per client
      this.core.sessions.openChild(parent, tab, params.sessionId);
      this.core.out.toClient(parent.client, rawEvent('Target.attachedToTarget', parent.id, payload));
      delivered = true;
    }
    // Nobody is listening, so nobody would ever resume a target paused on start.
    if (!delivered && params.waitingForDebugger) this.core.sendInternal(tab, 'Runtime.runIfWaitingForDebugger', {}, params.sessionId);
  }

  private onChildDetached(tab: SharedTabRecord, childSessionId: string): void {
    const targetIds = new Map([...tab.children.values()].map((child) => [child.sessionId, child.targetInfo.targetId]));
    for (const removed of tab.removeChild(childSessionId)) {
      for (const session of this.core.sessions.onChromeSession(tab, removed)) {
        if (session.parent) this.core.out.emit(session.parent, 'Target.detachedFromTarget', { sessionId: session.id, targetId: targetIds.get(removed) });
        this.core.closeSession(session, { undo: false });
      }
    }
  }

  /** Children Chrome announced to an earlier client, announced to this one. */
  private replayChildren(session: DebuggerSession): void {
    for (const child of session.tab.childrenOf(session.chromeSessionId)) {
      if (session.client.sessions.has(child.sessionId)) continue;
      this.core.sessions.openChild(session, session.tab, child.sessionId);
      this.core.out.emit(session, 'Target.attachedToTarget', { sessionId: child.sessionId, targetInfo: child.targetInfo, waitingForDebugger: false });
    }
  }

  /** Answers each client whose command will never be answered now. */
  fail(lost: PendingWork[], message: string): void {
    for (const work of lost) {
      if (work.kind === 'internal') {
        if (work.followup?.kind === 'step') work.followup.done();
        continue;
      }
      // A failed enable holds nothing any more, as when Chrome refuses it (onCommandAnswer).
      if (work.kind === 'forward' && work.followup?.kind === 'enable') enableFailed(work.followup.session, work.followup.domain);
      if (!work.session.closed) this.core.out.fail(work.session, work.messageId, { code: CdpErrorCode.serverError, message });
    }
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * A cheap check, not a parse (the hot path never parses payloads): empty,
 * or `{` … `}` around optional whitespace. Enough that a buggy extension
 * cannot splice a bare value or nothing into a client's message.
 */
export function looksLikeObject(payload: Uint8Array): boolean {
  let start = 0;
  let end = payload.length - 1;
  while (start <= end && payload[start] <= 0x20) start++;
  while (end >= start && payload[end] <= 0x20) end--;
  if (start > end) return payload.length === 0;
  return payload[start] === OPEN_BRACE && payload[end] === CLOSE_BRACE;
}
