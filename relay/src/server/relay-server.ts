import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { CdpBridge, type Outbound } from '../bridge/cdp-bridge.js';
import { urlHost } from '../config/config.js';
import { DEFAULT_HOST, DEFAULT_RELAY_PORT } from '../config/defaults.js';
import { createLogger, type Logger } from '../log.js';
import { listen } from './listen.js';
import { checkRequest, guardFor } from './request-guard.js';

/**
 * The extension relay (spec §7): HTTP `/json/*`, WS `/cdp` for any number of
 * CDP clients and WS `/extension` for the one live extension. All CDP logic is
 * in CdpBridge; this file moves bytes between sockets and the bridge.
 */

export interface RelayServerOptions {
  token: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Largest frame a CDP client may send (the socket is closed with 1009 above it). */
  maxClientMessageBytes?: number;
  /** Largest frame from the extension (screenshots of long pages are big). */
  maxExtensionMessageBytes?: number;
  /** How long shared tabs survive an extension disconnect (service worker restart). */
  reconnectGraceMs?: number;
  /** Origins allowed besides the extension's own. */
  extraAllowedOrigins?: string[];
  logger?: Logger;
}

export interface RelayServer {
  readonly port: number;
  readonly host: string;
  readonly bridge: CdpBridge;
  /** ws://host:port/cdp (without token). */
  readonly cdpUrl: string;
  close(): Promise<void>;
}

const HTTP_CLIENT_TIMEOUT_MS = 30_000;

type ClientSink = { kind: 'socket'; socket: WebSocket; raw: Duplex } | { kind: 'internal'; deliver(message: CdpMessage): void };
interface CdpMessage {
  id?: number;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const host = options.host ?? DEFAULT_HOST;
  const log = options.logger ?? createLogger('info', 'relay');
  const graceMs = options.reconnectGraceMs ?? 45_000;
  const guard = guardFor(options.token, host, options.extraAllowedOrigins);
  const bridge = new CdpBridge();
  const clients = new Map<number, ClientSink>();
  let extensionSocket: WebSocket | undefined;
  let graceTimer: NodeJS.Timeout | undefined;

