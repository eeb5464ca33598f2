import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * How a person's browser gets into the dashboard without ever holding the
 * token: `clawd-browser dashboard` (a token holder) asks for a one-time link;
 * opening it trades the code for a session cookie (HttpOnly, SameSite=Strict,
 * so no other site's page can send it), and the cookie then stands for the
 * token on this server. Codes live a minute and work once; sessions end
 * after a day or when the server stops.
 */

const CODE_TTL_MS = 60_000;
const SESSION_TTL_MS = 24 * 60 * 60_000;
const MAX_SESSIONS = 64;
export const SESSION_COOKIE = 'clawd_dashboard';

export class DashboardAuth {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  /** A one-time code for a login link. */
  newCode(): string {
    this.sweep();
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, Date.now() + CODE_TTL_MS);
    return code;
  }

  /** Trades a code (once) for a session id; undefined when the code is unknown, used or expired. */
  login(code: string): string | undefined {
    this.sweep();
    const expires = this.codes.get(code);
    if (expires === undefined || expires < Date.now()) return undefined;
    this.codes.delete(code);
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const session = randomBytes(32).toString('base64url');
    this.sessions.set(session, Date.now() + SESSION_TTL_MS);
    return session;
  }

  cookieFor(session: string): string {
    return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  /** True when the request carries a live session cookie. */
  hasSession(request: Pick<IncomingMessage, 'headers'>): boolean {
    const given = sessionOf(request.headers.cookie);
    if (!given) return false;
    for (const [session, expires] of this.sessions) {
      if (expires >= Date.now() && session.length === given.length && timingSafeEqual(Buffer.from(session), Buffer.from(given))) return true;
    }
    return false;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [code, expires] of this.codes) if (expires < now) this.codes.delete(code);
    for (const [session, expires] of this.sessions) if (expires < now) this.sessions.delete(session);
  }
}

function sessionOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
