import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { BrowserMux } from '../bridge/browser-mux.js';
import type { TeachRequest } from '../bridge/outbound.js';
import { CdpBridge } from '../bridge/cdp-bridge.js';
import { DownloadLog } from '../driver/network/download-log.js';
import type { UploadPolicy } from '../driver/acts/uploads.js';
import type { UrlPolicy } from '../runtime/url-policy.js';
import { urlHost } from '../config/config.js';
import { DEFAULT_HOST, DEFAULT_RELAY_PORT, EXTENSION_ORIGIN } from '../../../protocol/constants.js';
import { GROUP_NAME } from '../../../protocol/wire.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnavailableError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { asHttpFailure, refuseUpgrade, sendError, stackFrames } from './http-errors.js';
import { CdpClients } from './cdp-clients.js';
import { type CdpCredential, type ProfileCdpHandler, ProfileCdpSockets } from './profile-cdp-sockets.js';
export type { ProfileCdpHandler } from './profile-cdp-sockets.js';
import { ConsentRequests } from './consent-requests.js';
import { CHROME_PROFILE, ChromeRelay, type ChromeRelayOptions } from './chrome-relay.js';
import { ExtensionSocket } from './extension-socket.js';
import { applyServerLimits, LIMITS, SERVER_OPTIONS } from './limits.js';
import { listen } from './listen.js';
import { type Dispatch, EndOfTurnFlush } from './relay-dispatch.js';
import { RelayFiles } from './relay-files.js';
import { RelayHttpRoutes } from './relay-http.js';
import { checkHostAndOrigin, checkRequest, type GuardOptions, type GuardResult, guardFor, redactUrl, refusal } from './request-guard.js';
import { admitTarget, RELAY_QUERY_NAMES } from './request-target.js';
import { FleetCarrier, sessionOfProfile } from './fleet-carrier.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';

/**
 * The extension relay (spec §7): HTTP `/json/*`, WS `/cdp` for any number of
 * CDP clients and WS `/extension` for the one live extension. All CDP logic is
 * in CdpBridge; the relay moves bytes between sockets and the bridge, and
 * holds every socket to the bounds in limits.ts. This file makes the HTTP
 * server, routes requests and upgrades, and routes what the bridge emits to
 * the part that sends or does it:
 * - cdp-clients.ts: the `/cdp` sockets (and /json/*'s in-process clients),
 *   corked output, backpressure, slow readers cut off;
 * - extension-socket.ts: `/extension`, its handshake, the one live
 *   connection, frames in and out;
 * - profile-cdp-sockets.ts: `/cdp?profile=<name>`, the CDP of the browsers
 *   this server launched (their pipes multiplexed: bridge/browser-mux.ts);
 * - relay-http.ts: the `/json/*` and `/status` endpoints;
 * - relay-files.ts: download copies and upload reads;
 * - consent-requests.ts: cookie-saving consent asked in the extension;
 * - relay-dispatch.ts: the end-of-turn flush and the guard on bridge calls.
 */

/** Answers a teaching request from the extension (server/extension-teaching.ts); a rejection's message is what the person reads. */
export type TeachingHandler = (request: TeachRequest) => Promise<unknown>;

/** A hand-off on a shared tab: `link` while it waits (its own one-time link), none once it ended. */
export interface HandoffNotice {
  id: string;
  targetId: string;
  reason: string;
  link?: string;
}

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
  /** Host names answered to beyond loopback and the bind address (config hostNames). */
  hostNames?: string[];
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
  /** The `chrome` profile's settings (config.json's chrome), read at each attach. */
  chromeSettings?: ChromeRelayOptions['settings'];
  logger?: Logger;
}

