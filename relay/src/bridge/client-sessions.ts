import type { Protocol } from 'devtools-protocol';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * The CDP clients connected to the relay and the sessions each holds.
 *
 * Every client gets its own session ids, so two clients on one tab never see
 * each other's traffic. Session ids of child targets (out-of-process iframes,
 * workers) are Chrome's own and therefore the same for every client; `key`
 * is what is unique.
 */

export interface Client {
  id: number;
  /** Every session this client holds, by the id the client uses ('' is the root). */
  sessions: Map<string, Session>;
  /** Commands of this client waiting for the extension (capped by ExtensionLink). */
  inFlight: number;
  /** Set when the client disconnects: nothing more is sent to it. */
  gone: boolean;
  /** `/cdp?group=<name>`: it sees only the tabs of the "clawd:<name>" tab group. */
  group?: string;
}

interface SessionBase {
  id: string;
  /** Unique across clients. */
  key: string;
  client: Client;
  /** The session the client was told about this one on (undefined for roots). */
  parent?: Session;
  closed: boolean;
}

/** The emulated browser target: the root session, or one from Target.attachToBrowserTarget. */
export interface BrowserSession extends SessionBase {
  kind: 'browser';
  /** Set by Target.setAutoAttach. */
  autoAttach?: { filter?: Protocol.Target.TargetFilter };
  /** Set by Target.setDiscoverTargets. */
  discover?: { filter?: Protocol.Target.TargetFilter };
  /** Set by Browser.setDownloadBehavior: whether (and how) this session hears of downloads (download-events.ts). */
  downloads?: { behavior: 'deny' | 'allow' | 'allowAndName' | 'default'; downloadPath?: string; eventsEnabled?: boolean };
}

/** A synthetic tab target (chrome.debugger has none; Puppeteer attaches pages through it). */
export interface TabSession extends SessionBase {
  kind: 'tab';
  tab: SharedTabRecord;
  autoAttach?: { filter?: Protocol.Target.TargetFilter };
}

/** A page ('' chrome session) or child target: its commands go to chrome.debugger. */
export interface DebuggerSession extends SessionBase {
  kind: 'page' | 'child';
  tab: SharedTabRecord;
  /** The chrome.debugger session behind it: '' for the page, Chrome's id for a child. */
  chromeSessionId: string;
  /**
   * Domains this session asked Chrome to enable and Chrome has not answered
   * yet, with the events held meanwhile (domain-gate.ts).
   */
  enabling?: Map<string, Uint8Array[]>;
}

export type TargetSession = TabSession | DebuggerSession;
export type Session = BrowserSession | TargetSession;

export class SessionTable {
  private readonly clients = new Map<number, Client>();
  /** Client sessions on each tab, for event fan-out. */
  private readonly byTab = new Map<number, Set<TargetSession>>();
  private nextClientId = 1;
  private nextSessionNumber = 1;

  get clientCount(): number {
    return this.clients.size;
  }

  client(clientId: number): Client | undefined {
    return this.clients.get(clientId);
  }

  /** A new client, holding its root browser session (''). */
  addClient(group?: string): Client {
    const client: Client = { id: this.nextClientId++, sessions: new Map(), inFlight: 0, gone: false, ...(group ? { group } : {}) };
    this.clients.set(client.id, client);
    this.openBrowser(client, undefined, '');
    return client;
  }

  /** Forgets the client; the caller closes its sessions. */
  removeClient(client: Client): void {
    client.gone = true;
    this.clients.delete(client.id);
  }

  openBrowser(client: Client, parent: Session | undefined, id = this.newId('browser')): BrowserSession {
    return this.register({ id, key: `${client.id}/${id}`, client, parent, closed: false, kind: 'browser' });
  }

  openTab(parent: Session, tab: SharedTabRecord): TabSession {
    const id = this.newId('tab');
    return this.register({ id, key: `${parent.client.id}/${id}`, client: parent.client, parent, closed: false, kind: 'tab', tab });
  }

  openPage(parent: Session, tab: SharedTabRecord): DebuggerSession {
    const id = this.newId('page');
    const client = parent.client;
    return this.register({ id, key: `${client.id}/${id}`, client, parent, closed: false, kind: 'page', tab, chromeSessionId: '' });
  }

  /** A child target's session keeps Chrome's session id, as a client of Chrome would see it. */
  openChild(parent: Session, tab: SharedTabRecord, chromeSessionId: string): DebuggerSession {
    const client = parent.client;
    return this.register({
      id: chromeSessionId,
      key: `${client.id}/${chromeSessionId}`,
      client,
      parent,
      closed: false,
      kind: 'child',
      tab,
      chromeSessionId,
    });
  }

  /**
   * A child target a client attached to itself (Target.attachToTarget, as Playwright's
   * newCDPSession(frame) does for an out-of-process frame): a session of its own, beside the one
   * auto-attach gave, on the same Chrome session. Its id is ours, since the client may hold both.
   */
  openAttachedChild(parent: Session, tab: SharedTabRecord, chromeSessionId: string): DebuggerSession {
    const id = this.newId('child');
    const client = parent.client;
    return this.register({ id, key: `${client.id}/${id}`, client, parent, closed: false, kind: 'child', tab, chromeSessionId });
  }

  /**
   * Closes a session and every session under it; returns the target
   * sessions closed, deepest first, so the caller can undo what they did.
   */
  close(session: Session): TargetSession[] {
    if (session.closed) return [];
    session.closed = true;
    const closed: TargetSession[] = [];
    for (const other of [...session.client.sessions.values()]) {
      if (other.parent === session) closed.push(...this.close(other));
    }
    session.client.sessions.delete(session.id);
    if (session.kind !== 'browser') {
      this.byTab.get(session.tab.tabId)?.delete(session);
      closed.push(session);
    }
    return closed;
  }

  /** Every client session on a tab (tab, page and child sessions). */
  onTab(tabId: number): TargetSession[] {
    return [...(this.byTab.get(tabId) ?? [])];
  }

  /** True while some client still holds a session on the tab. */
  isWatched(tabId: number): boolean {
    return (this.byTab.get(tabId)?.size ?? 0) > 0;
  }

  forgetTab(tabId: number): void {
    this.byTab.delete(tabId);
  }

  /** Client sessions on a tab's own chrome session ('') or on one of its children. */
  onChromeSession(tab: SharedTabRecord, chromeSessionId: string): DebuggerSession[] {
    const kind = chromeSessionId ? 'child' : 'page';
    const result: DebuggerSession[] = [];
    for (const session of this.byTab.get(tab.tabId) ?? []) {
      if (session.kind === kind && session.chromeSessionId === chromeSessionId) result.push(session);
    }
    return result;
  }

  *browserSessions(): Generator<BrowserSession> {
    for (const client of this.clients.values()) {
      for (const session of client.sessions.values()) if (session.kind === 'browser') yield session;
    }
  }

  private newId(kind: Session['kind']): string {
    return `${kind}-${this.nextSessionNumber++}`;
  }

  private register<S extends Session>(session: S): S {
    session.client.sessions.set(session.id, session);
    if (session.kind !== 'browser') {
      let set = this.byTab.get(session.tab.tabId);
      if (!set) this.byTab.set(session.tab.tabId, (set = new Set()));
      set.add(session);
    }
    return session;
  }
}

/** The target a session is attached to, as clients know it. */
export function targetIdOf(session: TargetSession): string | undefined {
  switch (session.kind) {
    case 'tab':
      return session.tab.tabTargetId;
    case 'page':
      return session.tab.targetId;
    case 'child':
      return session.tab.children.get(session.chromeSessionId)?.targetInfo.targetId;
  }
}
