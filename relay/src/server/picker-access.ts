import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { cookiesNamed, OneTimeLogins } from './one-time-logins.js';

/**
 * Who may lend the person's tabs: the person, in the picker clawd-browser
 * opened in their own Chrome, and nobody else. Not the token (an agent holds
 * it), not the console's cookie (the token can mint one). The server opens
 * the picker's one-time link in that Chrome itself, over its own DevTools
 * connection, so the code is never answered to a caller; opening it trades
 * the code for a cookie (HttpOnly, SameSite=Strict) that opens the picker's
 * page, its tab list and its lend/unlend, nothing else.
 *
 * Each login's picker lives at a path of its own, `/chrome/picker/<path>/`,
 * random, which no caller is ever told (the picker's page sends no
 * referrer): the cookie is sent only there, and the door takes it only with
 * that path. A page the agent drives in the same browser (a lent tab) could
 * name the picker's fixed routes, and the browser would add the cookie;
 * it cannot name a path it never learns. (Beside that, no request of a lent
 * tab reaches clawd's origins at all: bridge/own-origins.ts.)
 */

export const PICKER_COOKIE = 'clawd_picker';
const SESSION_TTL_MS = 24 * 60 * 60_000;
/** Where a login's picker lives: `/chrome/picker/<path>/…`, the rest being one of the picker's own routes. */
const PICKER_PATH = /^\/chrome\/picker\/([A-Za-z0-9_-]{20,64})\/(tabs|lend)?$/;

/** The routes the picker's cookie opens. */
const PICKER_ROUTES = new Set(['GET /chrome/picker', 'GET /chrome/picker/tabs', 'POST /chrome/picker/lend']);

export class PickerAccess {
  // A code lives long enough for a browser asked to open it while busy; it works once.
  private readonly logins = new OneTimeLogins<'picker'>({ codeTtlMs: 60_000, sessionTtlMs: SESSION_TTL_MS, maxSessions: 16 });
  /** Each login's path, by its cookie's value. */
  private readonly paths = new Map<string, string>();

  /** A one-time code for the picker's link. */
  newCode(): string {
    return this.logins.newCode('picker');
  }

  /** Trades a code (once) for a login: the cookie to set, and where its picker is; undefined when the code is unknown, used or expired. */
  login(code: string): { cookie: string; home: string } | undefined {
    const session = this.logins.login(code);
    if (!session) return undefined;
    const path = randomBytes(18).toString('base64url');
    this.paths.set(session, path);
    for (const known of this.paths.keys()) if (this.logins.opened(known) === undefined) this.paths.delete(known);
    const home = `/chrome/picker/${path}/`;
    return { cookie: `${PICKER_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=${home}; Max-Age=${SESSION_TTL_MS / 1000}`, home };
  }

  /**
   * A request to a login's picker (`/chrome/picker/<path>/…`) with that login's live cookie, for one of the
   * picker's routes: the route it means (`/chrome/picker`, `/chrome/picker/tabs`, `/chrome/picker/lend`);
   * undefined for any other request, whatever cookie it carries.
   */
  routeOf(request: Pick<IncomingMessage, 'headers' | 'method'>, path: string): string | undefined {
    const match = PICKER_PATH.exec(path);
    if (!match) return undefined;
    const route = `/chrome/picker${match[2] ? `/${match[2]}` : ''}`;
    if (!PICKER_ROUTES.has(`${request.method} ${route}`)) return undefined;
    const opens = cookiesNamed(request.headers.cookie, (name) => name === PICKER_COOKIE).some(
      ({ value }) => this.logins.opened(value) !== undefined && this.paths.get(value) === match[1],
    );
    return opens ? route : undefined;
  }
}
