import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { VaultFileRows, VaultTamperedError } from './vault-file.js';
import type { Protocol } from 'devtools-protocol';
import { z } from 'zod';
import type { StorageState } from '../api/toolbox-schemas.js';

/**
 * The cookie vault (spec §11): cookies per (tenant, domain), and the origin
 * storage of that domain's sites (localStorage, IndexedDB, in Playwright's
 * storage-state shape) when it was saved with them; each entry
 * encrypted with AES-256-GCM under the vault key, with the tenant and domain
 * as authenticated data (an entry moved to another tenant or domain fails
 * to open, as does any changed byte). Plaintext never touches the disk.
 *
 * Where the sealed entries are kept is the `VaultRows`: one JSON file written
 * crash-safely (vault-file.ts; no native database: it would need a compiler
 * or a prebuilt download at install time, and the vault holds one small
 * entry per site), or, for a fleet, a table of its PostgreSQL store
 * (store/postgres-vault.ts), which holds the entries as sealed here.
 */

export type VaultCookie = Protocol.Network.CookieParam;
/** One origin's storage as Playwright's storage state holds it (localStorage, and IndexedDB when saved). */
export type VaultOrigin = StorageState['origins'][number];
/** A passkey as a browser's virtual authenticator holds it (CDP's WebAuthn credential: its private key included). */
export type VaultPasskey = Protocol.WebAuthn.Credential;
/** What the vault lends for some domains: their cookies, their sites' storage, and their passkeys. */
export interface VaultLogin {
  cookies: VaultCookie[];
  origins: VaultOrigin[];
  /** Absent in entries saved before passkeys were. */
  passkeys?: VaultPasskey[];
}

export { VaultTamperedError };

