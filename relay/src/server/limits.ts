import type { Server } from 'node:http';

/**
 * Every bound on what clients can make the servers hold (spec §9: no input
 * grows a server without bound). Documented in docs/security.md;
 * change them here, not at the call sites.
 */
export const LIMITS = {
  /** Largest WebSocket message a CDP client may send (1009 above it). Uploads of up to 50 MB travel base64 inside one. */
  clientMessageBytes: 96 * 1024 * 1024,
  /** Largest message from the extension: full-page screenshots of long pages are big. */
  extensionMessageBytes: 512 * 1024 * 1024,
  /**
   * Output a CDP client has not read yet. Above `clientReadPauseBytes` the
   * relay stops reading that client's commands until it catches up (TCP
   * backpressure); above `clientBufferedBytes` (events keep coming) it is
   * disconnected with 1008. One large message (a screenshot) always goes out.
   */
  clientReadPauseBytes: 1 * 1024 * 1024,
  clientBufferedBytes: 64 * 1024 * 1024,
  /** CDP clients connected to the relay at once. */
  cdpClients: 64,
  /** Extension connections still proving the extension key at once. */
  authenticatingExtensions: 4,
  /** How long a new extension connection has to prove the key. */
  extensionAuthMs: 5_000,
  /** How long a live extension has to answer a ping before a newly authenticated one may replace it. */
  extensionPingMs: 2_000,
  /** TCP connections each HTTP server holds at once; more are dropped on arrival. */
  httpConnections: 256,
  /** Time to receive a request's headers, and the whole request (slow-loris senders are cut off). */
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** Operator consoles' event streams (`GET /events`) open at once. */
  eventStreams: 16,
  /** Live-view output a viewer has not read yet: beyond it, frames are skipped for that viewer (and events, for a console). */
  screencastBufferedBytes: 2 * 1024 * 1024,
  /** Control API JSON bodies (inline uploads are base64 inside them). */
  controlBodyBytes: 72 * 1024 * 1024,
} as const;

/**
 * How often Node checks its request and header timeouts (by default every
 * 30 s, so a slow sender could hold a connection for twice the timeout).
 */
export const SERVER_OPTIONS = { connectionsCheckingInterval: 1_000 } as const;

/** Connection caps and timeouts for one HTTP server, so a flood on one leaves the other answering. */
export function applyServerLimits(server: Server): void {
  server.maxConnections = LIMITS.httpConnections;
  server.headersTimeout = LIMITS.headersTimeoutMs;
  server.requestTimeout = LIMITS.requestTimeoutMs;
  server.keepAliveTimeout = LIMITS.keepAliveTimeoutMs;
}
