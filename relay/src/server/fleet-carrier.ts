import { Agent, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BadRequestError, UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { refuseUpgrade, sendError } from './http-errors.js';
import { type GuardResult, presentedSecret, refusal } from './request-guard.js';
import { isPlainPath, type RequestTarget } from './request-target.js';

/**
 * Carries a task session's calls to the server of the fleet that holds its
 * browser (spec §18): the control API's requests and `/cdp?profile=session-…`
 * WebSockets, byte for byte, with the caller's own credential, which that
 * server checks as it checks any. One server holds each session's browser,
 * so its tabs, refs, action log and guardrails stay one object each; the
 * carrying server adds a hop on loopback or the fleet's network, nothing
 * else. A carried request is never carried again: the holder answers it.
 */

/** A server of the fleet, as a carried call reaches it. */
export interface FleetServer {
  id: string;
  controlUrl: string;
  relayUrl: string;
  /** When its lease runs out (or ran out). */
  leaseUntil: string;
}

/** Where the fleet says sessions are answered (sessions/fleet-sessions.ts). */
export interface FleetRouting {
  /** This server's id in the store. */
  readonly server: string;
  /** Where session `id` is answered; throws what a caller is told when it is nowhere. */
  locate(id: string): Promise<{ here: true } | { carry: FleetServer }>;
  /** Whose key a secret is in the fleet, if anyone's. */
  keyOf(secret: string): Promise<{ id: string } | undefined>;
  /** A server that did not answer: where its sessions are is asked of the store again. */
  forgetServer(server: string): void;
  /** Takeovers under way here, for a call carried here to wait for; undefined when none. */
  takeoversUnderWay(): Promise<unknown> | undefined;
}

/** Set on a carried request: the server that carried it. */
export const CARRIED_HEADER = 'x-clawd-carried-by';
/** Set on a request carried for the console's cookie: the holder treats it as the console, not as the token's holder. */
export const CONSOLE_HEADER = 'x-clawd-as';
/** How long a holder may take to accept a carried connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Hop-by-hop headers: each hop's own, never passed on. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/** The task session a profile name is (`session-<id>`), if it is one. */
export function sessionOfProfile(profile: string | null | undefined): string | undefined {
  return profile?.startsWith(SESSION_PROFILE_PREFIX) ? profile.slice(SESSION_PROFILE_PREFIX.length) : undefined;
}

/** Which task session a request is for, from its `?profile=` or its `/sessions/<id>` path, read as its door and routes read them. */
export function sessionOfRequest(target: RequestTarget): string | undefined {
  return sessionOfProfile(target.query.one('profile')) ?? /^\/sessions\/([0-9a-f]{12})(\/[a-z-]+)?$/.exec(target.path)?.[1];
}

export class FleetCarrier {
  /** Connections to the fleet's other servers, kept open between calls. */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    readonly fleet: FleetRouting,
    private readonly log: Logger,
  ) {}

  /** A request another server carried here: answered here, whatever this server holds. */
  static wasCarried(request: IncomingMessage): boolean {
    return request.headers[CARRIED_HEADER] !== undefined;
  }

  locate(id: string): ReturnType<FleetRouting['locate']> {
    return this.fleet.locate(id);
  }

  /**
   * Carries an HTTP request to `to`'s control API; its answer goes back as it
   * came. With `console`, the request came with the console's cookie, which
   * only this server can check: the fleet's token stands for it, marked as
   * the console's, so that the holder shows it no more than this server
   * would (no credential headers, no cookie values).
   */
  carryHttp(request: IncomingMessage, response: ServerResponse, to: FleetServer, console?: { token: string }): Promise<void> {
    const target = targetOf(request, to.controlUrl);
    const headers = this.headersFor(request.headers, target);
    if (console) {
      delete headers.cookie;
      headers.authorization = `Bearer ${console.token}`;
      headers[CONSOLE_HEADER] = 'console';
    }
    return new Promise<void>((resolve) => {
      let answered = false;
      let callerGone = false;
      const upstream = httpRequest(target, { method: request.method, headers, agent: this.agent }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, passOn(answer.headers));
        answer.pipe(response);
        answer.once('end', () => {
          answered = true;
          resolve();
        });
        answer.once('error', () => resolve());
      });
      this.boundConnect(upstream);
      upstream.once('error', (error) => {
        if (callerGone) return resolve();
        if (!response.headersSent) sendError(response, this.unreachable(to, error));
        else response.destroy();
        resolve();
      });
      // A caller that goes away mid-answer (an event stream closed) lets go of the carried request too;
      // one answered whole leaves the connection to the holder open for the next call.
      response.once('close', () => {
        if (answered) return;
        callerGone = true;
        upstream.destroy();
      });
      request.pipe(upstream);
    });
  }

  /**
   * `/json/version?profile=session-…` for a session another server holds:
   * the credential checked here (the token, or that session's key as the
   * store knows it), then the holder's answer, for this server to give as
   * its own (a webSocketDebuggerUrl is pointed here). Undefined when the
   * session is answered here after all (taken over on the way).
   */
  async carryDiscovery(
    request: IncomingMessage,
    id: string,
    verdict: GuardResult,
  ): Promise<{ status: number; body: { webSocketDebuggerUrl?: string } } | undefined> {
    await this.admit(request, id, verdict);
    const place = await this.locate(id);
    if ('here' in place) return undefined;
    // Discovery is one fixed path: only the query comes from the caller, passed on as it came.
    const raw = request.url ?? '';
    const target = carriedTarget(`/json/version${raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''}`, place.carry.relayUrl);
    const headers = { ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}), [CARRIED_HEADER]: this.fleet.server };
    const answer = await fetch(target, { headers, signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) }).catch((error: Error) => {
      throw this.unreachable(place.carry, error);
    });
    return { status: answer.status, body: (await answer.json().catch(() => ({}))) as { webSocketDebuggerUrl?: string } };
  }

  /**
   * The relay's doors for session `id` check the credential here before
   * anything is carried: the token, or that session's own key as the store
   * knows it. Throws the guard's refusal otherwise.
   */
  async admit(request: IncomingMessage, id: string, verdict: GuardResult): Promise<void> {
    if (verdict.ok) return;
    const secret = verdict.status === 401 ? presentedSecret(request) : undefined;
    if (secret === undefined || (await this.fleet.keyOf(secret))?.id !== id) throw refusal(verdict);
  }

  /** Carries a WebSocket upgrade to `to`'s relay, then every frame both ways, as they are. */
  carryUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, to: FleetServer): void {
    const target = targetOf(request, to.relayUrl);
    const upstream = httpRequest(target, {
      method: 'GET',
      headers: { ...this.headersFor(request.headers, target), connection: 'Upgrade', upgrade: request.headers.upgrade ?? 'websocket' },
    });
    this.boundConnect(upstream);
    // A caller gone before the holder answered: the carried upgrade goes too (and its socket, if it came).
    const callerGone = () => upstream.destroy();
    socket.once('close', callerGone);
    upstream.once('upgrade', (answer, far, farHead) => {
      socket.off('close', callerGone);
      if (socket.destroyed) return void far.destroy();
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (let index = 0; index < answer.rawHeaders.length; index += 2) lines.push(`${answer.rawHeaders[index]}: ${answer.rawHeaders[index + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (farHead.length) socket.write(farHead);
      if (head.length) far.write(head);
      far.pipe(socket);
      socket.pipe(far);
      const end = () => {
        far.destroy();
        socket.destroy();
      };
      far.once('close', end);
      socket.once('close', end);
      far.on('error', () => {});
    });
    // The holder refused the upgrade (a wrong key, an ended session): its answer is the caller's.
    upstream.once('response', (answer) => {
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
      for (const [name, value] of Object.entries(passOn(answer.headers))) lines.push(`${name}: ${String(value)}`);
      socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`);
      answer.pipe(socket);
    });
    upstream.once('error', (error) => {
      if (!socket.destroyed) refuseUpgrade(socket, this.unreachable(to, error));
    });
    upstream.end();
  }

  /** A holder that does not take the connection within CONNECT_TIMEOUT_MS is one that does not answer. */
  private boundConnect(upstream: ClientRequest): void {
    upstream.once('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => upstream.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
  }

  private headersFor(headers: IncomingHttpHeaders, target: URL): IncomingHttpHeaders {
    // The console's mark is set by this server only: never passed on from a caller.
    const { [CONSOLE_HEADER]: _console, ...rest } = passOn(headers);
    return { ...rest, host: target.host, [CARRIED_HEADER]: this.fleet.server };
  }

  /** The holder did not answer: a 503 that says who, and when its sessions will be taken over if it was lost. */
  private unreachable(to: FleetServer, error: Error): UnavailableError {
    this.fleet.forgetServer(to.id);
    const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(to.leaseUntil) - Date.now()) / 1000) + 1);
    this.log.warn(`fleet: server ${to.id} at ${to.controlUrl} does not answer (${error.message})`);
    return new UnavailableError(
      `Server ${to.id} at ${to.controlUrl}, which holds this session's browser, does not answer (${error.message}). If it was lost, its Grid sessions are taken over, and its own sessions reported lost, once its lease runs out (${to.leaseUntil}): ask again in ${retryAfterSeconds} s`,
      { server: to.id, retryAfterSeconds },
    );
  }
}