const Entry = z.strictObject({
  tenant: z.string(),
  domain: z.string(),
  savedAt: z.string(),
  count: z.number().int().nonnegative(),
  /** Origins whose storage the entry holds (none in entries saved before origin storage was). */
  origins: z.number().int().nonnegative().optional(),
  /** Passkeys the entry holds. */
  passkeys: z.number().int().nonnegative().optional(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
type Entry = z.infer<typeof Entry>;
/** One sealed entry, as a row store keeps it: who and what it is, and the ciphertext. */
export type VaultEntry = Entry;
const VaultFile = z.strictObject({ version: z.literal(1), entries: z.array(Entry) });

/** Where sealed entries are kept: one per (tenant, domain). */
export interface VaultRows {
  /** A tenant's entries (every tenant's without one). */
  list(tenant?: string): Promise<VaultEntry[]>;
  /** Keeps an entry in place of the one for its (tenant, domain). */
  put(entry: VaultEntry): Promise<void>;
  /** Removes a tenant's domain, or all its domains; says what went. */
  remove(tenant: string, domain?: string): Promise<VaultEntry[]>;
}

/** The entries in one file of this home. */
export class FileVaultRows extends VaultFileRows<VaultEntry> implements VaultRows {
  constructor(path: string) {
    super(path, VaultFile, 'vault file', (entry) => entry.domain);
  }
}

import type { VaultListing } from '../api/session-responses.js';
export type { VaultListing };

/** A cookie as a browser reports it (Playwright's context.cookies()), as the vault keeps it. */
export function fromBrowserCookie(cookie: {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: string;
}): VaultCookie {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    ...(cookie.expires > 0 ? { expires: cookie.expires } : {}),
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    ...(cookie.sameSite === 'Strict' || cookie.sameSite === 'Lax' || cookie.sameSite === 'None' ? { sameSite: cookie.sameSite } : {}),
  };
}

/** True when an origin's host falls under `site`. */
export function originUnderSite(origin: string, site: string): boolean {
  try {
    return underSite(new URL(origin).hostname, site);
  } catch {
    return false;
  }
}

/** The domain a cookie belongs to, for grouping: its host without a leading dot. */
export function cookieSite(domain: string): string {
  return domain.replace(/^\./, '').toLowerCase();
}

/** True when a cookie domain falls under `site` (the site itself or a subdomain). */
export function underSite(cookieDomain: string, site: string): boolean {
  const host = cookieSite(cookieDomain);
  const wanted = cookieSite(site);
  return host === wanted || host.endsWith(`.${wanted}`);
}

export class CookieVault {
  constructor(
    private readonly rows: VaultRows,
    private readonly key: Buffer,
  ) {
    if (key.length !== 32) throw new Error('the vault key must be 32 bytes');
  }

  /** Replaces what the vault holds for (tenant, domain): its cookies, its sites' storage, and its passkeys. */
  async save(tenant: string, domain: string, cookies: VaultCookie[], origins: VaultOrigin[] = [], passkeys: VaultPasskey[] = []): Promise<VaultListing> {
    const site = cookieSite(domain);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(tenant, site));
    const data = Buffer.concat([
      cipher.update(JSON.stringify({ cookies, origins, ...(passkeys.length ? { passkeys } : {}) } satisfies VaultLogin), 'utf8'),
      cipher.final(),
    ]);
    const entry: Entry = {
      tenant,
      domain: site,
      savedAt: new Date().toISOString(),
      count: cookies.length,
      ...(origins.length ? { origins: origins.length } : {}),
      ...(passkeys.length ? { passkeys: passkeys.length } : {}),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
    await this.rows.put(entry);
    return listing(entry);
  }

  /**
   * Saves, for each domain, the cookies a browser holds under it (the site or
   * a subdomain), the storage of its origins under it, and the passkeys of
   * relying parties under it: a refresh session's, or the user's own
   * through the extension (no passkeys: they stay in the user's own
   * authenticator).
   */
  async saveFromBrowser(
    tenant: string,
    domains: string[],
    browserCookies: Array<Parameters<typeof fromBrowserCookie>[0]>,
    browserOrigins: VaultOrigin[] = [],
    browserPasskeys: VaultPasskey[] = [],
  ): Promise<Array<{ domain: string; cookies: number; origins: number; passkeys?: number }>> {
    const saved: Array<{ domain: string; cookies: number; origins: number; passkeys?: number }> = [];
    for (const domain of domains) {
      const own = browserCookies.filter((cookie) => underSite(cookie.domain, domain));
      const origins = browserOrigins.filter((origin) => originUnderSite(origin.origin, domain));
      const passkeys = browserPasskeys.filter((passkey) => passkey.rpId !== undefined && underSite(passkey.rpId, domain));
      await this.save(tenant, domain, own.map(fromBrowserCookie), origins, passkeys);
      saved.push({ domain, cookies: own.length, origins: origins.length, ...(passkeys.length ? { passkeys: passkeys.length } : {}) });
    }
    return saved;
  }

  /** The cookies and origin storage of `domains` for `tenant` (domains the vault has nothing for are skipped). */
  async load(tenant: string, domains: string[]): Promise<Required<VaultLogin>> {
    const wanted = new Set(domains.map(cookieSite));
    const login: Required<VaultLogin> = { cookies: [], origins: [], passkeys: [] };
    for (const entry of await this.rows.list(tenant)) {
      if (entry.tenant !== tenant || !wanted.has(entry.domain)) continue;
      const opened = this.open(entry);
      login.cookies.push(...opened.cookies);
      login.origins.push(...opened.origins);
      login.passkeys.push(...(opened.passkeys ?? []));
    }
    return login;
  }

  /** What the vault holds: tenants, domains, dates and counts; never a value. */
  async list(tenant?: string): Promise<VaultListing[]> {
    return (await this.rows.list(tenant)).map(listing);
  }

  /** Forgets a tenant's domain, or all its domains; returns what was removed. */
  async forget(tenant: string, domain?: string): Promise<VaultListing[]> {
    return (await this.rows.remove(tenant, domain === undefined ? undefined : cookieSite(domain))).map(listing);
  }

  private open(entry: Entry): VaultLogin {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(entry.iv, 'base64'));
      decipher.setAAD(aad(entry.tenant, entry.domain));
      decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]);
      const held = JSON.parse(plain.toString('utf8')) as VaultCookie[] | VaultLogin;
      // An entry written before origin storage was saved holds cookies alone.
      return Array.isArray(held) ? { cookies: held, origins: [] } : held;
    } catch {
      throw new VaultTamperedError(
        `The vault entry for ${entry.tenant} / ${entry.domain} failed authentication: the vault file was altered, or another key wrote it. Forget the entry and save it again`,
      );
    }
  }
}

function listing(entry: Entry): VaultListing {
  return {
    tenant: entry.tenant,
    domain: entry.domain,
    savedAt: entry.savedAt,
    cookies: entry.count,
    ...(entry.origins ? { origins: entry.origins } : {}),
    ...(entry.passkeys ? { passkeys: entry.passkeys } : {}),
  };
}

function aad(tenant: string, domain: string): Buffer {
  return Buffer.from(`clawd-vault-v1\0${tenant}\0${domain}`);
}