export interface RelayServer {
  readonly port: number;
  readonly host: string;
  readonly bridge: CdpBridge;
  /** The `chrome` profile: the person's own Chrome, attached through its remote-debugging consent. */
  readonly chrome: ChromeRelay;
  /** Downloads of shared tabs, as the extension reports them. */
  readonly downloads: DownloadLog;
  /**
   * Asks the user, in the extension's own page, which of `domains` may have
   * their cookies saved for `tenant`; resolves with those allowed (none if
   * refused, closed or unanswered in time).
   */
  askConsent(tenant: string, domains: string[], timeoutMs: number): Promise<string[]>;
  /** Tells the person at this Chrome that an agent handed them a shared tab, or that the hand-off ended (badge, notification). */
  noticeHandoff(notice: HandoffNotice): void;
  /** ws://host:port/cdp (without token). */
  readonly cdpUrl: string;
  /** What this process's drivers present at `/cdp?profile=`; never leaves the process. */
  readonly driverKey: string;
  /** Starts answering the person's teaching requests from the extension (demonstrations and notes on shared tabs). */
  serveTeaching(handler: TeachingHandler): void;
  /** Starts serving `/cdp?profile=` and session keys. */
  serveProfiles(handler: ProfileCdpHandler): void;
  /** Every port this server listens on (the profile manager's: its proxies' too), as it changes: out of every shared or lent tab's reach. */
  ownPortsOf(ports: Iterable<number> & { onChange(listener: () => void): void }): void;
  /** CDP clients of the shared tabs (`/cdp` without a profile) connected now. */
  extensionClients(): number;
  /** Every CDP client connected now: the shared tabs' and `/cdp?profile=`'s. */
  cdpClients(): number;
  close(): Promise<void>;
}

const SESSION_REACH = "A task session's key reaches its own session only";

/** How often commands the extension never answered are failed. */
const EXPIRY_SWEEP_MS = 10_000;

