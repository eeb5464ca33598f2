import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { cookiesNamed, loginCookie, loginCookieName, OneTimeLogins } from './one-time-logins.js';

/**
 * How a person's browser gets into the console without ever holding the
 * token: `clawd-browser dashboard` (a token holder) asks for a one-time link;
 * opening it trades the code for a login cookie, which then stands for the
 * token on this server. Codes live a minute and work once; logins end after
 * a day or when the server stops (one-time-logins.ts).
 *
 * Cookies ignore ports, so a cookie for `/` would be sent to every other
 * server on 127.0.0.1 the person visits (a dev server, a squatter), which
 * could replay it. So each login gets a console of its own at
 * `/console/<path>/`, a random path nothing else knows: the cookie
 * (HttpOnly, SameSite=Strict, named after this server's port) is sent only
 * there, the console's pages call the API relative to it, and the door
 * takes the cookie only with its own path.
 */

const SESSION_TTL_MS = 24 * 60 * 60_000;
/** Where a login's console lives: `/console/<path>/…`, the rest being the API's own routes. */
const CONSOLE_PATH = /^\/console\/([A-Za-z0-9_-]{20,64})(\/.*)?$/;

export class DashboardAuth {
  private readonly logins = new OneTimeLogins<'dashboard'>({ codeTtlMs: 60_000, sessionTtlMs: SESSION_TTL_MS, maxSessions: 64 });
  /** Each login's console path, by its cookie's value. */
  private readonly paths = new Map<string, string>();

  constructor(
    /** This server's port, which names its cookie. */
    private readonly port: () => number,
  ) {}

  /** A one-time code for a login link. */
  newCode(): string {
    return this.logins.newCode('dashboard');
  }

  /** Trades a code (once) for a login: the cookie to set, and where its console is; undefined when the code is unknown, used or expired. */
  login(code: string): { cookie: string; home: string } | undefined {
    const session = this.logins.login(code);
    if (!session) return undefined;
    const path = randomBytes(18).toString('base64url');
    this.paths.set(session, path);
    // Forgotten with their logins (one-time-logins.ts keeps at most maxSessions).
    for (const known of this.paths.keys()) if (this.logins.opened(known) === undefined) this.paths.delete(known);
    return {
      cookie: loginCookie(loginCookieName('dashboard', this.port()), session, { path: `/console/${path}/`, maxAgeSec: SESSION_TTL_MS / 1000 }),
      home: `/console/${path}/`,
    };
  }

  /**
   * A request to a login's console (`/console/<path>/…`) with that login's
   * cookie: the API route it means (`/…`, its query kept); undefined for any
   * other request, whatever cookie it carries.
   */
  routeOf(request: Pick<IncomingMessage, 'headers' | 'url'>): string | undefined {
    const [pathname, ...query] = (request.url ?? '').split('?');
    const match = CONSOLE_PATH.exec(pathname);
    if (!match) return undefined;
    const name = loginCookieName('dashboard', this.port());
    const opens = cookiesNamed(request.headers.cookie, (each) => each === name).some(
      ({ value }) => this.logins.opened(value) !== undefined && this.paths.get(value) === match[1],
    );
    return opens ? `${match[2] ?? '/'}${query.length ? `?${query.join('?')}` : ''}` : undefined;
  }
}
