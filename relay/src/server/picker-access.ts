import type { IncomingMessage } from 'node:http';
import { OneTimeLogins } from './one-time-logins.js';

/**
 * Who may lend the person's tabs: the person, in the picker clawd-browser
 * opened in their own Chrome, and nobody else. Not the token (an agent holds
 * it), not the console's cookie (the token can mint one). The server opens
 * the picker's one-time link in that Chrome itself, over its own DevTools
 * connection, so the code is never answered to a caller; opening it trades
 * the code for a cookie (HttpOnly, SameSite=Strict, its path the picker's)
 * that opens the picker's page, its tab list and its lend/unlend, nothing
 * else. clawd's own pages are never lent, and `clawd_*` cookies never reach a
 * client, so no agent can lift the cookie through a lent tab.
 */

export const PICKER_COOKIE = 'clawd_picker';
const PICKER_PATH = '/chrome/picker';
const SESSION_TTL_MS = 24 * 60 * 60_000;

/** The routes the picker's cookie opens. */
const PICKER_ROUTES = new Set(['GET /chrome/picker', 'GET /chrome/picker/tabs', 'POST /chrome/picker/lend']);

export class PickerAccess {
  // A code lives long enough for a browser asked to open it while busy; it works once.
  private readonly logins = new OneTimeLogins<'picker'>({ codeTtlMs: 60_000, sessionTtlMs: SESSION_TTL_MS, maxSessions: 16 });

  /** A one-time code for the picker's link. */
  newCode(): string {
    return this.logins.newCode('picker');
  }

  /** Trades a code (once) for a cookie value; undefined when it is unknown, used or expired. */
  login(code: string): string | undefined {
    return this.logins.login(code);
  }

  cookieFor(session: string): string {
    return `${PICKER_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=${PICKER_PATH}; Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  /** Whether the request carries a live picker cookie, for one of the picker's routes. */
  admits(request: Pick<IncomingMessage, 'headers' | 'method'>, path: string): boolean {
    if (!PICKER_ROUTES.has(`${request.method} ${path}`)) return false;
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === PICKER_COOKIE && this.logins.opened(value.join('=')) !== undefined) return true;
    }
    return false;
  }
}
