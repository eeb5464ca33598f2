import type { IncomingMessage } from 'node:http';
import { OneTimeLogins } from './one-time-logins.js';

/**
 * How the person asked by a hand-off gets in, without the token and without
 * the dashboard: the hand-off's one-time link carries a code (valid 10
 * minutes, once), which opening it trades for a cookie (HttpOnly,
 * SameSite=Strict) that opens that hand-off only: its page, its tab's live
 * view and input, its answer. Nothing else of the server, not another tab.
 */

const CODE_TTL_MS = 10 * 60_000;
const MAX_HELD = 256;
/** One cookie per hand-off (`clawd_handoff_<id>`): a person helping with two at once keeps both. */
export const HANDOFF_COOKIE = 'clawd_handoff_';

export interface HandoffScope {
  id: string;
  profile: string;
  targetId: string;
}

export class HandoffAccess {
  // A cookie lives as long as a person could need it: a day at most; what it opens is one hand-off's routes.
  private readonly logins = new OneTimeLogins<HandoffScope>({ codeTtlMs: CODE_TTL_MS, sessionTtlMs: 24 * 60 * 60_000, maxSessions: MAX_HELD });

  /** A one-time code for the hand-off's link. */
  newCode(scope: HandoffScope): string {
    return this.logins.newCode(scope);
  }

  /** Trades a code (once, for its own hand-off) for a cookie value; undefined when it is unknown, used, expired or another's. */
  login(id: string, code: string): string | undefined {
    return this.logins.login(code, (scope) => scope.id === id);
  }

  cookieFor(id: string, session: string): string {
    return `${HANDOFF_COOKIE}${id}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=86400`;
  }

  /** The hand-offs the request's cookies open (live ones only). */
  scopesOf(request: Pick<IncomingMessage, 'headers'>): HandoffScope[] {
    const given = [...(request.headers.cookie ?? '').matchAll(/(?:^|;\s*)clawd_handoff_[0-9a-f]+=([A-Za-z0-9_-]+)/g)].map((match) => match[1]);
    return given.map((value) => this.logins.opened(value)).filter((scope) => scope !== undefined);
  }

  /** The routes a hand-off's cookie opens: its page and answer, and its tab's live view and input. */
  admits(scope: HandoffScope, method: string, url: URL): boolean {
    const path = url.pathname;
    if (method === 'GET' && path === `/handoff/${scope.id}/page`) return true;
    if (method === 'POST' && path === `/handoff/${scope.id}/answer`) return true;
    const sameTab = url.searchParams.get('profile') === scope.profile;
    if (method === 'GET' && (path === '/screencast' || path === '/screencast/frame')) return sameTab && url.searchParams.get('targetId') === scope.targetId;
    // The input's tab is in its body: the route checks it against the scope.
    if (method === 'POST' && path === '/screencast/input') return sameTab;
    return false;
  }
}
