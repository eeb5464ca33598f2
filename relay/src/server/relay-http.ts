import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import { urlHost } from '../config/config.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import type { ProfileCdpHandler } from './profile-cdp-sockets.js';
import type { CdpClients } from './cdp-clients.js';
import { checkRequest, type GuardOptions, redactUrl, refusal } from './request-guard.js';
import { admitTarget, RELAY_QUERY_NAMES, type RequestTarget } from './request-target.js';
import { FleetCarrier, sessionOfProfile } from './fleet-carrier.js';

/**
 * The relay's HTTP endpoints, as Chrome's DevTools HTTP API has them
 * (`/json/version`, `/json`, `/json/list`, `/json/new`, `/json/activate`,
 * `/json/close`), plus `/status`. The commands among them run through the
 * bridge as an in-process CDP client (CdpClients.command).
 */

export interface RelayHttpOptions {
  bridge: CdpBridge;
  clients: CdpClients;
  guard: GuardOptions;
  /** What CDP clients and /json/* present. */
  token: string;
  /** Where the relay listens. */
  host: string;
  /** The port it listens on (known once listening, before any request). */
  port: () => number;
  /** The profile whose bridge this serves: `extension` (at `/cdp`), or `chrome` (at `/cdp?profile=chrome`). */
  profile?: 'extension' | 'chrome';
}

export class RelayHttpRoutes {
  private profiles: ProfileCdpHandler | undefined;

  constructor(private readonly options: RelayHttpOptions) {}

  /** `/json/version?profile=` for the browsers this server launched (relay-server.ts serveProfiles). */
  serveProfiles(handler: ProfileCdpHandler): void {
    this.profiles = handler;
  }

  /** Answers one request; throws a ClawdError for the caller to send. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { bridge, clients, token } = this.options;
    // The one reading of the target (request-target.ts): a 400 when it cannot be read whole.
    const target = admitTarget(request, RELAY_QUERY_NAMES);
    const { query } = target;
    const verdict = checkRequest(request, this.options.guard);
    // Built from where we listen, never from the request's Host header.
    const wsBase = `ws://${urlHost(this.options.host)}:${this.options.port()}`;
    // A session another server of the fleet holds: its key may be one only the store knows.
    const fleet = this.profiles?.fleet;
    const session = sessionOfProfile(query.one('profile'));
    // Only discovery is carried; any other path with a session's profile is answered (refused) here.
    const path = target.path.replace(/\/+$/, '') || '/';
    const discovery = path === '/json/version';
    if (fleet && discovery && session !== undefined && !(verdict.ok && verdict.driver) && !fleet.holds(session) && !FleetCarrier.wasCarried(request)) {
      const answer = await fleet.carrier.carryDiscovery(request, session, verdict);
      const socketUrl = answer?.body.webSocketDebuggerUrl;
      // The socket is this server's too: it carries the upgrade as it carried this.
      if (answer)
        return sendJson(
          response,
          answer.status,
          socketUrl ? { ...answer.body, webSocketDebuggerUrl: `${wsBase}${socketUrl.slice(socketUrl.indexOf('/', 'ws://'.length))}` } : answer.body,
        );
    }
    if (!verdict.ok) throw refusal(verdict);
    const served = this.options.profile ?? 'extension';
    const cdpQuery = new URLSearchParams(served === 'extension' ? {} : { profile: served });
    if (verdict.tokenVia === 'query') cdpQuery.set('token', token);
    const profile = query.one('profile');
    // A launched browser's discovery: the one /json route a session's key (for its own session) also reaches.
    if (profile && profile !== served) {
      if (path !== '/json/version')
        throw new NotFoundError(`${path}?profile= is not served: use /json/version?profile=${profile} (or the control API's /tabs?profile=${profile})`);
      if (verdict.session && profile !== `session-${verdict.session}`)
        throw new ForbiddenError(`A task session's key reaches its own session only: this one reaches profile session-${verdict.session}`);
      if (!this.profiles) throw new NotFoundError(`No browser for profile ${profile}`);
      const mux = await this.profiles.mux(profile, verdict.session ? 'session key' : 'token');
      const discoveryQuery = new URLSearchParams({ profile });
      // The credential goes back in the URL only if it came in the URL (a client that sends the header keeps sending it).
      if (verdict.tokenVia === 'query') discoveryQuery.set('token', query.one('token')!);
      return sendJson(response, 200, {
        Browser: mux.version.product,
        'Protocol-Version': mux.version.protocolVersion,
        'User-Agent': mux.version.userAgent,
        'V8-Version': '',
        'WebKit-Version': '',
        webSocketDebuggerUrl: `${wsBase}/cdp?${discoveryQuery}`,
      });
    }
    if (verdict.session || verdict.driver)
      throw new ForbiddenError("A task session's key reaches its own session only (/cdp?profile=session-<id> and its /json/version)");

    if (path === '/json/version') {
      const version = bridge.browserVersion();
      return sendJson(response, 200, {
        Browser: version.product,
        'Protocol-Version': version.protocolVersion,
        'User-Agent': version.userAgent,
        'V8-Version': '',
        'WebKit-Version': '',
        webSocketDebuggerUrl: `${wsBase}/cdp${cdpQuery.size ? `?${cdpQuery}` : ''}`,
      });
    }
    if (path === '/json' || path === '/json/list') {
      return sendJson(
        response,
        200,
        bridge.sharedTabs().map((tab) => targetJson(tab)),
      );
    }
    if (path === '/json/new') {
      if (request.method !== 'PUT' && request.method !== 'GET') throw new BadRequestError(`${request.method} /json/new: use PUT /json/new?url=…`);
      const { targetId } = await clients.command('Target.createTarget', { url: newTabUrl(target) });
      const tab = bridge.findTab(String(targetId));
      return sendJson(response, 200, tab ? targetJson(tab) : { id: targetId });
    }
    const targetRoute = /^\/json\/(activate|close)\/(.+)$/.exec(path);
    if (targetRoute) {
      const [, action, targetId] = targetRoute;
      const id = decodePart(targetId);
      if (!bridge.findTab(id)) throw new NotFoundError(`No such target id: ${id}`);
      await clients.command(action === 'activate' ? 'Target.activateTarget' : 'Target.closeTarget', { targetId: id });
      return sendText(response, 200, action === 'activate' ? 'Target activated' : 'Target is closing');
    }
    if (path === '/status') {
      return sendJson(response, 200, {
        extension: bridge.extensionState,
        sharedTabs: bridge.sharedTabs().length,
        cdpClients: clients.socketCount,
      });
    }
    throw new NotFoundError(`No route ${request.method} ${path}`);
  }
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
function newTabUrl(target: RequestTarget): string {
  const named = target.query.one('url');
  if (named) return named;
  const raw = decodePart(target.search.slice(1));
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
