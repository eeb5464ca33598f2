import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { BrowserMux } from '../bridge/browser-mux.js';
import type { Logger } from '../log.js';
import type { FleetCarrier } from './fleet-carrier.js';
import type { GuardOptions } from './request-guard.js';
import { LIMITS } from './limits.js';

/**
 * The sockets of `/cdp?profile=<name>`: CDP clients of the browsers this
 * server launched (managed profiles, task sessions), each joined to its
 * browser's mux (bridge/browser-mux.ts). The relay's router has admitted the
 * upgrade (Host, Origin, credential) and found the mux before it gets here.
 * Output is corked until the end of the turn, and a client that does not
 * read is cut off, as on the extension's `/cdp` (cdp-clients.ts).
 */

/** Who presented what at `/cdp?profile=`: the audit of a session names it. */
export type CdpCredential = 'driver' | 'token' | 'session key';

/** What serves `/cdp?profile=`: the profile manager, given to the relay once it exists (cli/serve.ts). */
export interface ProfileCdpHandler {
  /** The mux of a browser this server launched, for a client that presented `credential`; throws a ClawdError. */
  mux(profile: string, credential: CdpCredential): Promise<BrowserMux>;
  /** Whose task-session key a secret is (GuardOptions.sessionKeys). */
  sessionKeys: NonNullable<GuardOptions['sessionKeys']>;
  /** A client joined a profile's browser; returns what to run when it leaves. */
  joined?(profile: string, credential: CdpCredential): () => void;
  /** With a store: clients of sessions other servers of the fleet hold are carried there (fleet-carrier.ts). */
  fleet?: { carrier: FleetCarrier; holds(session: string): boolean };
}

export class ProfileCdpSockets {
  private readonly server: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly options: {
      log: Logger;
      maxMessageBytes: number;
      maxBufferedBytes: number;
    },
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  }

  get socketCount(): number {
    return this.sockets.size;
  }

  /** Upgrades the request and joins the socket to `mux`; `onClose` runs when it leaves. */
  accept(request: IncomingMessage, raw: Duplex, head: Buffer, profile: string, mux: BrowserMux, onClose: () => void = () => {}): void {
    const { log, maxBufferedBytes } = this.options;
    this.server.handleUpgrade(request, raw, head, (socket) => {
      this.sockets.add(socket);
      let corked = false;
      let dropped = false;
      const client = mux.connect({
        send: (message) => {
          if (dropped || socket.readyState !== socket.OPEN) return;
          if (socket.bufferedAmount > maxBufferedBytes) {
            dropped = true;
            const mib = Math.round(maxBufferedBytes / 1024 / 1024);
            log.warn(`CDP client of ${profile} is not reading its messages (over ${mib} MiB unsent): closing it with 1008`);
            client.disconnect();
            socket.close(1008, `not reading: over ${mib} MiB of messages unsent`);
            setTimeout(() => socket.terminate(), 1000).unref();
            return;
          }
          if (!corked) {
            corked = true;
            raw.cork();
            queueMicrotask(() => {
              corked = false;
              raw.uncork();
            });
          }
          socket.send(message);
          // Backpressure: no more of its commands are read while much of its output is unread.
          if (socket.bufferedAmount > LIMITS.clientReadPauseBytes && !socket.isPaused) {
            socket.pause();
            raw.once('drain', () => socket.resume());
          }
        },
        close: (reason) => socket.close(1011, reason.slice(0, 120)),
      });
      socket.on('message', (data) => client.receive(data.toString()));
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.disconnect();
        onClose();
      });
      socket.on('error', (error) => log.warn(`CDP client of ${profile}: ${error.message}`));
    });
  }

  close(): void {
    for (const socket of this.sockets) socket.terminate();
    this.server.close();
  }
}
