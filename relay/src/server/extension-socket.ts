import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import type { Logger } from '../log.js';
import { RelayHandshake } from './extension-handshake.js';
import { LIMITS } from './limits.js';
import { type Dispatch, dispatchGuarded, type EndOfTurnFlush } from './relay-dispatch.js';

/**
 * WS `/extension`: the one live connection of the clawd-browser extension.
 * A new connection proves the extension key first (extension-handshake.ts);
 * only then do its frames reach the bridge. Frames for the extension leave
 * once per turn, as one message (relay-dispatch.ts).
 */

export interface ExtensionSocketOptions {
  bridge: CdpBridge;
  /** What the extension proves it holds ($CLAWD_HOME/extension-key). */
  extensionKey: string;
  /** How long shared tabs survive an extension disconnect (service worker restart). */
  graceMs: number;
  /** Largest frame from the extension (screenshots of long pages are big). */
  maxMessageBytes: number;
  log: Logger;
  /** Routes what the bridge emits (relay-server.ts). */
  dispatch: Dispatch;
  /** Sends this turn's frames (calls `sendBatch`). */
  endOfTurn: EndOfTurnFlush;
}

export class ExtensionSocket {
  private readonly server: WebSocketServer;
  /** The live connection: proven, and the only one whose frames reach the bridge. */
  private live: WebSocket | undefined;
  /** Connections still proving the extension key. */
  private readonly authenticating = new Set<WebSocket>();
  private graceTimer: NodeJS.Timeout | undefined;
  /** Frames for the extension queued this turn. */
  private batch: string[] = [];

  constructor(private readonly options: ExtensionSocketOptions) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.server.on('connection', (socket: WebSocket) => this.connected(socket));
  }

  /** Takes an `/extension` upgrade the router has already checked (Host, Origin). */
  accept(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(request, socket, head, (ws) => this.server.emit('connection', ws, request, socket));
  }

  /** Queues one frame for the live connection (Outbound `extension`); it leaves at the end of the turn. */
  send(data: string): void {
    this.batch.push(data);
    this.options.endOfTurn.schedule();
  }

  /** End of the turn: the frames queued in it, as one message (a JSON array when more than one). */
  sendBatch(): void {
    if (!this.batch.length) return;
    const batch = this.batch;
    this.batch = [];
    this.live?.send(batch.length === 1 ? batch[0] : `[${batch.join(',')}]`);
  }

  /** Ends every connection, proven or not, and the grace period. */
  close(): void {
    clearTimeout(this.graceTimer);
    for (const socket of this.authenticating) socket.terminate();
    this.live?.terminate();
    this.server.close();
  }

  private connected(socket: WebSocket): void {
    const { log } = this.options;
    if (this.authenticating.size >= LIMITS.authenticatingExtensions) {
      socket.close(1013, 'too many extension connections are authenticating; try again');
      return;
    }
    this.authenticating.add(socket);
    const handshake = new RelayHandshake(this.options.extensionKey);
    const refuse = (reason: string) => {
      log.warn(`extension connection refused: ${reason}`);
      socket.close(1008, reason);
    };
    const timer = setTimeout(() => refuse('the extension did not prove the extension key in time'), LIMITS.extensionAuthMs);
    const stopAuthenticating = () => {
      clearTimeout(timer);
      this.authenticating.delete(socket);
    };
    // Until proven, messages are handled one at a time, in order (proofs are async).
    let proven = false;
    let chain = Promise.resolve();
    socket.on('message', (data: Buffer) => {
      if (proven) return this.fromExtension(socket, data);
      chain = chain
        .then(async () => {
          if (proven) return this.fromExtension(socket, data);
          if (!this.authenticating.has(socket)) return; // refused or timed out already
          const step = await handshake.receive(data);
          if (step.kind === 'reply') return void socket.send(step.data);
          if (step.kind === 'refuse') {
            stopAuthenticating();
            return refuse(step.reason);
          }
          stopAuthenticating();
          if (!(await this.adopt(socket))) return;
          proven = true;
          this.fromExtension(socket, Buffer.from(step.hello));
        })
        .catch((error: unknown) => {
          stopAuthenticating();
          log.error(`extension handshake: ${(error as Error).stack ?? error}`);
          socket.close(1011, 'handshake failed');
        });
    });
    socket.on('close', (code) => {
      stopAuthenticating();
      this.disconnected(socket, code);
    });
    socket.on('error', (error) => log.warn(`extension socket: ${error.message}`));
  }

  private fromExtension(socket: WebSocket, data: Buffer): void {
    const { bridge, log, dispatch } = this.options;
    if (this.live === socket)
      dispatchGuarded(
        log,
        dispatch,
        'extension message',
        (reason) => socket.close(1011, reason),
        () => bridge.handleExtensionMessage(data),
      );
  }

  /**
   * A connection that proved the key becomes the live one, unless a live one
   * still answers: that is never displaced (a second browser with the
   * extension, or anything else, waits its turn). A dead one is replaced.
   */
  private async adopt(socket: WebSocket): Promise<boolean> {
    const { bridge, log, dispatch } = this.options;
    const current = this.live;
    if (current && current !== socket) {
      if (await answersPing(current)) {
        log.warn('refusing a second extension connection: the live one still answers');
        socket.close(4002, 'another clawd-browser extension connection is live');
        return false;
      }
      if (this.live === current) {
        log.warn('the live extension connection stopped answering; the new one takes over');
        this.live = undefined;
        this.batch = []; // meant for the old connection; the bridge fails those commands below
        current.terminate();
        dispatch(bridge.extensionDisconnected());
      }
    }
    if (socket.readyState !== WebSocket.OPEN || this.live) return false;
    this.live = socket;
    clearTimeout(this.graceTimer);
    bridge.extensionConnected();
    log.info('extension connected (key proven)');
    return true;
  }

  /** The live connection closed: its tabs are kept for the grace period, in case it comes back. */
  private disconnected(socket: WebSocket, code: number): void {
    const { bridge, log, dispatch, graceMs } = this.options;
    if (this.live !== socket) return;
    this.live = undefined;
    dispatch(bridge.extensionDisconnected());
    log.info(`extension disconnected (code ${code}); ${bridge.sharedTabs().length} tab(s) kept for ${graceMs} ms`);
    if (bridge.extensionState === 'reconnecting') {
      clearTimeout(this.graceTimer);
      this.graceTimer = setTimeout(() => dispatch(bridge.expireGrace()), graceMs);
      this.graceTimer.unref();
    }
  }
}

/** True when the socket answers a WebSocket ping in time (browsers answer pings themselves). */
function answersPing(socket: WebSocket): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.readyState !== WebSocket.OPEN) return resolve(false);
    const timer = setTimeout(() => finish(false), LIMITS.extensionPingMs);
    const finish = (alive: boolean) => {
      clearTimeout(timer);
      socket.off('pong', onPong);
      resolve(alive);
    };
    const onPong = () => finish(true);
    socket.on('pong', onPong);
    socket.ping();
  });
}
