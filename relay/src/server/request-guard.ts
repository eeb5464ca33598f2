import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type ClawdError, ForbiddenError, UnauthorizedError, GoneError } from '../errors.js';
import { EXTENSION_ORIGIN } from '../../../protocol/constants.js';
import { requestTarget } from './request-target.js';

/**
 * Spec §9: the relay is as powerful as the user's logged-in browser, so every
 * HTTP request and WebSocket upgrade passes three checks before anything else.
 * - Host must name this machine (defeats DNS rebinding: a page on evil.com
 *   that rebinds to 127.0.0.1 still sends Host: evil.com).
 * - Origin, when a browser sends one, must be the extension's own (a web page
 *   cannot drive the relay from the user's browser).
 * - The token, as `Authorization: Bearer …` or `?token=` (browsers cannot
 *   set headers on a WebSocket).
 */

export interface GuardOptions {
  token: string;
  /** Origins allowed besides "no Origin header" (Node clients send none). */
  allowedOrigins: string[];
  /** Extra Host names allowed when the user binds beyond loopback on purpose. */
  extraHosts?: string[];
  /**
   * Task sessions' own keys (the control API only): whose a secret is, a live
   * session's or one that ended. A key opens its session and nothing else.
   */
  sessionKeys?: (secret: string) => { session: string } | { ended: string; at: string; why?: string } | undefined;
  /** The relay only: the key this process's own drivers present at `/cdp?profile=` (never written anywhere). */
  driverKey?: string;
}

export type GuardResult =
  | {
      ok: true;
      tokenVia: 'header' | 'query';
      /** Set for a task session's key: the one session it reaches. */
      session?: string;
      /** Set for this process's own drivers (GuardOptions.driverKey). */
      driver?: true;
    }
  | { ok: false; status: 401 | 403 | 410; message: string };

/** A refused verdict as the error family's own error. */
export function refusal(verdict: Extract<GuardResult, { ok: false }>): ClawdError {
  if (verdict.status === 410) return new GoneError(verdict.message, { next: 'open-session' });
  return verdict.status === 401 ? new UnauthorizedError(verdict.message) : new ForbiddenError(verdict.message);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A Host header is `name` or `name:port`, nothing else: "localhost:x@evil.com",
 * "[::1]evil.com" and "localhost." are not loopback names, whatever a lenient
 * URL parser would make of them. Returns the lower-cased name, or undefined
 * when the header is not of that form.
 */
export function hostName(hostHeader: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(hostHeader.trim());
  return match ? match[1].toLowerCase() : undefined;
}

export function isLoopbackHost(hostHeader: string): boolean {
  const name = hostName(hostHeader);
  return name !== undefined && LOOPBACK_HOSTS.has(name);
}

/**
 * The guard for a server bound to `bindHost`: the extension's origin is
 * welcome, and a non-loopback bind (an explicit choice) adds that host name
 * and `hostNames` (config hostNames: a load balancer's, a fleet's).
 */
export function guardFor(token: string, bindHost: string, extraOrigins: string[] = [], hostNames: string[] = []): GuardOptions {
  const loopback = LOOPBACK_HOSTS.has(bindHost.toLowerCase()) || bindHost === '::1';
  const name = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return { token, allowedOrigins: [EXTENSION_ORIGIN, ...extraOrigins], extraHosts: loopback ? [] : [name, ...hostNames].map((host) => host.toLowerCase()) };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Host and Origin checks alone (the extension link proves itself by the extension key instead of the token). */
export function checkHostAndOrigin(request: Pick<IncomingMessage, 'headers'>, options: GuardOptions): GuardResult | undefined {
  const host = request.headers.host ?? '';
  const name = hostName(host);
  const extraHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  if (name === undefined || (!LOOPBACK_HOSTS.has(name) && !extraHosts.has(name)))
    return { ok: false, status: 403, message: `Forbidden Host header ${JSON.stringify(host)}: only loopback names are accepted` };

  const origin = request.headers.origin;
  if (origin !== undefined && !options.allowedOrigins.includes(origin))
    return { ok: false, status: 403, message: `Forbidden Origin ${JSON.stringify(origin)}: web pages may not use the relay` };
  return undefined;
}

export function checkRequest(request: Pick<IncomingMessage, 'headers' | 'url'>, options: GuardOptions): GuardResult {
  const refused = checkHostAndOrigin(request, options);
  if (refused) return refused;

  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match && sameSecret(match[1], options.token)) return { ok: true, tokenVia: 'header' };
    if (match && options.driverKey && sameSecret(match[1], options.driverKey)) return { ok: true, tokenVia: 'header', driver: true };
    return (
      (match && sessionVerdict(match[1], 'header', options)) || {
        ok: false,
        status: 401,
        message: 'Wrong token in the Authorization header (see `clawd-browser token`)',
      }
    );
  }
  const given = queryToken(request);
  if (given === undefined)
    return { ok: false, status: 401, message: 'Missing token: send `Authorization: Bearer <token>` or `?token=` (see `clawd-browser token`)' };
  if (!sameSecret(given, options.token))
    return sessionVerdict(given, 'query', options) || { ok: false, status: 401, message: 'Wrong token in the token query parameter' };
  return { ok: true, tokenVia: 'query' };
}

