import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { EXTENSION_ORIGIN } from '../config/defaults.js';

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
}

export type GuardResult =
  | { ok: true; tokenVia: 'header' | 'query' }
  | { ok: false; status: 401 | 403; message: string };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** "127.0.0.1:18792" -> "127.0.0.1"; "[::1]:80" -> "[::1]". */
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

export function isLoopbackHost(hostHeader: string): boolean {
  return LOOPBACK_HOSTS.has(hostName(hostHeader));
}

/**
 * The guard for a server bound to `bindHost`: the extension's origin is
 * welcome, and a non-loopback bind (an explicit choice) adds that host name.
 */
export function guardFor(token: string, bindHost: string, extraOrigins: string[] = []): GuardOptions {
  const loopback = LOOPBACK_HOSTS.has(bindHost.toLowerCase());
  return { token, allowedOrigins: [EXTENSION_ORIGIN, ...extraOrigins], extraHosts: loopback ? [] : [bindHost] };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function checkRequest(request: Pick<IncomingMessage, 'headers' | 'url'>, options: GuardOptions): GuardResult {
  const host = request.headers.host ?? '';
  const extraHosts = new Set((options.extraHosts ?? []).map((h) => h.toLowerCase()));
  if (!isLoopbackHost(host) && !extraHosts.has(hostName(host)))
    return { ok: false, status: 403, message: `Forbidden Host header ${JSON.stringify(host)}: only loopback names are accepted` };

  const origin = request.headers.origin;
  if (origin !== undefined && !options.allowedOrigins.includes(origin))
    return { ok: false, status: 403, message: `Forbidden Origin ${JSON.stringify(origin)}: web pages may not use the relay` };

  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match && sameSecret(match[1], options.token)) return { ok: true, tokenVia: 'header' };
    return { ok: false, status: 401, message: 'Wrong token in the Authorization header (see `clawd-browser token`)' };
  }
  const queryToken = new URL(request.url ?? '/', 'http://relay').searchParams.get('token');
  if (queryToken === null)
    return { ok: false, status: 401, message: 'Missing token: send `Authorization: Bearer <token>` or `?token=` (see `clawd-browser token`)' };
  if (!sameSecret(queryToken, options.token)) return { ok: false, status: 401, message: 'Wrong token in the token query parameter' };
  return { ok: true, tokenVia: 'query' };
}
