import type { Protocol } from 'devtools-protocol';
import type { SharedTab } from '../../../protocol/wire.js';

/** The single browser context the extension profile exposes: the user's own. */
export const DEFAULT_BROWSER_CONTEXT_ID = 'clawd-default-context';
export const BROWSER_TARGET_ID = 'clawd-browser-target';

/** What a client asked of Fetch on one debugger session: its own patterns, and whether it answers auth challenges. */
export interface ClientFetch {
  patterns: Protocol.Fetch.RequestPattern[];
  handleAuthRequests: boolean;
}

/**
 * What one chrome.debugger session (a tab's own, or a child's) has switched
 * on, so that several CDP clients can share it: who enabled which domain, and
 * the live execution contexts. V8 reports contexts only on the first
 * Runtime.enable, so a later client gets them replayed. The contexts are
 * tracked from Chrome's own events whoever enabled Runtime: events arriving
 * prove Chrome has it on, even when a disable of ours failed (a crashed tab).
 */
export class ChromeSessionState {
  /** domain -> ids of the client sessions that enabled it. */
  readonly enabledBy = new Map<string, Set<string>>();
  /** executionContextCreated params by context id, as Chrome reported them. */
  readonly contexts = new Map<number, Uint8Array>();
  /** What each client session asked of Fetch here, beside the relay's own patterns (own-origins.ts). */
  readonly fetch = new Map<string, ClientFetch>();
  /** The clients' network conditions, after the relay's own (own-origins.ts). */
  conditions: Protocol.Network.NetworkConditions[] = [];
  /** The browser has no conditions by rule: the relay intercepts its own ports itself (own-origins.ts). */
  ownFetch = false;

  isEnabled(domain: string): boolean {
    return (this.enabledBy.get(domain)?.size ?? 0) > 0;
  }

  /** Returns true when another session had already enabled the domain. */
  enable(domain: string, clientSessionKey: string): boolean {
    let set = this.enabledBy.get(domain);
    if (!set) this.enabledBy.set(domain, (set = new Set()));
    const enabledByOthers = set.size > 0 && !set.has(clientSessionKey);
    set.add(clientSessionKey);
    return enabledByOthers;
  }

  /** Returns true when nobody has the domain enabled any more. */
  disable(domain: string, clientSessionKey: string): boolean {
    const set = this.enabledBy.get(domain);
    if (!set?.delete(clientSessionKey)) return !this.isEnabled(domain);
    if (set.size > 0) return false;
    this.release(domain);
    return true;
  }

  /** Removes a departing client session everywhere; returns the domains now unused. */
  forget(clientSessionKey: string): string[] {
    const released: string[] = [];
    for (const [domain, set] of this.enabledBy) {
      if (set.delete(clientSessionKey) && set.size === 0) released.push(domain);
    }
    for (const domain of released) this.release(domain);
    return released;
  }

  private release(domain: string): void {
    this.enabledBy.delete(domain);
    // The contexts are cleared only once Chrome confirms Runtime.disable.
  }
}

/** A target Chrome auto-attached under a shared tab (OOPIF, worker). */
export interface ChildTarget {
  /** Chrome's own session id; clients see it unchanged. */
  sessionId: string;
  /** The chrome session it hangs under: '' for the tab itself. */
  parentSessionId: string;
  targetInfo: Protocol.Target.TargetInfo;
}

export class SharedTabRecord {
  readonly chromeSessions = new Map<string, ChromeSessionState>();
  readonly children = new Map<string, ChildTarget>();

  constructor(public info: SharedTab) {}

  get tabId(): number {
    return this.info.tabId;
  }
  get targetId(): string {
    return this.info.targetId;
  }
  /** Chrome's debugger API has no tab targets; Puppeteer wants one, so we name it. */
  get tabTargetId(): string {
    return `tab-${this.info.tabId}`;
  }

  pageTargetInfo(): Protocol.Target.TargetInfo {
    return {
      targetId: this.info.targetId,
      type: 'page',
      title: this.info.title,
      url: this.info.url,
      attached: true,
      canAccessOpener: false,
      browserContextId: DEFAULT_BROWSER_CONTEXT_ID,
      ...(this.info.openerTargetId ? { openerId: this.info.openerTargetId } : {}),
    };
  }

  tabTargetInfo(): Protocol.Target.TargetInfo {
    return { ...this.pageTargetInfo(), targetId: this.tabTargetId, type: 'tab' };
  }

  /** State of the tab's own session ('') or of a child session. */
  chromeSession(chromeSessionId: string): ChromeSessionState {
    let state = this.chromeSessions.get(chromeSessionId);
    if (!state) this.chromeSessions.set(chromeSessionId, (state = new ChromeSessionState()));
    return state;
  }

  /** Drops a child and everything under it; returns the removed ids, deepest first. */
  removeChild(sessionId: string): string[] {
    if (!this.children.has(sessionId)) return [];
    const removed: string[] = [];
    for (const child of [...this.children.values()]) {
      if (child.parentSessionId === sessionId) removed.push(...this.removeChild(child.sessionId));
    }
    this.children.delete(sessionId);
    this.chromeSessions.delete(sessionId);
    removed.push(sessionId);
    return removed;
  }

  childrenOf(parentSessionId: string): ChildTarget[] {
    return [...this.children.values()].filter((child) => child.parentSessionId === parentSessionId);
  }
}

/** The tabs the user shared, by tab id and by target id. */
export class TabRegistry {
  private readonly byTabId = new Map<number, SharedTabRecord>();

  get size(): number {
    return this.byTabId.size;
  }
  all(): SharedTabRecord[] {
    return [...this.byTabId.values()];
  }
  get(tabId: number): SharedTabRecord | undefined {
    return this.byTabId.get(tabId);
  }
  /** Finds a tab by its page target id or its synthetic tab target id. */
  byTargetId(targetId: string): SharedTabRecord | undefined {
    for (const tab of this.byTabId.values()) {
      if (tab.targetId === targetId || tab.tabTargetId === targetId) return tab;
    }
    return undefined;
  }
  add(info: SharedTab): SharedTabRecord {
    const record = new SharedTabRecord(info);
    this.byTabId.set(info.tabId, record);
    return record;
  }
  remove(tabId: number): SharedTabRecord | undefined {
    const record = this.byTabId.get(tabId);
    if (!record) return undefined;
    this.byTabId.delete(tabId);
    return record;
  }
}