/**
 * A cookie of clawd's (the console's, a hand-off's) is honoured only on
 * requests its own pages make: same-origin fetches and subresources, or a
 * navigation the person made (typed, bookmarked: `Sec-Fetch-Site: none`).
 * Cookies ignore ports, so another server on this host (same-site to a
 * browser: SameSite does not help) could otherwise frame the console, or
 * load its pictures and streams into a page of its own.
 */
export function checkCookieFetch(request: Pick<IncomingMessage, 'headers' | 'method'>): GuardResult | undefined {
  const site = request.headers['sec-fetch-site'];
  if (site === undefined || site === 'same-origin') return undefined;
  if (site === 'none' && request.method === 'GET' && request.headers['sec-fetch-mode'] === 'navigate') return undefined;
  return {
    ok: false,
    status: 403,
    message: `clawd-browser's console and hand-off pages answer their own pages only (this request came from ${site === 'none' ? 'the browser itself, not as a navigation' : `a ${site} page`})`,
  };
}

/** The credential a request presents (its bearer token, else `?token=`), whoever's it is. */
export function presentedSecret(request: Pick<IncomingMessage, 'headers' | 'url'>): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return bearer ?? queryToken(request);
}

/** `?token=`, as every door reads the query (request-target.ts; the door has read it once already, so this cannot throw). */
function queryToken(request: Pick<IncomingMessage, 'url'>): string | undefined {
  try {
    return requestTarget(request).query.one('token');
  } catch {
    return undefined;
  }
}

/** A task session's key: admitted for that session, or told it ended; undefined when it is nobody's (the caller says "wrong token"). */
function sessionVerdict(secret: string, via: 'header' | 'query', options: GuardOptions): GuardResult | undefined {
  const owner = options.sessionKeys?.(secret);
  if (!owner) return undefined;
  if ('session' in owner) return { ok: true, tokenVia: via, session: owner.session };
  // Ended by what happened to it (a limit, a lost node): gone, and why; ended by a caller: a key that opens nothing now.
  if (owner.why) return { ok: false, status: 410, message: `${owner.why}. This key opens nothing now` };
  return { ok: false, status: 401, message: `This key belonged to task session ${owner.ended}, which ended at ${owner.at}: it opens nothing now` };
}

/** A request URL fit for a log line: the token query parameter (and any other secret-looking one) replaced. */
export function redactUrl(raw: string | undefined): string {
  return (raw ?? '').replace(/([?&](?:token|key|access_token)=)[^&#]*/gi, '$1[redacted]');
}
