import type { IncomingMessage } from 'node:http';
import { OneTimeLogins } from './one-time-logins.js';

/**
 * How a person's browser gets into the dashboard without ever holding the
 * token: `clawd-browser dashboard` (a token holder) asks for a one-time link;
 * opening it trades the code for a session cookie (HttpOnly, SameSite=Strict,
 * so no other site's page can send it), and the cookie then stands for the
 * token on this server. Codes live a minute and work once; sessions end
 * after a day or when the server stops (one-time-logins.ts).
 */

const SESSION_TTL_MS = 24 * 60 * 60_000;
export const SESSION_COOKIE = 'clawd_dashboard';

export class DashboardAuth {
  private readonly logins = new OneTimeLogins<'dashboard'>({ codeTtlMs: 60_000, sessionTtlMs: SESSION_TTL_MS, maxSessions: 64 });

  /** A one-time code for a login link. */
  newCode(): string {
    return this.logins.newCode('dashboard');
  }

  /** Trades a code (once) for a session id; undefined when the code is unknown, used or expired. */
  login(code: string): string | undefined {
    return this.logins.login(code);
  }

  cookieFor(session: string): string {
    return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  /** True when the request carries a live session cookie. */
  hasSession(request: Pick<IncomingMessage, 'headers'>): boolean {
    const given = sessionOf(request.headers.cookie);
    return given !== undefined && this.logins.opened(given) !== undefined;
  }
}

function sessionOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