export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer> {
  const host = options.host ?? DEFAULT_HOST;
  const log = options.logger ?? createLogger('info', 'relay');
  const driverKey = randomBytes(32).toString('hex');
  const guard: GuardOptions = { ...guardFor(options.token, host, options.extraAllowedOrigins, options.hostNames), driverKey };
  let profileHandler: ProfileCdpHandler | undefined;
  let listeningPort = 0;
  /** Ports of this server beside the two (its egress proxies'), once the profile manager says which (ownPortsOf). */
  let alsoOwn: Iterable<number> = [];
  // Its own pages and the control API's (one below), and every other port it listens on, are never reached by a client's tab.
  const ownPorts = () => [...new Set([...(listeningPort ? [listeningPort - 1, listeningPort] : []), ...alsoOwn])];
  const bridge = new CdpBridge({
    allowedUrlSchemes: options.allowedUrlSchemes,
    urlPolicy: options.urlPolicy,
    pendingTimeoutMs: options.pendingTimeoutMs,
    ownPorts,
  });
  const downloads = new DownloadLog();

  // One flush per turn for both kinds of socket: the extension's batch first, then the clients' corked output.
  const endOfTurn = new EndOfTurnFlush(() => {
    extension.sendBatch();
    clients.uncorkAll();
  });
  const dispatch: Dispatch = (outbound) => {
    for (const message of outbound) {
      if (message.to === 'extension') extension.send(message.data);
      else if (message.to === 'client') clients.deliver(message.clientId, message.data);
      else if (message.to === 'closeClient') clients.closeClient(message.clientId, message.reason);
      else if (message.to === 'download') downloads.record(message.targetId, message.download);
      else if (message.to === 'copyDownload') void files.copyDownload(message.requestId, message.from, message.dir, message.name);
      else if (message.to === 'readFiles') void files.readForUpload(message.requestId, message.paths);
      else if (message.to === 'teach') void answerTeaching(message.request);
      else consents.answered(message.id, message.allowed, message.domains);
    }
  };
  // The person's teaching requests from the extension, answered by the control server's services (serveTeaching).
  let teaching: TeachingHandler | undefined;
  const answerTeaching = async (request: TeachRequest) => {
    const answered = teaching
      ? await teaching(request).then(
          (answer) => ({ ok: true, answer }),
          (error: Error) => ({ ok: false, error: error.message }),
        )
      : { ok: false, error: 'the server is still starting: try again in a moment' };
    dispatch([{ to: 'extension', data: JSON.stringify({ type: 'taught', id: request.id, ...answered }) }]);
  };
  const extension = new ExtensionSocket({
    bridge,
    extensionKey: options.extensionKey,
    graceMs: options.reconnectGraceMs ?? 45_000,
    maxMessageBytes: options.maxExtensionMessageBytes ?? LIMITS.extensionMessageBytes,
    log,
    dispatch,
    endOfTurn,
  });
  const clients = new CdpClients({
    bridge,
    log,
    dispatch,
    endOfTurn,
    maxMessageBytes: options.maxClientMessageBytes ?? LIMITS.clientMessageBytes,
    maxBufferedBytes: options.maxClientBufferedBytes ?? LIMITS.clientBufferedBytes,
  });
  const profileSockets = new ProfileCdpSockets({
    log,
    maxMessageBytes: options.maxClientMessageBytes ?? LIMITS.clientMessageBytes,
    maxBufferedBytes: options.maxClientBufferedBytes ?? LIMITS.clientBufferedBytes,
  });
  const files = new RelayFiles({ bridge, log, dispatch, uploadPolicy: options.uploadPolicy });
  const chrome = new ChromeRelay({
    token: options.token,
    guard,
    host,
    port: () => listeningPort,
    ownPorts,
    log,
    settings: options.chromeSettings ?? (() => ({ answerTimeoutSeconds: 120 })),
    allowedUrlSchemes: options.allowedUrlSchemes,
    urlPolicy: options.urlPolicy,
    uploadPolicy: options.uploadPolicy,
    pendingTimeoutMs: options.pendingTimeoutMs,
    maxMessageBytes: options.maxClientMessageBytes ?? LIMITS.clientMessageBytes,
    maxBufferedBytes: options.maxClientBufferedBytes ?? LIMITS.clientBufferedBytes,
  });
  const consents = new ConsentRequests(bridge, dispatch);
  /** Every CDP client of the relay: the shared tabs', the lent tabs' and the launched browsers'. */
  const cdpClientCount = () => clients.socketCount + profileSockets.socketCount + chrome.socketCount;
  const routes = new RelayHttpRoutes({ bridge, clients, guard, token: options.token, host, port: () => listeningPort });

  const expiryTimer = setInterval(() => dispatch(bridge.expirePending()), EXPIRY_SWEEP_MS);
  expiryTimer.unref();

  const server: Server = createServer(SERVER_OPTIONS, (request, response) => {
    const answer = async () => {
      // One reading of the target for the door and what it serves (request-target.ts): a 400 when it cannot be read whole.
      const forChrome = admitTarget(request, RELAY_QUERY_NAMES).query.one('profile') === CHROME_PROFILE;
      await (forChrome ? chrome.handleHttp(request, response) : routes.handle(request, response));
    };
    answer().catch((error: unknown) => {
      const failure = asHttpFailure(error);
      // The URL may carry the token (?token=): never log it as sent.
      if (failure.unexpected) log.error(`HTTP ${request.method} ${redactUrl(request.url)}: ${failure.error.message}\n${stackFrames(error)}`);
      if (!response.headersSent) sendError(response, failure.error);
    });
  });
  applyServerLimits(server);

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A socket reset while its upgrade is decided (a store lookup, a takeover) must not take the process with it.
    socket.on('error', () => {});
    // Carried here for a session this server is taking over: routed once it holds it.
    const takingOver = profileHandler?.fleet && FleetCarrier.wasCarried(request) ? profileHandler.fleet.carrier.fleet.takeoversUnderWay() : undefined;
    if (takingOver) return void takingOver.then(() => routeUpgrade(request, socket, head));
    routeUpgrade(request, socket, head);
  });

  function routeUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    let target: ReturnType<typeof admitTarget>;
    try {
      target = admitTarget(request, RELAY_QUERY_NAMES);
    } catch (error) {
      return refuseUpgrade(socket, asHttpFailure(error).error);
    }
    const { path, query } = target;
    if (path === '/extension') {
      // The extension proves the extension key inside the connection (not the
      // client token, which it does not hold), and only from its own origin.
      const refused = checkHostAndOrigin(request, guard);
      if (refused && !refused.ok) return refuseUpgrade(socket, refusal(refused));
      if (request.headers.origin !== EXTENSION_ORIGIN)
        return refuseUpgrade(socket, new ForbiddenError(`/extension is for the clawd-browser extension (Origin ${EXTENSION_ORIGIN}) only`));
      return extension.accept(request, socket, head);
    }
    const verdict = checkRequest(request, guard);
    if (!verdict.ok && verdict.status !== 401) return refuseUpgrade(socket, refusal(verdict));
    if (path !== '/cdp' && !path.startsWith('/devtools/browser'))
      return refuseUpgrade(socket, verdict.ok ? new NotFoundError(`No WebSocket endpoint at ${path}`) : refusal(verdict));
    const profile = query.one('profile');
    // A session another server of the fleet holds: its key may be one only the store knows.
    const fleet = profileHandler?.fleet;
    const session = sessionOfProfile(profile);
    // (This server's own drivers reach only what it holds, a session it is taking over among them.)
    if (fleet && session !== undefined && !(verdict.ok && verdict.driver) && !fleet.holds(session) && !FleetCarrier.wasCarried(request))
      return void throughFleet(fleet.carrier, request, socket, head, session, verdict).catch((error: unknown) =>
        refuseUpgrade(socket, asHttpFailure(error).error),
      );
    if (!verdict.ok) return refuseUpgrade(socket, refusal(verdict));
    const group = query.one('group');
    if (group !== undefined && (!GROUP_NAME.test(group) || (profile && profile !== 'extension')))
      return refuseUpgrade(
        socket,
        new BadRequestError(
          `group=${JSON.stringify(group)}: a tab group of the extension profile is named by 1 to 40 letters, digits, '.', '_' or '-' (its Chrome group is titled "clawd:<name>")`,
        ),
      );
    if (profile === CHROME_PROFILE) return acceptChromeClient(request, socket, head, verdict);
    if (profile && profile !== 'extension') return void acceptProfileClient(request, socket, head, profile, verdict);
    if (verdict.session)
      return refuseUpgrade(socket, new ForbiddenError(`${SESSION_REACH}: this one reaches /cdp?profile=${SESSION_PROFILE_PREFIX}${verdict.session}`));
    if (verdict.driver) return refuseUpgrade(socket, new ForbiddenError("The drivers' key reaches the browsers this server launched only"));
    if (cdpClientCount() >= LIMITS.cdpClients)
      return refuseUpgrade(socket, new UnavailableError(`Too many CDP clients (${LIMITS.cdpClients}) are connected to the relay`));
    clients.accept(request, socket, head);
  }

  /** `/cdp?profile=chrome`: the token only, as for the shared tabs; admitted once clawd-browser is attached to the person's Chrome. */
  function acceptChromeClient(request: IncomingMessage, socket: Duplex, head: Buffer, verdict: Extract<GuardResult, { ok: true }>): void {
    if (verdict.session)
      return refuseUpgrade(socket, new ForbiddenError(`${SESSION_REACH}: this one reaches /cdp?profile=${SESSION_PROFILE_PREFIX}${verdict.session}`));
    if (verdict.driver) return refuseUpgrade(socket, new ForbiddenError("The drivers' key reaches the browsers this server launched only"));
    if (cdpClientCount() >= LIMITS.cdpClients)
      return refuseUpgrade(socket, new UnavailableError(`Too many CDP clients (${LIMITS.cdpClients}) are connected to the relay`));
    chrome.accept(request, socket, head).catch((error: unknown) => refuseUpgrade(socket, asHttpFailure(error).error));
  }

  /**
   * A session another server of the fleet holds: the credential checked here
   * first (the token, or that session's own key as the store knows it), then
   * the socket carried to the holder; or answered here once taken over.
   */
  async function throughFleet(carrier: FleetCarrier, request: IncomingMessage, socket: Duplex, head: Buffer, id: string, verdict: GuardResult) {
    await carrier.admit(request, id, verdict);
    const place = await carrier.locate(id);
    if ('carry' in place) return carrier.carryUpgrade(request, socket, head, place.carry);
    const here = checkRequest(request, guard);
    if (!here.ok) return refuseUpgrade(socket, refusal(here));
    return acceptProfileClient(request, socket, head, `${SESSION_PROFILE_PREFIX}${id}`, here);
  }

  async function acceptProfileClient(request: IncomingMessage, socket: Duplex, head: Buffer, profile: string, verdict: Extract<GuardResult, { ok: true }>) {
    if (verdict.session && profile !== `${SESSION_PROFILE_PREFIX}${verdict.session}`)
      return refuseUpgrade(socket, new ForbiddenError(`${SESSION_REACH}: this one reaches /cdp?profile=${SESSION_PROFILE_PREFIX}${verdict.session}`));
    if (!profileHandler) return refuseUpgrade(socket, new UnavailableError('The server is still starting: try again in a moment'));
    if (cdpClientCount() >= LIMITS.cdpClients)
      return refuseUpgrade(socket, new UnavailableError(`Too many CDP clients (${LIMITS.cdpClients}) are connected to the relay`));
    const credential: CdpCredential = verdict.driver ? 'driver' : verdict.session ? 'session key' : 'token';
    let mux: BrowserMux;
    try {
      mux = await profileHandler.mux(profile, credential);
    } catch (error) {
      const failure = asHttpFailure(error);
      if (failure.unexpected) log.error(`/cdp?profile=${profile}: ${failure.error.message}\n${stackFrames(error)}`);
      return refuseUpgrade(socket, failure.error);
    }
    if (socket.destroyed) return;
    profileSockets.accept(request, socket, head, profile, mux, profileHandler.joined?.(profile, credential));
  }

  const port = await listen(server, host, options.port ?? DEFAULT_RELAY_PORT);
  listeningPort = port;
  log.info(`relay listening on http://${urlHost(host)}:${port} (CDP: ws://${urlHost(host)}:${port}/cdp, extension: /extension)`);

  return {
    port,
    host,
    bridge,
    chrome,
    downloads,
    askConsent: (tenant, domains, timeoutMs) => consents.ask(tenant, domains, timeoutMs),
    noticeHandoff: (notice) => {
      const tab = bridge.findTab(notice.targetId);
      if (!tab) return;
      const message = notice.link
        ? { type: 'handoff', tabId: tab.tabId, id: notice.id, reason: notice.reason, link: notice.link }
        : { type: 'handoffEnded', tabId: tab.tabId, id: notice.id };
      dispatch([{ to: 'extension', data: JSON.stringify(message) }]);
    },
    cdpUrl: `ws://${urlHost(host)}:${port}/cdp`,
    driverKey,
    extensionClients: () => clients.socketCount,
    cdpClients: cdpClientCount,
    serveTeaching(handler) {
      teaching = handler;
    },
    serveProfiles(handler) {
      profileHandler = handler;
      guard.sessionKeys = handler.sessionKeys;
      routes.serveProfiles(handler);
    },
    ownPortsOf(ports) {
      alsoOwn = ports;
      const changed = () => {
        dispatch(bridge.ownPortsChanged());
        chrome.ownPortsChanged();
      };
      ports.onChange(changed);
      changed();
    },
    async close() {
      clearInterval(expiryTimer);
      chrome.close();
      extension.close();
      clients.close();
      profileSockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers a refused upgrade with the same status and body as any other error. */
