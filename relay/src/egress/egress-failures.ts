/**
 * Why a browser's connections failed at its way out, kept a short while. A
 * browser behind a proxy hears of every failure the same way (Chromium says
 * ERR_TUNNEL_CONNECTION_FAILED for whatever its proxy refused to connect),
 * so the reason the proxy knows is kept here, by host, for the driver to
 * tell the caller whose navigation failed: a name that does not resolve, a
 * connection refused, a site that did not answer, the URL policy's rule.
 */

export interface EgressFailure {
  /** The host as the browser asked for it (no port). */
  host: string;
  /** A sentence for a person: what happened at the way out. */
  reason: string;
  /** The URL policy refused it (a 403 rather than a network failure). */
  byPolicy: boolean;
  at: number;
}

/** How many failures are kept: the latest, per proxy. */
const KEPT = 64;

export class EgressFailures {
  private readonly recent: EgressFailure[] = [];

  /** A connection the proxy refused (egress-decision.ts's reason) or could not make (connectFailure's). */
  note(authority: string, reason: string): void {
    const host = hostOf(authority);
    this.recent.push({ host, reason, byPolicy: /^urlPolicy\b|clawd-browser's own port/.test(reason), at: Date.now() });
    if (this.recent.length > KEPT) this.recent.shift();
  }

  /** The latest failure of a connection to `host` at or after `since` (ms since the epoch). */
  latest(host: string, since: number): EgressFailure | undefined {
    const wanted = host
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, '');
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const failure = this.recent[i];
      if (failure.at < since) return undefined;
      if (failure.host === wanted) return failure;
    }
    return undefined;
  }
}

/** `example.com:443`, `[::1]:8080` or a bare host → the host, as a URL's hostname has it without brackets. */
function hostOf(authority: string): string {
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(authority);
  const host = bracketed ? bracketed[1] : authority.replace(/:\d+$/, '');
  return host.toLowerCase().replace(/\.$/, '');
}

/** A connection to a site that failed, said for a person (the system's code kept in brackets). */
export function connectFailure(host: string, port: number, error: NodeJS.ErrnoException): string {
  const where = `${host}:${port}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `${where} refused the connection: nothing listens there (${error.code})`;
    case 'ETIMEDOUT':
      return `${where} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s: it is down, or something between drops the packets (${error.code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached from this machine: no route to it, or no network (${error.code})`;
    case 'ECONNRESET':
      return `${where} closed the connection at once (${error.code})`;
    default:
      return `connecting to ${where} failed: ${error.message}`;
  }
}

/** How long the proxy waits for a site to accept a connection: under the 30 s a navigation may take, so its reason reaches the answer. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** A connect that did not finish in time, as a socket error (ETIMEDOUT). */
export function connectTimeout(host: string, port: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ETIMEDOUT ${host}:${port}`), { code: 'ETIMEDOUT' });
}