  // Everything the bridge emits in one turn of the event loop leaves in as
  // few writes as possible: commands for the extension as one JSON array (one
  // WebSocket message, one hop through Chrome's network service), and each
  // client's raw socket corked until the turn ends (one syscall, not one per
  // CDP message). Nothing waits longer than the current turn.
  let extensionBatch: string[] = [];
  const corked = new Set<Duplex>();
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    if (extensionBatch.length) {
      const batch = extensionBatch;
      extensionBatch = [];
      extensionSocket?.send(batch.length === 1 ? batch[0] : `[${batch.join(',')}]`);
    }
    for (const socket of corked) socket.uncork();
    corked.clear();
  };
  const scheduleFlush = (): void => {
    if (flushScheduled) return;
    flushScheduled = true;
    queueMicrotask(flush);
  };

  const dispatch = (outbound: Outbound[]): void => {
    for (const message of outbound) {
      if (message.to === 'extension') {
        extensionBatch.push(message.data);
        scheduleFlush();
      } else if (message.to === 'client') {
        const sink = clients.get(message.clientId);
        if (sink?.kind === 'socket') {
          if (!corked.has(sink.raw)) {
            sink.raw.cork();
            corked.add(sink.raw);
            scheduleFlush();
          }
          sink.socket.send(message.data, { binary: false });
        } else if (sink?.kind === 'internal') {
          sink.deliver(JSON.parse(typeof message.data === 'string' ? message.data : Buffer.from(message.data).toString()));
        }
      } else {
        const sink = clients.get(message.clientId);
        if (sink?.kind === 'socket') sink.socket.close(1000, message.reason);
      }
    }
  };

  // ---- WebSockets ---------------------------------------------------------

  const cdpServer = new WebSocketServer({ noServer: true, maxPayload: options.maxClientMessageBytes ?? 64 * 1024 * 1024 });
  const extensionServer = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxExtensionMessageBytes ?? 512 * 1024 * 1024,
  });

  cdpServer.on('connection', (socket: WebSocket, _request: IncomingMessage, raw: Duplex) => {
    const clientId = bridge.addClient();
    clients.set(clientId, { kind: 'socket', socket, raw });
    log.info(`CDP client ${clientId} connected (${clients.size} open)`);
    // CDP is JSON text; a binary frame is decoded the same way and judged as text.
    socket.on('message', (data) => dispatch(bridge.handleClientMessage(clientId, data.toString())));
    socket.on('close', (code) => {
      clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
      log.info(`CDP client ${clientId} disconnected (code ${code})`);
    });
    socket.on('error', (error) => log.warn(`CDP client ${clientId}: ${error.message}`));
  });

  extensionServer.on('connection', (socket) => {
    if (extensionSocket) {
      log.info('a newer extension connection replaces the current one');
      const previous = extensionSocket;
      extensionSocket = undefined;
      extensionBatch = []; // meant for the old connection; the bridge fails those commands below
      previous.close(4001, 'replaced by a newer extension connection');
      dispatch(bridge.extensionDisconnected());
    }
    extensionSocket = socket;
    clearTimeout(graceTimer);
    bridge.extensionConnected();
    log.info('extension connected');
    socket.on('message', (data: Buffer) => {
      if (extensionSocket === socket) dispatch(bridge.handleExtensionMessage(data));
    });
    socket.on('close', (code) => {
      if (extensionSocket !== socket) return;
      extensionSocket = undefined;
      dispatch(bridge.extensionDisconnected());
      log.info(`extension disconnected (code ${code}); ${bridge.sharedTabs().length} tab(s) kept for ${graceMs} ms`);
      if (bridge.extensionState === 'reconnecting') {
        clearTimeout(graceTimer);
        graceTimer = setTimeout(() => dispatch(bridge.expireGrace()), graceMs);
        graceTimer.unref();
      }
    });
    socket.on('error', (error) => log.warn(`extension socket: ${error.message}`));
  });

  // ---- HTTP ---------------------------------------------------------------

  /** Runs one CDP command as an in-process client: /json/new and friends reuse the bridge. */
  const cdpCall = (method: string, params: object): Promise<Record<string, unknown>> => {
    const clientId = bridge.addClient();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new HttpError(504, `${method} timed out`)), HTTP_CLIENT_TIMEOUT_MS);
      clients.set(clientId, {
        kind: 'internal',
        deliver(message) {
          if (message.id !== 1) return;
          clearTimeout(timer);
          if (message.error) reject(new HttpError(cdpErrorStatus(message.error.message), message.error.message));
          else resolve(message.result ?? {});
        },
      });
      dispatch(bridge.handleClientMessage(clientId, JSON.stringify({ id: 1, method, params })));
    }).finally(() => {
      clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
    });
  };

  const handleHttp = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const verdict = checkRequest(request, guard);
    if (!verdict.ok) return sendJson(response, verdict.status, { error: { code: verdict.status, message: verdict.message } });
    const url = new URL(request.url ?? '/', 'http://relay');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const wsBase = `ws://${request.headers.host}`;
    const tokenSuffix = verdict.tokenVia === 'query' ? `?token=${encodeURIComponent(options.token)}` : '';

    if (path === '/json/version') {
      const version = bridge.browserVersion();
      return sendJson(response, 200, {
        Browser: version.product,
        'Protocol-Version': version.protocolVersion,
        'User-Agent': version.userAgent,
        'V8-Version': '',
        'WebKit-Version': '',
        webSocketDebuggerUrl: `${wsBase}/cdp${tokenSuffix}`,
      });
    }
    if (path === '/json' || path === '/json/list') {
      return sendJson(response, 200, bridge.sharedTabs().map((tab) => targetJson(tab)));
    }
    if (path === '/json/new') {
      if (request.method !== 'PUT' && request.method !== 'GET')
        return sendJson(response, 405, { error: { code: 405, message: 'Use PUT /json/new?url=…' } });
      const { targetId } = await cdpCall('Target.createTarget', { url: newTabUrl(url) });
      const tab = bridge.findTab(String(targetId));
      return sendJson(response, 200, tab ? targetJson(tab) : { id: targetId });
    }
    const targetRoute = /^\/json\/(activate|close)\/(.+)$/.exec(path);
    if (targetRoute) {
      const [, action, targetId] = targetRoute;
      const id = decodeURIComponent(targetId);
      if (!bridge.findTab(id)) return sendText(response, 404, `No such target id: ${id}`);
      await cdpCall(action === 'activate' ? 'Target.activateTarget' : 'Target.closeTarget', { targetId: id });
      return sendText(response, 200, action === 'activate' ? 'Target activated' : 'Target is closing');
    }
    if (path === '/status') {
      return sendJson(response, 200, {
        extension: bridge.extensionState,
        sharedTabs: bridge.sharedTabs().length,
        cdpClients: [...clients.values()].filter((c) => c.kind === 'socket').length,
      });
    }
    return sendJson(response, 404, { error: { code: 404, message: `No route ${request.method} ${path}` } });
  };

  const server: Server = createServer((request, response) => {
    handleHttp(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) log.error(`HTTP ${request.url}: ${(error as Error).stack}`);
      if (!response.headersSent) sendJson(response, status, { error: { code: status, message: (error as Error).message } });
    });
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const verdict = checkRequest(request, guard);
    const path = new URL(request.url ?? '/', 'http://relay').pathname;
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.message);
    const target = path === '/cdp' || path.startsWith('/devtools/browser') ? cdpServer : path === '/extension' ? extensionServer : undefined;
    if (!target) return refuseUpgrade(socket, 404, `No WebSocket endpoint at ${path}`);
    target.handleUpgrade(request, socket, head, (ws) => target.emit('connection', ws, request, socket));
  });

  const port = await listen(server, host, options.port ?? DEFAULT_RELAY_PORT);
  log.info(`relay listening on http://${urlHost(host)}:${port} (CDP: ws://${urlHost(host)}:${port}/cdp, extension: /extension)`);

  return {
    port,
    host,
    bridge,
    cdpUrl: `ws://${urlHost(host)}:${port}/cdp`,
    async close() {
      clearTimeout(graceTimer);
      for (const sink of clients.values()) if (sink.kind === 'socket') sink.socket.terminate();
      extensionSocket?.terminate();
      cdpServer.close();
      extensionServer.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function cdpErrorStatus(message: string): number {
  if (/not connected|No tab is shared/.test(message)) return 503;
  if (/No target/.test(message)) return 404;
  return 500;
}

/** Chrome takes `/json/new?<url>`; `?url=<url>` is accepted too. */
function newTabUrl(url: URL): string {
  const named = url.searchParams.get('url');
  if (named) return named;
  const raw = decodeURIComponent(url.search.slice(1));
  return raw && !raw.startsWith('token=') ? raw.replace(/&token=[^&]*$/, '') : 'about:blank';
}

function targetJson(tab: { targetId: string; title: string; url: string }) {
  return { id: tab.targetId, type: 'page', title: tab.title, url: tab.url, description: '' };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const reason = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found';
  const body = JSON.stringify({ error: { code: status, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