/**
 * Where a carried request goes: the holder's origin with the request's own
 * path and query, and nowhere else. The target must be a plain absolute
 * path: one a URL parser would rewrite (dot segments, `%2e`, backslashes, a
 * leading `//`) could come out as `//host/…`, a protocol-relative URL to any
 * host, so it is refused rather than normalised; and the URL made is checked
 * to have the holder's origin before anything, a credential least of all, is
 * sent to it.
 */
export function carriedTarget(raw: string, holder: string): URL {
  const origin = new URL(holder).origin;
  const path = raw.split(/[?#]/, 1)[0];
  if (!isPlainPath(path)) throw new BadRequestError('The request target must be a plain path (/…), without dot segments');
  let target: URL;
  try {
    target = new URL(raw, origin);
  } catch {
    throw new BadRequestError('The request target must be a plain path (/…)');
  }
  if (target.pathname !== path || target.origin !== origin) throw new BadRequestError('The request target must be a plain path (/…), without dot segments');
  target.hash = '';
  return target;
}

const targetOf = (request: IncomingMessage, holder: string): URL => carriedTarget(request.url ?? '/', holder);

/** The headers a hop passes on: not its own (hop-by-hop ones, and those its Connection header names). */
function passOn(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase()) && !named.has(name.toLowerCase())));
}
