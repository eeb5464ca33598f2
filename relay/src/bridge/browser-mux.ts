import { CdpErrorCode, errorResponse } from './cdp-frames.js';

/**
 * Many CDP clients on one browser pipe (spec §9, "no open door"). A browser
 * launched with `--remote-debugging-pipe` has one connection, ours; each
 * client gets a browser session of its own on it (`Target.attachToBrowserTarget`),
 * which Chromium treats as a separate DevTools client: its own Target
 * discovery and auto-attach, its own domains enabled, its own sessions. The
 * mux only renumbers and routes:
 * - a client's message without sessionId goes to its browser session, one
 *   with a sessionId only if that session is the client's;
 * - ids are made unique on the pipe and given back in the answer;
 * - a message for a session goes to the client that owns it, and the
 *   sessions a client's session attaches (the answer to attachToTarget,
 *   `Target.attachedToTarget`) are that client's too.
 * Pure message-in, message-out: the sockets and the pipe are the caller's.
 * Payloads are passed through as text, not parsed, where only the id and
 * sessionId around them change (a screenshot's megabytes are never re-read).
 */

export interface MuxPeer {
  send(message: string): void;
  close(reason: string): void;
}

interface Client {
  peer: MuxPeer;
  /** Its browser session on the pipe, once Chromium gave it. */
  browserSession?: string;
  /** Messages it sent before it had one. */
  waiting: string[];
  /** Every session it owns (its browser session included). */
  sessions: Set<string>;
  gone: boolean;
}

interface Pending {
  client?: Client;
  /** The id the client gave. */
  id: number;
  method: string;
  /** The mux's own commands: what to do with the answer. */
  then?: (message: BrowserMessage) => void;
}

interface BrowserMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: { sessionId?: string };
  params?: { sessionId?: string };
  error?: { message?: string };
}

/** Methods whose answer names a session the asking client now owns. */
const ATTACHING = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

export class BrowserMux {
  private readonly clients = new Set<Client>();
  private readonly owners = new Map<string, Client>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedWith: string | undefined;

  constructor(
    private readonly toBrowser: (message: string) => void,
    /** What the browser said it is, for `/json/version`. */
    readonly version: { product: string; protocolVersion: string; userAgent: string } = { product: 'Chrome', protocolVersion: '1.3', userAgent: '' },
  ) {}

  get clientCount(): number {
    return this.clients.size;
  }

  /** A new client: given its own browser session; what it sends before then waits. */
  connect(peer: MuxPeer): { receive(raw: string): void; disconnect(): void } {
    const client: Client = { peer, waiting: [], sessions: new Set(), gone: false };
    if (this.closedWith) {
      peer.close(this.closedWith);
      return { receive() {}, disconnect() {} };
    }
    this.clients.add(client);
    this.command('Target.attachToBrowserTarget', {}, (answer) => {
      const sessionId = answer.result?.sessionId;
      if (client.gone) {
        if (sessionId) this.command('Target.detachFromTarget', { sessionId });
        return;
      }
      if (!sessionId) return this.drop(client, `the browser refused a session: ${answer.error?.message ?? 'no sessionId'}`);
      client.browserSession = sessionId;
      this.own(client, sessionId);
      for (const raw of client.waiting.splice(0)) this.fromClient(client, raw);
    });
    return { receive: (raw) => this.fromClient(client, raw), disconnect: () => this.disconnect(client) };
  }

  /** One message from the pipe. */
  fromBrowser(raw: string): void {
    const head = headOf(raw);
    if (head.id !== undefined) {
      const pending = this.pending.get(head.id);
      if (!pending) return;
      this.pending.delete(head.id);
      if (pending.then) return pending.then(JSON.parse(raw) as BrowserMessage);
      const client = pending.client!;
      if (client.gone) return;
      if (ATTACHING.has(pending.method)) {
        const sessionId = (JSON.parse(raw) as BrowserMessage).result?.sessionId;
        if (sessionId) this.own(client, sessionId);
      }
      return client.peer.send(withIdAndSession(raw, head, pending.id, client.browserSession));
    }
    if (head.sessionId === undefined) return this.fromRoot(raw, head);
    const client = this.owners.get(head.sessionId);
    if (!client || client.gone) return;
    if (head.method === 'Target.attachedToTarget') {
      const attached = (JSON.parse(raw) as BrowserMessage).params?.sessionId;
      if (attached) this.own(client, attached);
    }
    client.peer.send(withIdAndSession(raw, head, undefined, client.browserSession));
    if (head.method === 'Target.detachedFromTarget') {
      const detached = (JSON.parse(raw) as BrowserMessage).params?.sessionId;
      if (detached && detached !== client.browserSession) this.disown(detached);
    }
  }

  /** The pipe closed (the browser exited): every client is told why and closed. */
  close(reason: string): void {
    this.closedWith = reason;
    for (const client of [...this.clients]) this.drop(client, reason);
    this.pending.clear();
  }

  private fromRoot(raw: string, head: Head): void {
    // Events of our own connection: only a client's browser session going away (the browser closed it) matters.
    if (head.method !== 'Target.detachedFromTarget') return;
    const sessionId = (JSON.parse(raw) as BrowserMessage).params?.sessionId;
    const client = sessionId ? this.owners.get(sessionId) : undefined;
    if (client && client.browserSession === sessionId) this.drop(client, "the browser ended this client's session");
  }

