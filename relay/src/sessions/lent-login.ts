import type { SecretKind, SessionInfo } from '../api/session-responses.js';
import { type TotpSeed, totpCode } from '../vault/one-time-codes.js';
import type { SecretOpener } from '../driver/secrets/secret-typing.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import type { AuditTrail } from '../vault/audit-log.js';
import { type CookieVault, originUnderSite, underSite } from '../vault/cookie-vault.js';
import { loginWarnings } from '../vault/login-expiry.js';
import type { Grants } from '../vault/grants.js';
import type { SecretStore } from '../vault/secret-store.js';
import { watchLoginPages } from './login-watch.js';

/**
 * What an operator session is lent under its grant (spec §11, §15, §22): the
 * tenant's cookies, sites' storage and passkeys of the granted domains, put in before
 * the first page, with warnings for cookies that will not last and a watch
 * for the login form that says one did not; and the named secrets it may
 * type. Audited, never with a value.
 */

/**
 * What an operator session's grant lends it: the domains (those asked, else
 * all the grant names), the grant's id and the secrets it names. A missing
 * tenant or grant, or a grant that does not verify, is refused and audited.
 */
export async function grantedLending(
  request: { tenant?: string; grant?: string },
  domains: string[],
  deps: { grants: () => Grants; audit: AuditTrail },
): Promise<{ domains: string[]; grantId: string; secrets: string[] }> {
  const { tenant, grant: token } = request;
  if (!tenant) throw new BadRequestError('An operator session needs a tenant');
  if (!token) {
    deps.audit.record({ event: 'inject', tenant, domains, outcome: 'refused', detail: 'no grant' });
    throw new ForbiddenError('Grant refused: an operator session needs a grant token (clawd-browser grant)');
  }
  try {
    const grant = await deps.grants().verify(token, { tenant, domains });
    return { domains: domains.length ? domains : grant.allowed_domains, grantId: grant.id, secrets: grant.allowed_secrets ?? [] };
  } catch (error) {
    deps.audit.record({ event: 'inject', tenant, domains, outcome: 'refused', detail: (error as Error).message });
    throw error;
  }
}

/** Lends the login to a session's browser; `info` is filled in (injected counts, warnings). */
export async function lendLogin(driver: ProfileDriver, info: SessionInfo, deps: { vault: () => CookieVault; audit: AuditTrail }): Promise<void> {
  const { tenant, domains, id: session, grantId } = info;
  const login = await deps.vault().load(tenant!, domains);
  const cookies = login.cookies.filter((cookie) => domains.some((domain) => underSite(cookie.domain ?? '', domain)));
  const origins = login.origins.filter((origin) => domains.some((domain) => originUnderSite(origin.origin, domain)));
  const passkeys = login.passkeys.filter((passkey) => domains.some((domain) => passkey.rpId !== undefined && underSite(passkey.rpId, domain)));
  await driver.addCookies(cookies);
  // Passkeys go into the virtual authenticator of every tab before its first page (their keys into Chrome, nowhere else).
  if (passkeys.length) await driver.passkeys.hold(passkeys, await driver.allTabs());
  // The sites' storage goes in before the first page, as the cookies do (Playwright's restore, in a page of its own).
  if (origins.length) await driver.toolbox.addOriginStorage(origins);
  info.injectedCookies = cookies.length;
  if (origins.length) info.injectedOrigins = origins.length;
  if (passkeys.length) info.injectedPasskeys = passkeys.length;
  const warnings = loginWarnings(tenant!, domains, login.cookies, Date.parse(info.expiresAt));
  if (warnings.length) info.warnings = warnings;
  // A login page of a granted domain, later, says the lent login did not hold (login-watch.ts).
  watchLoginPages(driver, { tenant: tenant!, domains }, (page) =>
    deps.audit.record({ event: 'login-page', tenant, session, domains: [page.domain], grantId, outcome: 'ok', detail: page.url }),
  );
  const lentPasskeys = passkeys.length ? `, ${passkeys.length} passkeys of ${[...new Set(passkeys.map((passkey) => passkey.rpId))].join(', ')}` : '';
  const detail = `${cookies.length} cookies${origins.length ? `, storage of ${origins.map((origin) => origin.origin).join(', ')}` : ''}${lentPasskeys}${warnings.length ? `; ${warnings.join('; ')}` : ''}`;
  deps.audit.record({ event: 'inject', tenant, session, domains, grantId, outcome: 'ok', detail });
}

/**
 * How `{{secret:NAME}}` and `{{totp:NAME}}` open in a session: the secrets
 * its grant names, of its tenant, each as its kind is typed (a value as it
 * is; a one-time code seed as its code now, never itself); undefined for a
 * session lent none.
 */
export function secretOpener(info: SessionInfo, store: () => SecretStore, now: () => number = Date.now): SecretOpener | undefined {
  const { tenant, secrets } = info;
  if (!tenant) return undefined;
  return async (name, kind) => {
    if (!secrets?.includes(name))
      throw new ForbiddenError(`Secret ${name} is not lent to this session: its grant names ${secrets?.length ? secrets.join(', ') : 'no secrets'}`);
    const secret = await store().open(tenant, name);
    if (!secret) throw new NotFoundError(`Tenant ${tenant} has no secret ${name} (clawd-browser secret-set)`);
    if (secret.kind !== kind)
      throw new ForbiddenError(
        secret.kind === 'totp'
          ? `Secret ${name} is a one-time code seed: {{totp:${name}}} types its current code, and the seed itself is never typed: nothing was typed`
          : `Secret ${name} is not a one-time code seed ({{secret:${name}}} types it): nothing was typed`,
      );
    const value = kind === 'totp' ? totpCode(JSON.parse(secret.value) as TotpSeed, now()) : secret.value;
    return { name, value, domains: secret.domains };
  };
}

/** Audits secrets typed in a session: by name and host, never a value (nor a code). */
export function auditSecretUse(info: SessionInfo, typed: Array<{ name: string; host: string; kind: SecretKind }>, audit: AuditTrail): void {
  for (const { name, host, kind } of typed)
    audit.record({
      event: 'secret-use',
      tenant: info.tenant,
      session: info.id,
      domains: [host],
      grantId: info.grantId,
      outcome: 'ok',
      detail: kind === 'totp' ? `${name} (one-time code)` : name,
    });
}
