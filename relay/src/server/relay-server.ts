import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { copyFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, resolve as resolvePath, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { CdpBridge, type Outbound } from '../bridge/cdp-bridge.js';
import type { CdpError } from '../bridge/cdp-frames.js';
import { DownloadLog } from '../driver/download-log.js';
import { readUploads, type UploadPolicy } from '../driver/uploads.js';
import type { UrlPolicy } from '../runtime/url-policy.js';
import { urlHost } from '../config/config.js';
import { DEFAULT_HOST, DEFAULT_RELAY_PORT, EXTENSION_ORIGIN } from '../../../protocol/constants.js';
import { BadRequestError, type ClawdError, errorForCode, ForbiddenError, NotFoundError, TimeoutError, UnavailableError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { asHttpFailure, sendError, stackFrames } from './http-errors.js';
import { RelayHandshake } from './extension-handshake.js';
import { applyServerLimits, LIMITS, SERVER_OPTIONS } from './limits.js';
import { listen } from './listen.js';
import { checkHostAndOrigin, checkRequest, guardFor, redactUrl, refusal, requestUrl } from './request-guard.js';

/**
 * The extension relay (spec §7): HTTP `/json/*`, WS `/cdp` for any number of
 * CDP clients and WS `/extension` for the one live extension. All CDP logic is
 * in CdpBridge; this file moves bytes between sockets and the bridge, and
 * holds every socket to the bounds in limits.ts.
 */

export interface RelayServerOptions {
  /** What CDP clients and /json/* present. */
  token: string;
  /** What the extension proves it holds on /extension ($CLAWD_HOME/extension-key); CDP clients never get it. */
  extensionKey: string;
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
  /** Schemes the URL gate allows beyond http, https and about:blank (config allowedUrlSchemes). */
  allowedUrlSchemes?: string[];
  /** The URL policy (config urlPolicy), read at each check. */
  urlPolicy?: () => UrlPolicy | undefined;
  /** Where DOM.setFileInputFiles may read files from (config uploadDirs); none: uploads by path are refused. */
  uploadPolicy?: () => UploadPolicy;
  /** A client whose unread output exceeds this is disconnected with 1008. */
  maxClientBufferedBytes?: number;
  /** A command the extension has not answered in this long fails. */
  pendingTimeoutMs?: number;
  logger?: Logger;
}

export interface RelayServer {
  readonly port: number;
  readonly host: string;
  readonly bridge: CdpBridge;
  /** Downloads of shared tabs, as the extension reports them. */
  readonly downloads: DownloadLog;
  /**
   * Asks the user, in the extension's own page, which of `domains` may have
   * their cookies saved for `tenant`; resolves with those allowed (none if
   * refused, closed or unanswered in time).
   */
  askConsent(tenant: string, domains: string[], timeoutMs: number): Promise<string[]>;
  /** ws://host:port/cdp (without token). */
  readonly cdpUrl: string;
  close(): Promise<void>;
}

const HTTP_CLIENT_TIMEOUT_MS = 30_000;
/** How often commands the extension never answered are failed. */
const EXPIRY_SWEEP_MS = 10_000;

type ClientSink =
  | { kind: 'socket'; socket: WebSocket; raw: Duplex; dropped: boolean; paused: boolean }
  | { kind: 'internal'; deliver(message: CdpMessage): void };
interface CdpMessage {
  id?: number;
  method?: string;
  result?: Record<string, unknown>;
  error?: CdpError;
}

export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const host = options.host ?? DEFAULT_HOST;
  const log = options.logger ?? createLogger('info', 'relay');
  const graceMs = options.reconnectGraceMs ?? 45_000;
  const guard = guardFor(options.token, host, options.extraAllowedOrigins);
  const maxBuffered = options.maxClientBufferedBytes ?? LIMITS.clientBufferedBytes;
  const bridge = new CdpBridge({ allowedUrlSchemes: options.allowedUrlSchemes, urlPolicy: options.urlPolicy, pendingTimeoutMs: options.pendingTimeoutMs });
  const downloads = new DownloadLog();
  /**
   * A finished download, copied where an allowAndName client expects it. Only
   * into the system temp dir (where Playwright keeps its artifacts): a client
   * does not get to write into other folders of this machine.
   */
  const copyDownload = async (requestId: number, from: string, dir: string, name: string): Promise<void> => {
    let ok = false;
    try {
      const target = resolvePath(dir, basename(name));
      const temp = await realpath(tmpdir());
      const realDir = await realpath(dir);
      if (realDir.startsWith(temp + sep) && from) {
        await copyFile(from, target);
        ok = true;
      } else log.warn(`download not copied: ${dir} is outside the system temp dir`);
    } catch (error) {
      log.warn(`download not copied: ${(error as Error).message}`);
    }
    dispatch(bridge.downloadCopied(requestId, ok));
  };
  /** DOM.setFileInputFiles through the relay: files read under the upload-folder rule, then handed back to the bridge. */
  const readForUpload = async (requestId: number, paths: string[]): Promise<void> => {
    let result: { files: Array<{ name: string; mimeType: string; base64: string }> } | { error: string };
    const policy = options.uploadPolicy?.();
    if (!policy) result = { error: 'this relay has no upload folders (run it with clawd-browser serve)' };
    else {
      try {
        const files = await readUploads(paths, policy);
        result = { files: files.map((file) => ({ name: file.name, mimeType: file.mimeType, base64: file.buffer.toString('base64') })) };
      } catch (error) {
        result = { error: (error as Error).message };
      }
    }
    dispatch(bridge.filesRead(requestId, result));
  };
  /** Consent requests the extension has not answered yet. */
  const consents = new Map<number, { resolve: (domains: string[]) => void; timer: NodeJS.Timeout; asked: string[] }>();
  let nextConsentId = 1;
  const clients = new Map<number, ClientSink>();
  let extensionSocket: WebSocket | undefined;
  const authenticating = new Set<WebSocket>();
  let graceTimer: NodeJS.Timeout | undefined;
  let listeningPort = 0;

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
          if (sink.dropped) continue;
          // Judged before sending, so one large answer (a long page's screenshot) still goes out.
          if (sink.socket.bufferedAmount > maxBuffered) {
            dropSlowClient(message.clientId, sink);
            continue;
          }
          if (!corked.has(sink.raw)) {
            sink.raw.cork();
            corked.add(sink.raw);
            scheduleFlush();
          }
          sink.socket.send(message.data, { binary: false });
          if (!sink.paused && sink.socket.bufferedAmount > LIMITS.clientReadPauseBytes) pauseUntilDrained(sink);
        } else if (sink?.kind === 'internal') {
          sink.deliver(JSON.parse(typeof message.data === 'string' ? message.data : Buffer.from(message.data).toString()));
        }
      } else if (message.to === 'closeClient') {
        const sink = clients.get(message.clientId);
        if (sink?.kind === 'socket') sink.socket.close(1000, message.reason);
      } else if (message.to === 'download') {
        downloads.record(message.targetId, message.download);
      } else if (message.to === 'copyDownload') {
        void copyDownload(message.requestId, message.from, message.dir, message.name);
      } else if (message.to === 'readFiles') {
        void readForUpload(message.requestId, message.paths);
      } else {
        const waiting = consents.get(message.id);
        consents.delete(message.id);
        if (waiting) {
          clearTimeout(waiting.timer);
          waiting.resolve(message.allowed ? message.domains.filter((domain) => waiting.asked.includes(domain)) : []);
        }
      }
    }
  };

  /**
   * Backpressure: while a client has much output unread, the relay reads no
   * more of its commands (each would add an answer), until its socket drains.
   */
  const pauseUntilDrained = (sink: Extract<ClientSink, { kind: 'socket' }>): void => {
    sink.paused = true;
    sink.socket.pause();
    sink.raw.once('drain', () => {
      sink.paused = false;
      if (!sink.dropped) sink.socket.resume();
    });
  };

  /**
   * A client that does not read is not buffered for without end: past
   * maxBuffered (events keep coming even while its commands are paused) it is
   * told why (1008) and cut off, its commands in flight forgotten, and the
   * memory its output held released.
   */
  const dropSlowClient = (clientId: number, sink: Extract<ClientSink, { kind: 'socket' }>): void => {
    sink.dropped = true;
    const mib = Math.round(maxBuffered / 1024 / 1024);
    log.warn(`CDP client ${clientId} is not reading its messages (over ${mib} MiB unsent): closing it with 1008`);
    dispatch(bridge.removeClient(clientId));
    sink.socket.pause();
    sink.socket.close(1008, `not reading: over ${mib} MiB of messages unsent`);
    // The close frame queues behind what the client will not read: end the socket regardless.
    setTimeout(() => sink.socket.terminate(), 1000).unref();
  };

  /** Runs a bridge entry point for one socket; a fault there closes that socket, never the process. */
  const guarded = (what: string, close: (reason: string) => void, work: () => Outbound[]): void => {
    let outbound: Outbound[];
    try {
      outbound = work();
    } catch (error) {
      log.error(`${what}: ${(error as Error).stack ?? error}`);
      close(`internal error handling a message: ${(error as Error).message}`.slice(0, 120));
      return;
    }
    dispatch(outbound);
  };

  // ---- WebSockets ---------------------------------------------------------

  const cdpServer = new WebSocketServer({ noServer: true, maxPayload: options.maxClientMessageBytes ?? LIMITS.clientMessageBytes });
  const extensionServer = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxExtensionMessageBytes ?? LIMITS.extensionMessageBytes,
  });

  cdpServer.on('connection', (socket: WebSocket, _request: IncomingMessage, raw: Duplex) => {
    const clientId = bridge.addClient();
    const sink: ClientSink = { kind: 'socket', socket, raw, dropped: false, paused: false };
    clients.set(clientId, sink);
    log.info(`CDP client ${clientId} connected (${clients.size} open)`);
    const close = (reason: string) => socket.close(1011, reason);
    // CDP is JSON text; a binary frame is decoded the same way and judged as text.
    socket.on('message', (data) => {
      if (!sink.dropped) guarded(`CDP client ${clientId}`, close, () => bridge.handleClientMessage(clientId, data.toString()));
    });
    socket.on('close', (code) => {
      clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
      log.info(`CDP client ${clientId} disconnected (code ${code})`);
    });
    socket.on('error', (error) => log.warn(`CDP client ${clientId}: ${error.message}`));
  });

  const fromExtension = (socket: WebSocket, data: Buffer): void => {
    if (extensionSocket === socket)
      guarded('extension message', (reason) => socket.close(1011, reason), () => bridge.handleExtensionMessage(data));
  };

  /** True when the socket answers a WebSocket ping in time (browsers answer pings themselves). */
  const answersPing = (socket: WebSocket): Promise<boolean> =>
    new Promise((resolve) => {
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

  /**
   * A connection that proved the key becomes the live one, unless a live one
   * still answers: that is never displaced (a second browser with the
   * extension, or anything else, waits its turn). A dead one is replaced.
   */
  const adopt = async (socket: WebSocket): Promise<boolean> => {
    const current = extensionSocket;
    if (current && current !== socket) {
      if (await answersPing(current)) {
        log.warn('refusing a second extension connection: the live one still answers');
        socket.close(4002, 'another clawd-browser extension connection is live');
        return false;
      }
      if (extensionSocket === current) {
        log.warn('the live extension connection stopped answering; the new one takes over');
        extensionSocket = undefined;
        extensionBatch = []; // meant for the old connection; the bridge fails those commands below
        current.terminate();
        dispatch(bridge.extensionDisconnected());
      }
    }
    if (socket.readyState !== WebSocket.OPEN || extensionSocket) return false;
    extensionSocket = socket;
    clearTimeout(graceTimer);
    bridge.extensionConnected();
    log.info('extension connected (key proven)');
    return true;
  };

  extensionServer.on('connection', (socket: WebSocket) => {
    if (authenticating.size >= LIMITS.authenticatingExtensions) {
      socket.close(1013, 'too many extension connections are authenticating; try again');
      return;
    }
    authenticating.add(socket);
    const handshake = new RelayHandshake(options.extensionKey);
    const refuse = (reason: string) => {
      log.warn(`extension connection refused: ${reason}`);
      socket.close(1008, reason);
    };
    const timer = setTimeout(() => refuse('the extension did not prove the extension key in time'), LIMITS.extensionAuthMs);
    const stopAuthenticating = () => {
      clearTimeout(timer);
      authenticating.delete(socket);
    };
    // Until proven, messages are handled one at a time, in order (proofs are async).
    let proven = false;
    let chain = Promise.resolve();
    socket.on('message', (data: Buffer) => {
      if (proven) return fromExtension(socket, data);
      chain = chain.then(async () => {
        if (proven) return fromExtension(socket, data);
        if (!authenticating.has(socket)) return; // refused or timed out already
        const step = await handshake.receive(data);
        if (step.kind === 'reply') return void socket.send(step.data);
        if (step.kind === 'refuse') {
          stopAuthenticating();
          return refuse(step.reason);
        }
        stopAuthenticating();
        if (!(await adopt(socket))) return;
        proven = true;
        fromExtension(socket, Buffer.from(step.hello));
      }).catch((error: unknown) => {
        stopAuthenticating();
        log.error(`extension handshake: ${(error as Error).stack ?? error}`);
        socket.close(1011, 'handshake failed');
      });
    });
    socket.on('close', (code) => {
      stopAuthenticating();
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

  const expiryTimer = setInterval(() => dispatch(bridge.expirePending()), EXPIRY_SWEEP_MS);
  expiryTimer.unref();

  // ---- HTTP ---------------------------------------------------------------

  /** Runs one CDP command as an in-process client: /json/new and friends reuse the bridge. */
  const cdpCall = (method: string, params: object): Promise<Record<string, unknown>> => {
    const clientId = bridge.addClient();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new TimeoutError(`${method} timed out`)), HTTP_CLIENT_TIMEOUT_MS);
      clients.set(clientId, {
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
      clients.delete(clientId);
      dispatch(bridge.removeClient(clientId));
    });
  };

  const handleHttp = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const verdict = checkRequest(request, guard);
    if (!verdict.ok) throw refusal(verdict);
    const url = requestUrl(request);
    if (!url) throw new BadRequestError('The request target is not a URL');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    // Built from where we listen, never from the request's Host header.
    const wsBase = `ws://${urlHost(host)}:${listeningPort}`;
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
        throw new BadRequestError(`${request.method} /json/new: use PUT /json/new?url=…`);
      const { targetId } = await cdpCall('Target.createTarget', { url: newTabUrl(url) });
      const tab = bridge.findTab(String(targetId));
      return sendJson(response, 200, tab ? targetJson(tab) : { id: targetId });
    }
    const targetRoute = /^\/json\/(activate|close)\/(.+)$/.exec(path);
    if (targetRoute) {
      const [, action, targetId] = targetRoute;
      const id = decodePart(targetId);
      if (!bridge.findTab(id)) throw new NotFoundError(`No such target id: ${id}`);
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
    throw new NotFoundError(`No route ${request.method} ${path}`);
  };

  const server: Server = createServer(SERVER_OPTIONS, (request, response) => {
    handleHttp(request, response).catch((error: unknown) => {
      const failure = asHttpFailure(error);
      // The URL may carry the token (?token=): never log it as sent.
      if (failure.unexpected) log.error(`HTTP ${request.method} ${redactUrl(request.url)}: ${failure.error.message}\n${stackFrames(error)}`);
      if (!response.headersSent) sendError(response, failure.error);
    });
  });
  applyServerLimits(server);

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = requestUrl(request)?.pathname;
    if (path === undefined) return refuseUpgrade(socket, new BadRequestError('The request target is not a URL'));
    if (path === '/extension') {
      // The extension proves the extension key inside the connection (not the
      // client token, which it does not hold), and only from its own origin.
      const refused = checkHostAndOrigin(request, guard);
      if (refused && !refused.ok) return refuseUpgrade(socket, refusal(refused));
      if (request.headers.origin !== EXTENSION_ORIGIN)
        return refuseUpgrade(socket, new ForbiddenError(`/extension is for the clawd-browser extension (Origin ${EXTENSION_ORIGIN}) only`));
      return extensionServer.handleUpgrade(request, socket, head, (ws) => extensionServer.emit('connection', ws, request, socket));
    }
    const verdict = checkRequest(request, guard);
    if (!verdict.ok) return refuseUpgrade(socket, refusal(verdict));
    if (path !== '/cdp' && !path.startsWith('/devtools/browser')) return refuseUpgrade(socket, new NotFoundError(`No WebSocket endpoint at ${path}`));
    const open = [...clients.values()].filter((sink) => sink.kind === 'socket').length;
    if (open >= LIMITS.cdpClients)
      return refuseUpgrade(socket, new UnavailableError(`Too many CDP clients (${LIMITS.cdpClients}) are connected to the relay`));
    cdpServer.handleUpgrade(request, socket, head, (ws) => cdpServer.emit('connection', ws, request, socket));
  });

  const port = await listen(server, host, options.port ?? DEFAULT_RELAY_PORT);
  listeningPort = port;
  log.info(`relay listening on http://${urlHost(host)}:${port} (CDP: ws://${urlHost(host)}:${port}/cdp, extension: /extension)`);

  return {
    port,
    host,
    bridge,
    downloads,
    askConsent(tenant, domains, timeoutMs) {
      if (bridge.extensionState !== 'connected')
        return Promise.reject(new UnavailableError('The clawd-browser extension is not connected: it is where you confirm which cookies may be saved'));
      const id = nextConsentId++;
      return new Promise<string[]>((resolve) => {
        const timer = setTimeout(() => {
          consents.delete(id);
          resolve([]);
        }, timeoutMs);
        consents.set(id, { resolve, timer, asked: domains });
        dispatch([{ to: 'extension', data: JSON.stringify({ type: 'consentRequest', id, tenant, domains }) }]);
      });
    },
    cdpUrl: `ws://${urlHost(host)}:${port}/cdp`,
    async close() {
      clearTimeout(graceTimer);
      clearInterval(expiryTimer);
      for (const socket of authenticating) socket.terminate();
      for (const sink of clients.values()) if (sink.kind === 'socket') sink.socket.terminate();
      extensionSocket?.terminate();
      cdpServer.close();
      extensionServer.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A percent-encoded path or query part; a malformed one is the client's error (400), not ours. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadRequestError(`Malformed percent-encoding in ${JSON.stringify(redactUrl(part))}`);
  }
}

/** Chrome takes `/json/new?<url>`; `?url=<url>` is accepted too. */
function newTabUrl(url: URL): string {
  const named = url.searchParams.get('url');
  if (named) return named;
  const raw = decodePart(url.search.slice(1));
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

/** Answers a refused upgrade with the same status and body as any other error. */
function refuseUpgrade(socket: Duplex, error: ClawdError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
