import type { Protocol } from 'devtools-protocol';

/**
 * Cookie and storage methods on the extension profile see and touch only the
 * shared tabs' sites (spec §9). chrome.debugger on any tab reaches the whole
 * cookie jar of the user's browser, HttpOnly cookies of every site included,
 * so the relay checks what a client names and filters what Chrome returns.
 *
 * In scope: a cookie that a shared tab's host would be sent (RFC 6265
 * domain-match: `example.com` and `.example.com` cookies for a tab at
 * `www.example.com`, not `api.example.com`'s), and URLs and origins whose
 * host is a shared tab's host. Pure functions: the bridge supplies the hosts.
 */

export type CookiePlan =
  /** Refused: the client named something outside the shared sites. */
  | { kind: 'refuse'; message: string }
  /** Forwarded as `method` with `params`; with `filter`, the answer's cookies are filtered. */
  | { kind: 'forward'; method: string; params: object; filter: boolean }
  /** Delete every in-scope cookie (clearBrowserCookies / Storage.clearCookies). */
  | { kind: 'clear' };

/** Hosts of the shared tabs' http(s) pages. */
export function sharedHosts(urls: Iterable<string>): Set<string> {
  const hosts = new Set<string>();
  for (const raw of urls) {
    try {
      const url = new URL(raw);
      if (url.protocol === 'http:' || url.protocol === 'https:') hosts.add(url.hostname.toLowerCase());
    } catch {
      // about:blank and the like have no site
    }
  }
  return hosts;
}

/** Would a cookie for `domain` be sent to one of `hosts`? */
export function cookieDomainInScope(domain: string, hosts: ReadonlySet<string>): boolean {
  const bare = domain.toLowerCase().replace(/^\./, '');
  if (!bare) return false;
  for (const host of hosts) if (host === bare || host.endsWith(`.${bare}`)) return true;
  return false;
}

export function urlInScope(raw: string, hosts: ReadonlySet<string>): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && hosts.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * clawd-browser's own login cookies (the console's, a hand-off link's): never
 * a client's, whatever tab is shared. Cookies ignore ports, so a shared tab of
 * any server on 127.0.0.1 has them in scope by domain.
 */
export function clawdCookie(name: unknown): boolean {
  return typeof name === 'string' && /^clawd_(dashboard|console|handoff|picker)/.test(name);
}

const OWN_COOKIE: CookiePlan = { kind: 'refuse', message: "clawd-browser's own login cookies (clawd_*) are never a client's to read, set or delete" };

export function filterCookies(result: unknown, hosts: ReadonlySet<string>): { cookies: Protocol.Network.Cookie[] } {
  const cookies = (result as { cookies?: unknown } | undefined)?.cookies;
  if (!Array.isArray(cookies)) return { cookies: [] };
  return {
    cookies: cookies.filter(
      (cookie: Protocol.Network.Cookie) => typeof cookie?.domain === 'string' && cookieDomainInScope(cookie.domain, hosts) && !clawdCookie(cookie.name),
    ),
  };
}

function describeHosts(hosts: ReadonlySet<string>): string {
  return hosts.size ? [...hosts].join(', ') : 'none (no http(s) tab is shared)';
}

const outside = (what: string, hosts: ReadonlySet<string>): CookiePlan => ({
  kind: 'refuse',
  message: `${what} is outside the shared tabs' sites; cookies and storage are scoped to them (shared hosts: ${describeHosts(hosts)})`,
});

/** Why one cookie to set (or delete) is out of scope, or undefined when it is in. */
function cookieProblem(cookie: { url?: unknown; domain?: unknown; name?: unknown }, hosts: ReadonlySet<string>): string | undefined {
  const name = typeof cookie.name === 'string' ? cookie.name : '?';
  if (typeof cookie.domain === 'string' && cookie.domain) {
    return cookieDomainInScope(cookie.domain, hosts) ? undefined : `cookie ${JSON.stringify(name)} for domain ${JSON.stringify(cookie.domain)}`;
  }
  if (typeof cookie.url === 'string' && cookie.url) {
    return urlInScope(cookie.url, hosts) ? undefined : `cookie ${JSON.stringify(name)} for ${JSON.stringify(cookie.url)}`;
  }
  return `cookie ${JSON.stringify(name)} names neither a url nor a domain, so it`;
}

function cookieList(params: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(params.cookies) ? (params.cookies as Array<Record<string, unknown>>) : [];
}

/** What the relay does with a cookie or storage method from a client. */
export function planCookieCommand(method: string, params: Record<string, unknown>, hosts: ReadonlySet<string>): CookiePlan {
  switch (method) {
    case 'Network.getAllCookies':
    case 'Storage.getCookies':
      return { kind: 'forward', method: 'Network.getAllCookies', params: {}, filter: true };
    case 'Network.getCookies': {
      const urls = Array.isArray(params.urls) ? (params.urls as unknown[]) : undefined;
      const foreign = urls?.find((url) => typeof url !== 'string' || !urlInScope(url, hosts));
      if (foreign !== undefined) return outside(`URL ${JSON.stringify(foreign)}`, hosts);
      // Without urls Chrome answers for every frame of the page, cross-site iframes too: filter.
      return { kind: 'forward', method, params, filter: true };
    }
    case 'Network.setCookie':
    case 'Network.deleteCookies': {
      if (clawdCookie(params.name)) return OWN_COOKIE;
      const problem = cookieProblem(params, hosts);
      return problem ? outside(problem, hosts) : { kind: 'forward', method, params, filter: false };
    }
    case 'Network.setCookies':
    case 'Storage.setCookies': {
      const cookies = cookieList(params);
      if (cookies.some((cookie) => clawdCookie(cookie.name))) return OWN_COOKIE;
      for (const cookie of cookies) {
        const problem = cookieProblem(cookie, hosts);
        if (problem) return outside(problem, hosts);
      }
      return { kind: 'forward', method: 'Network.setCookies', params: { cookies }, filter: false };
    }
    case 'Network.clearBrowserCookies':
    case 'Storage.clearCookies':
      return { kind: 'clear' };
    case 'Storage.clearDataForOrigin': {
      const origin = typeof params.origin === 'string' ? params.origin : '';
      return urlInScope(origin, hosts) ? { kind: 'forward', method, params, filter: false } : outside(`origin ${JSON.stringify(origin)}`, hosts);
    }
    default:
      return { kind: 'refuse', message: `'${method}' is not a cookie method the relay scopes` };
  }
}
