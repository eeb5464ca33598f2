import { underSite, type VaultCookie } from './cookie-vault.js';

/**
 * Lent logins that will not last: for each granted domain, the vault's
 * cookies that have expired, or will before `until` (a grant's expiry, a
 * session's end), and domains the vault holds nothing for. Said as warnings
 * on the grant and on the session, so nobody finds out from a login page.
 */
export function loginWarnings(tenant: string, domains: string[], cookies: VaultCookie[], until: number, now = Date.now()): string[] {
  const warnings: string[] = [];
  const when = (seconds: number) => new Date(seconds * 1000).toISOString();
  for (const domain of domains) {
    const own = cookies.filter((cookie) => underSite(cookie.domain ?? '', domain));
    if (!own.length) {
      warnings.push(`${domain}: the vault holds no login of ${tenant} for it: refresh the login first`);
      continue;
    }
    const lasting = own.filter((cookie) => cookie.expires !== undefined).map((cookie) => cookie.expires!);
    const expired = lasting.filter((expires) => expires * 1000 <= now).sort((a, b) => a - b);
    const expiring = lasting.filter((expires) => expires * 1000 > now && expires * 1000 <= until).sort((a, b) => a - b);
    if (expired.length)
      warnings.push(
        `${domain}: ${expired.length} of ${own.length} lent cookies of ${tenant} have expired (the first at ${when(expired[0])}): the login may be gone; refresh it`,
      );
    if (expiring.length)
      warnings.push(
        `${domain}: ${expiring.length} of ${own.length} lent cookies of ${tenant} expire at ${when(expiring[0])}, before ${new Date(until).toISOString()}`,
      );
  }
  return warnings;
}
