import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * How a person's browser gets in without the token: a token holder asks for
 * a one-time code (put in a link), and opening the link trades the code,
 * once and before it expires, for a session value the server sets as an
 * HttpOnly cookie. Each code and session carries what it opens (`T`): the
 * dashboard (dashboard-auth.ts), or one hand-off (handoff-access.ts).
 * Sessions are compared in constant time, and bounded in number.
 */
export class OneTimeLogins<T> {
  private readonly codes = new Map<string, { opens: T; expires: number }>();
  private readonly sessions = new Map<string, { opens: T; expires: number }>();

  constructor(private readonly limits: { codeTtlMs: number; sessionTtlMs: number; maxSessions: number }) {}

  /** A one-time code that opens `opens`. */
  newCode(opens: T): string {
    this.sweep();
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { opens, expires: Date.now() + this.limits.codeTtlMs });
    return code;
  }

  /** Trades a code (once) for a session value; undefined when it is unknown, used, expired, or not one `fits` takes. */
  login(code: string, fits: (opens: T) => boolean = () => true): string | undefined {
    this.sweep();
    const held = this.codes.get(code);
    if (!held || held.expires < Date.now() || !fits(held.opens)) return undefined;
    this.codes.delete(code);
    if (this.sessions.size >= this.limits.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    const session = randomBytes(32).toString('base64url');
    this.sessions.set(session, { opens: held.opens, expires: Date.now() + this.limits.sessionTtlMs });
    return session;
  }

  /** What a live session value opens; undefined for one that is unknown or expired. */
  opened(given: string): T | undefined {
    for (const [session, { opens, expires }] of this.sessions) {
      if (expires >= Date.now() && session.length === given.length && timingSafeEqual(Buffer.from(session), Buffer.from(given))) return opens;
    }
    return undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [code, { expires }] of this.codes) if (expires < now) this.codes.delete(code);
    for (const [session, { expires }] of this.sessions) if (expires < now) this.sessions.delete(session);
  }
}

/** The pages a one-time login opens are never shown inside another page: a frame would lend their cookie's rights to it. */
export const NOT_FRAMED = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' };

/**
 * A login cookie's name on one server. Cookies ignore ports: every server
 * on 127.0.0.1 (this one, another clawd-browser, the user's own app) is sent
 * the same host's cookies, so each server names its own after its port
 * (`clawd_<kind>_<port>`, then what it opens), and reads only those.
 */
export function loginCookieName(kind: 'dashboard' | 'handoff', port: number, id?: string): string {
  return `clawd_${kind}_${port}${id === undefined ? '' : `_${id}`}`;
}

/** A login cookie: HttpOnly, SameSite=Strict, and sent only under `path` (the pages and calls it opens). */
export function loginCookie(name: string, value: string, options: { path: string; maxAgeSec: number }): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=${options.path}; Max-Age=${options.maxAgeSec}`;
}

/** The request's cookies whose names `named` matches, as name and value. */
export function cookiesNamed(header: string | undefined, named: (name: string) => boolean): Array<{ name: string; value: string }> {
  const found: Array<{ name: string; value: string }> = [];
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    if (at > 0 && named(name)) found.push({ name, value: part.slice(at + 1).trim() });
  }
  return found;
}

/**
 * What a one-time link answers with its cookie: a small page of this
 * server's that moves on to `to` by itself. Not a redirect: a person who
 * clicks the link in another site's page (a chat app) starts a cross-site
 * navigation, and a redirect stays part of it, so the browser would not send
 * the new SameSite=Strict cookie to `to`. The page's own move is same-origin.
 */
export function movingOnPage(to: string): { headers: Record<string, string>; html: string } {
  const href = to.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return {
    headers: { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...NOT_FRAMED },
    html: `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>clawd-browser</title><p><a href="${href}">Continue</a></p>`,
  };
}