  private fromClient(client: Client, raw: string): void {
    if (client.gone) return;
    if (!client.browserSession) {
      client.waiting.push(raw);
      return;
    }
    let message: { id?: unknown; method?: unknown; sessionId?: unknown; params?: unknown };
    try {
      message = JSON.parse(raw);
    } catch {
      return client.peer.send(errorResponse(undefined, '', { code: CdpErrorCode.parseError, message: 'Message must be valid JSON' }));
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message))
      return client.peer.send(errorResponse(undefined, '', { code: CdpErrorCode.invalidRequest, message: 'Message must be a JSON object' }));
    const { id, method, sessionId } = message;
    if (typeof id !== 'number' || !Number.isSafeInteger(id))
      return client.peer.send(errorResponse(undefined, '', { code: CdpErrorCode.invalidRequest, message: "Message must have integer 'id' property" }));
    const replyAs = typeof sessionId === 'string' ? sessionId : '';
    if (typeof method !== 'string')
      return client.peer.send(errorResponse(id, replyAs, { code: CdpErrorCode.invalidRequest, message: "Message must have string 'method' property" }));
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !client.sessions.has(sessionId)))
      // The same words Chromium uses for a session it does not know: another client's session is not revealed.
      return client.peer.send(errorResponse(id, replyAs, { code: CdpErrorCode.sessionNotFound, message: 'Session with given id not found.' }));
    const pipeId = this.nextId++;
    this.pending.set(pipeId, { client, id, method });
    this.toBrowser(JSON.stringify({ ...message, id: pipeId, sessionId: sessionId ?? client.browserSession }));
  }

  private command(method: string, params: object, then: (message: BrowserMessage) => void = () => {}): void {
    const pipeId = this.nextId++;
    this.pending.set(pipeId, { id: pipeId, method, then });
    this.toBrowser(JSON.stringify({ id: pipeId, method, params }));
  }

  private own(client: Client, sessionId: string): void {
    client.sessions.add(sessionId);
    this.owners.set(sessionId, client);
  }

  private disown(sessionId: string): void {
    this.owners.get(sessionId)?.sessions.delete(sessionId);
    this.owners.delete(sessionId);
  }

  /** The client left: its browser session is detached, which detaches every session it attached through it. */
  private disconnect(client: Client): void {
    if (client.gone) return;
    const browserSession = client.browserSession;
    this.forget(client);
    if (browserSession && !this.closedWith) this.command('Target.detachFromTarget', { sessionId: browserSession });
  }

  private drop(client: Client, reason: string): void {
    if (client.gone) return;
    this.forget(client);
    client.peer.close(reason);
  }

  private forget(client: Client): void {
    client.gone = true;
    this.clients.delete(client);
    for (const sessionId of client.sessions) this.owners.delete(sessionId);
    client.sessions.clear();
    for (const [pipeId, pending] of this.pending) if (pending.client === client) this.pending.delete(pipeId);
  }
}

interface Head {
  id?: number;
  method?: string;
  sessionId?: string;
  /** Where the text after the id starts, and where the sessionId part starts: for splicing. */
  idEnd?: number;
  sessionStart?: number;
}

/**
 * Chromium writes `{"id":N,…}` for answers and `{"method":"…",…}` for events,
 * with `,"sessionId":"…"` last when there is one. Those three are read off the
 * text's ends; anything else is parsed in full.
 */
function headOf(raw: string): Head {
  const id = /^\{"id":(\d+),/.exec(raw);
  const method = id ? undefined : /^\{"method":"([^"\\]+)",/.exec(raw);
  const session = /,"sessionId":"([0-9A-Za-z]+)"\}$/.exec(raw.length > 200 ? raw.slice(-200) : raw);
  // A sessionId that is not last (or is only inside the params) needs the whole message read.
  if ((!id && !method) || (!session && raw.includes('"sessionId"'))) {
    const parsed = JSON.parse(raw) as BrowserMessage;
    return { id: parsed.id, method: parsed.method, sessionId: parsed.sessionId, idEnd: id ? id[0].length - 1 : undefined };
  }
  return {
    id: id ? Number(id[1]) : undefined,
    method: method?.[1],
    sessionId: session?.[1],
    idEnd: id ? id[0].length - 1 : undefined,
    sessionStart: session ? raw.length - session[0].length : undefined,
  };
}

/** The browser's message as the client sees it: its own id back, and no sessionId for its browser session. */
function withIdAndSession(raw: string, head: Head, clientId: number | undefined, browserSession: string | undefined): string {
  const stripSession = head.sessionId !== undefined && head.sessionId === browserSession;
  const spliceable = (clientId === undefined || head.idEnd !== undefined) && (!stripSession || head.sessionStart !== undefined);
  if (!spliceable) {
    const message = JSON.parse(raw) as BrowserMessage;
    if (clientId !== undefined) message.id = clientId;
    if (stripSession) delete message.sessionId;
    return JSON.stringify(message);
  }
  let text = raw;
  if (stripSession) text = `${text.slice(0, head.sessionStart)}}`;
  if (clientId !== undefined) text = `{"id":${clientId}${text.slice(head.idEnd)}`;
  return text;
}
