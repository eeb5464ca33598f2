import type { IncomingMessage } from 'node:http';
import type { LinkAudience } from '../service/handoff-service.js';
import { cookiesNamed, loginCookie, loginCookieName, OneTimeLogins } from './one-time-logins.js';

/**
 * How the person asked by a hand-off gets in, without the token and without
 * the dashboard: the hand-off's one-time link carries a code (valid 10
 * minutes, once), which opening it trades for a cookie (HttpOnly,
 * SameSite=Strict) that opens that hand-off only: its page, its tab's live
 * view and input, its answer, all under the hand-off's own path
 * (`/handoff/<id>/`), which is the only path the browser sends it to.
 * Nothing else of the server, not another tab.
 */

const CODE_TTL_MS = 10 * 60_000;
const MAX_HELD = 256;
/** A cookie lives as long as a person could need it: a day at most. */
const COOKIE_TTL_SEC = 24 * 60 * 60;

export interface HandoffScope {
  id: string;
  profile: string;
  targetId: string;
  /**
   * Whom its link was made for: a person's channel the agent does not hold (the person's own Chrome,
   * the webhook's), or the agent that opened the hand-off. A cookie from an agent's link is the
   * agent's: its input is an agent's act, and it says no yes (service/handoff-service.ts).
   */
  to: LinkAudience;
}

/** Where everything a hand-off's cookie opens lives (and the only path its cookie is sent to). */
export const handoffPath = (id: string) => `/handoff/${id}/`;

export class HandoffAccess {
  private readonly logins = new OneTimeLogins<HandoffScope>({ codeTtlMs: CODE_TTL_MS, sessionTtlMs: COOKIE_TTL_SEC * 1000, maxSessions: MAX_HELD });

  /** `port`: this server's, once it listens (its cookies are named after it). */
  constructor(private readonly port: () => number) {}

  /** A one-time code for the hand-off's link. */
  newCode(scope: HandoffScope): string {
    return this.logins.newCode(scope);
  }

  /** Trades a code (once, for its own hand-off) for a cookie value; undefined when it is unknown, used, expired or another's. */
  login(id: string, code: string): string | undefined {
    return this.logins.login(code, (scope) => scope.id === id);
  }

  /** One cookie per hand-off: a person helping with two at once keeps both. */
  cookieFor(id: string, session: string): string {
    return loginCookie(loginCookieName('handoff', this.port(), id), session, { path: handoffPath(id), maxAgeSec: COOKIE_TTL_SEC });
  }

  /** The hand-offs the request's cookies (this server's) open: live ones only. */
  scopesOf(request: Pick<IncomingMessage, 'headers'>): HandoffScope[] {
    const own = new RegExp(`^${loginCookieName('handoff', this.port())}_[0-9a-f]+$`);
    return cookiesNamed(request.headers.cookie, (name) => own.test(name))
      .map(({ value }) => this.logins.opened(value))
      .filter((scope) => scope !== undefined);
  }

  /** The routes a hand-off's cookie opens: its page, its tab's live view and input, its answer. */
  admits(scope: HandoffScope, method: string, path: string): boolean {
    const under = handoffPath(scope.id);
    if (method === 'GET') return path === `${under}page` || path === `${under}screencast`;
    if (method === 'POST') return path === `${under}input` || path === `${under}answer`;
    return false;
  }
}
