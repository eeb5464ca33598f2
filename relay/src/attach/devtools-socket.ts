import { connect } from 'node:net';
import WebSocket from 'ws';
import { type ChromeMessage, readChromeMessage } from './chrome-messages.js';
import { AttachFailure } from './attach-problems.js';
import type { ActivePort } from './user-data.js';

/**
 * The one CDP connection to the person's Chrome, on the browser endpoint
 * DevToolsActivePort names. Opening it is where Chrome asks the person
 * ("Allow remote debugging?"): it holds the WebSocket handshake until they
 * answer, so a handshake still open after a moment is reported as waiting
 * for them, and a failure is classified (attach-problems.ts) rather than
 * left to time out in silence. Only clawd-browser holds this connection; no
 * client ever receives it.
 */

/** How long an unanswered handshake takes before it counts as Chrome asking the person. */
const ASKING_AFTER_MS = 1_000;
/** A command of clawd's own (not a client's) that Chrome does not answer in this long fails. */
const COMMAND_TIMEOUT_MS = 15_000;
/** The largest message from Chrome (full-page screenshots). */
const MAX_MESSAGE_BYTES = 512 * 1024 * 1024;
/**
 * A command Chrome has not answered in this long is forgotten (a frozen tab
 * may never answer): the relay's bridge has failed it to its client already,
 * after 5 minutes, so nothing waits for it, and the map cannot grow without bound.
 */
const FORGOTTEN_AFTER_MS = 6 * 60_000;

export interface OpenOptions {
  /** Called once the handshake has waited long enough to mean Chrome is asking the person. */
  onAsking(): void;
  /** How long the person has to answer. */
  answerTimeoutMs: number;
}

type Waiter = (message: ChromeMessage) => void;

export class DevToolsSocket {
  private nextId = 1;
  private readonly waiting = new Map<number, { then: Waiter; sentAt: number }>();
  private readonly sweep: NodeJS.Timeout;
  /** Every event of every session, the browser's own included. */
  onEvent: (message: ChromeMessage) => void = () => {};
  /** The connection ended (Chrome quit or restarted, or we closed it). */
  onClose: (reason: string) => void = () => {};
  private closedWith: string | undefined;

  private constructor(private readonly socket: WebSocket) {
    this.sweep = setInterval(() => {
      const cutoff = Date.now() - FORGOTTEN_AFTER_MS;
      for (const [id, { sentAt }] of this.waiting) if (sentAt < cutoff) this.waiting.delete(id);
    }, 60_000);
    this.sweep.unref();
    socket.on('message', (data: Buffer) => this.received(data.toString()));
    socket.on('close', (code, reason) => this.closed(`Chrome closed the DevTools connection (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
    socket.on('error', (error) => this.closed(`the DevTools connection failed: ${error.message}`));
  }

  /** Opens the connection: it resolves once the person allowed it (or Chrome allows it without asking). */
  static async open(endpoint: ActivePort, options: OpenOptions): Promise<DevToolsSocket> {
    await listening(endpoint.port);
    const socket = new WebSocket(`ws://127.0.0.1:${endpoint.port}${endpoint.path}`, { perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
    return new Promise<DevToolsSocket>((resolve, reject) => {
      let asked = false;
      const asking = setTimeout(() => {
        asked = true;
        options.onAsking();
      }, ASKING_AFTER_MS);
      const unanswered = setTimeout(
        () => fail(AttachFailure.of('unanswered', { seconds: Math.round(options.answerTimeoutMs / 1000) })),
        options.answerTimeoutMs,
      );
      const settle = () => {
        clearTimeout(asking);
        clearTimeout(unanswered);
        socket.removeAllListeners('open').removeAllListeners('unexpected-response');
      };
      const fail = (failure: AttachFailure) => {
        settle();
        socket.removeAllListeners('error').removeAllListeners('close');
        socket.on('error', () => {});
        socket.terminate();
        reject(failure);
      };
      socket.once('open', () => {
        settle();
        socket.removeAllListeners('error').removeAllListeners('close');
        resolve(new DevToolsSocket(socket));
      });
      socket.once('unexpected-response', (_request, response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        // Chrome answers 403 to a connection the person (or its policy) did not allow; anything else is not this browser's DevTools.
        fail(
          status === 403
            ? AttachFailure.of('refused', { detail: `HTTP ${status}` })
            : AttachFailure.of('not-devtools', { port: endpoint.port, detail: `HTTP ${status} at ${endpoint.path}` }),
        );
      });
      socket.once('error', (error) =>
        fail(asked ? AttachFailure.of('refused', { detail: error.message }) : AttachFailure.of('not-devtools', { port: endpoint.port, detail: error.message })),
      );
      socket.once('close', () => fail(AttachFailure.of('refused', { detail: 'Chrome closed the connection before it opened' })));
    });
  }

  /** Why it closed; undefined while it is open. */
  get ended(): string | undefined {
    return this.closedWith;
  }

  /** One of clawd's own commands: its result, parsed (small answers only: targets, versions). */
  command<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (id !== undefined) this.waiting.delete(id);
        reject(new Error(`Chrome did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const id = this.forward(method, params, sessionId, (answer) => {
        clearTimeout(timer);
        const payload = JSON.parse(answer.payload) as T & { message?: string };
        if (answer.error) reject(new Error(`${method}: ${payload.message ?? 'Chrome refused it'}`));
        else resolve(payload);
      });
      if (id === undefined) {
        clearTimeout(timer);
        reject(new Error(`${method}: ${this.closedWith}`));
      }
    });
  }

  /** Sends a command; `then` gets Chrome's answer as it came. Undefined when the connection is gone. */
  forward(method: string, params: object | undefined, sessionId: string | undefined, then: Waiter): number | undefined {
    if (this.closedWith || this.socket.readyState !== WebSocket.OPEN) return undefined;
    const id = this.nextId++;
    this.waiting.set(id, { then, sentAt: Date.now() });
    this.socket.send(JSON.stringify({ id, method, params: params ?? {}, ...(sessionId ? { sessionId } : {}) }));
    return id;
  }

  /** Forgets a command's answer (its asker has gone). */
  forget(id: number): void {
    this.waiting.delete(id);
  }

  close(): void {
    this.socket.terminate();
  }

  private received(raw: string): void {
    let message: ChromeMessage;
    try {
      message = readChromeMessage(raw);
    } catch {
      return; // not JSON: nothing Chrome sends
    }
    if (message.id === undefined) return this.onEvent(message);
    const waiter = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    waiter?.then(message);
  }

  private closed(reason: string): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    clearInterval(this.sweep);
    const lost = [...this.waiting.values()].map((entry) => entry.then);
    this.waiting.clear();
    const error = JSON.stringify({ code: -32000, message: reason });
    for (const waiter of lost) waiter({ id: 0, error: true, payload: error });
    this.onClose(reason);
  }
}

/** Whether something accepts connections on the port: a plain TCP connect, which asks nobody anything (doctor uses it too). */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.setTimeout(2_000);
    const done = (answers: boolean) => {
      probe.destroy();
      resolve(answers);
    };
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
    probe.once('timeout', () => done(false));
  });
}

/** Nothing listening on the port DevToolsActivePort names: the file is stale. */
async function listening(port: number): Promise<void> {
  if (!(await portAnswers(port))) throw AttachFailure.of('stale', { port });
}
