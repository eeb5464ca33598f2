import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import type { CdpError } from '../bridge/cdp-frames.js';
import { errorForCode, TimeoutError } from '../errors.js';
import type { Logger } from '../log.js';
import { LIMITS } from './limits.js';
import { requestTarget } from './request-target.js';
import { type Dispatch, dispatchGuarded, type EndOfTurnFlush } from './relay-dispatch.js';

/**
 * The relay's CDP clients: the WebSockets of `/cdp` (Playwright, Puppeteer)
 * and the in-process ones `/json/*` runs its commands through. Output to a
 * socket is corked until the end of the turn (relay-dispatch.ts), and a
 * client that does not read is paused, then cut off (limits.ts).
 */

const HTTP_CLIENT_TIMEOUT_MS = 30_000;

type ClientSink = SocketSink | { kind: 'internal'; deliver(message: CdpMessage): void };
interface SocketSink {
  kind: 'socket';
  socket: WebSocket;
  raw: Duplex;
  dropped: boolean;
  paused: boolean;
}
interface CdpMessage {
  id?: number;
  method?: string;
  result?: Record<string, unknown>;
  error?: CdpError;
}

export interface CdpClientsOptions {
  bridge: CdpBridge;
  log: Logger;
  /** Routes what the bridge emits (relay-server.ts). */
  dispatch: Dispatch;
  /** Uncorks the sockets corked this turn (calls `uncorkAll`). */
  endOfTurn: EndOfTurnFlush;
  /** Largest frame a CDP client may send (the socket is closed with 1009 above it). */
  maxMessageBytes: number;
  /** A client whose unread output exceeds this is disconnected with 1008. */
  maxBufferedBytes: number;
}

export class CdpClients {
  private readonly clients = new Map<number, ClientSink>();
  /** Raw sockets corked this turn. */
  private readonly corked = new Set<Duplex>();
  private readonly server: WebSocketServer;

  constructor(private readonly options: CdpClientsOptions) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.server.on('connection', (socket: WebSocket, request: IncomingMessage, raw: Duplex) => this.connected(socket, raw, groupOf(request)));
  }

  /** WebSocket clients connected now (the in-process ones of /json/* not counted). */
  get socketCount(): number {
    return [...this.clients.values()].filter((sink) => sink.kind === 'socket').length;
  }

  /** Takes a `/cdp` upgrade the router has already admitted (guard, client cap). */
  accept(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(request, socket, head, (ws) => this.server.emit('connection', ws, request, socket));
  }

  /** Sends one message the bridge addressed to a client (Outbound `client`). */
  deliver(clientId: number, data: string | Uint8Array): void {
    const sink = this.clients.get(clientId);
    if (sink?.kind === 'socket') {
      if (sink.dropped) return;
      // Judged before sending, so one large answer (a long page's screenshot) still goes out.
      if (sink.socket.bufferedAmount > this.options.maxBufferedBytes) return this.dropSlowClient(clientId, sink);
      if (!this.corked.has(sink.raw)) {
        sink.raw.cork();
        this.corked.add(sink.raw);
        this.options.endOfTurn.schedule();
      }
      sink.socket.send(data, { binary: false });
      if (!sink.paused && sink.socket.bufferedAmount > LIMITS.clientReadPauseBytes) pauseUntilDrained(sink);
    } else if (sink?.kind === 'internal') {
      sink.deliver(JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString()));
    }
  }

  /** Closes a client the bridge is done with (Outbound `closeClient`). */
  closeClient(clientId: number, reason: string): void {
    const sink = this.clients.get(clientId);
    if (sink?.kind === 'socket') sink.socket.close(1000, reason);
  }

  /** End of the turn: each corked socket writes what it held, in one syscall. */
  uncorkAll(): void {
    for (const socket of this.corked) socket.uncork();
    this.corked.clear();
  }

  /** Runs one CDP command as an in-process client: /json/new and friends reuse the bridge. */
  command(method: string, params: object): Promise<Record<string, unknown>> {
    const { bridge, dispatch } = this.options;
    const clientId = bridge.addClient();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new TimeoutError(`${method} timed out`)), HTTP_CLIENT_TIMEOUT_MS);
      this.clients.set(clientId, {
        kind: 'internal',
        deliver(message) {
          if (message.id !== 1) return;
          clearTimeout(timer);
          // The bridge names what each of its errors is (CdpError.data): no guessing from the text.
          if (message.error) reject(errorForCode(message.error.data, message.error.message));
          else resolve(message.result ?? {});
        },
      });
      dispatch(bridge.handleClientMessage(clientId, JSON.stringify({ id: 1, method, params })));
    }).finally(() => {
      this.clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
    });
  }

  /** Ends every client socket. */
  close(): void {
    for (const sink of this.clients.values()) if (sink.kind === 'socket') sink.socket.terminate();
    this.server.close();
  }

  private connected(socket: WebSocket, raw: Duplex, group: string | undefined): void {
    const { bridge, log, dispatch } = this.options;
    const clientId = bridge.addClient(group);
    const sink: ClientSink = { kind: 'socket', socket, raw, dropped: false, paused: false };
    this.clients.set(clientId, sink);
    log.info(`CDP client ${clientId} connected (${this.clients.size} open)`);
    const close = (reason: string) => socket.close(1011, reason);
    // CDP is JSON text; a binary frame is decoded the same way and judged as text.
    socket.on('message', (data) => {
      if (!sink.dropped) dispatchGuarded(log, dispatch, `CDP client ${clientId}`, close, () => bridge.handleClientMessage(clientId, data.toString()));
    });
    socket.on('close', (code) => {
      this.clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
      log.info(`CDP client ${clientId} disconnected (code ${code})`);
    });
    socket.on('error', (error) => log.warn(`CDP client ${clientId}: ${error.message}`));
  }

  /**
   * A client that does not read is not buffered for without end: past
   * maxBufferedBytes (events keep coming even while its commands are paused)
   * it is told why (1008) and cut off, its commands in flight forgotten, and
   * the memory its output held released.
   */
  private dropSlowClient(clientId: number, sink: SocketSink): void {
    const { bridge, log, dispatch, maxBufferedBytes } = this.options;
    sink.dropped = true;
    const mib = Math.round(maxBufferedBytes / 1024 / 1024);
    log.warn(`CDP client ${clientId} is not reading its messages (over ${mib} MiB unsent): closing it with 1008`);
    dispatch(bridge.removeClient(clientId));
    sink.socket.pause();
    sink.socket.close(1008, `not reading: over ${mib} MiB of messages unsent`);
    // The close frame queues behind what the client will not read: end the socket regardless.
    setTimeout(() => sink.socket.terminate(), 1000).unref();
  }
}

/**
 * Backpressure: while a client has much output unread, the relay reads no
 * more of its commands (each would add an answer), until its socket drains.
 */
function pauseUntilDrained(sink: SocketSink): void {
  sink.paused = true;
  sink.socket.pause();
  sink.raw.once('drain', () => {
    sink.paused = false;
    if (!sink.dropped) sink.socket.resume();
  });
}

/** `/cdp?group=<name>` (checked at the upgrade: relay-server.ts): the tab group this client drives. */
function groupOf(request: IncomingMessage): string | undefined {
  return requestTarget(request).query.one('group');
}
