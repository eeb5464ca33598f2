import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { VaultFileRows, VaultTamperedError } from './vault-file.js';
import { z } from 'zod';
import type { SecretKind, SecretListing } from '../api/session-responses.js';
import { cookieSite } from './cookie-vault.js';
import { parseTotpSeed } from './one-time-codes.js';

/**
 * Named secrets (spec §15): a password or a code per (tenant, name), bound
 * to the domains it may be typed on. Sealed like the vault's cookies
 * (AES-256-GCM under the vault key), with the tenant, the name and the
 * domains as authenticated data: widening an entry's domains in the file
 * makes it fail to open. The value leaves this module only to be typed.
 * A one-time code seed (`kind: "totp"`, one-time-codes.ts) is kept the same
 * way, its kind bound in too; what is typed from it is its current code.
 * The sealed entries are kept by a `SecretRows`: a file of this home, or a
 * table of the fleet's store (store/postgres-secrets.ts).
 */

const Entry = z.strictObject({
  tenant: z.string(),
  name: z.string(),
  domains: z.array(z.string()).min(1),
  /** A one-time code seed (absent: a value typed as it is). Bound in the authenticated data: a seed cannot be turned into a value that is typed. */
  kind: z.literal('totp').optional(),
  savedAt: z.string(),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
});
type Entry = z.infer<typeof Entry>;
/** One sealed secret, as a row store keeps it. */
export type SecretEntry = Entry;
const SecretsFile = z.strictObject({ version: z.literal(1), entries: z.array(Entry) });

/** Where sealed secrets are kept: one per (tenant, name). */
export interface SecretRows {
  list(tenant?: string): Promise<SecretEntry[]>;
  find(tenant: string, name: string): Promise<SecretEntry | undefined>;
  /** Keeps an entry in place of the one for its (tenant, name). */
  put(entry: SecretEntry): Promise<void>;
  /** Removes a tenant's secret, or all of them; says what went. */
  remove(tenant: string, name?: string): Promise<SecretEntry[]>;
}

/** The secrets in one file of this home. */
export class FileSecretRows extends VaultFileRows<SecretEntry> implements SecretRows {
  constructor(path: string) {
    super(path, SecretsFile, 'secrets file', (entry) => entry.name);
  }
}

export interface OpenedSecret {
  name: string;
  /** The value; a one-time code seed's is its TotpSeed as JSON. */
  value: string;
  domains: string[];
  kind: SecretKind;
}

export class SecretStore {
  constructor(
    private readonly rows: SecretRows,
    private readonly key: Buffer,
  ) {}

  /** Replaces the secret (tenant, name); a one-time code seed is checked first (a 400 saying what is wrong with it). */
  async set(tenant: string, name: string, domains: string[], value: string, kind: SecretKind = 'secret'): Promise<SecretListing> {
    const bound = [...new Set(domains.map(cookieSite))].sort();
    const sealed = kind === 'totp' ? JSON.stringify(parseTotpSeed(value)) : value;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(tenant, name, bound, kind));
    const data = Buffer.concat([cipher.update(sealed, 'utf8'), cipher.final()]);
    const entry: Entry = {
      tenant,
      name,
      domains: bound,
      ...(kind === 'totp' ? { kind } : {}),
      savedAt: new Date().toISOString(),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
    await this.rows.put(entry);
    return listing(entry);
  }

  /** Names, domains and dates; never a value. */
  async list(tenant?: string): Promise<SecretListing[]> {
    return (await this.rows.list(tenant)).map(listing);
  }

  async forget(tenant: string, name?: string): Promise<SecretListing[]> {
    return (await this.rows.remove(tenant, name)).map(listing);
  }

  /** The secret, to be typed; undefined when the tenant has none by that name. */
  async open(tenant: string, name: string): Promise<OpenedSecret | undefined> {
    const entry = await this.rows.find(tenant, name);
    if (!entry) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(entry.iv, 'base64'));
      decipher.setAAD(aad(entry.tenant, entry.name, entry.domains, entry.kind ?? 'secret'));
      decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
      const value = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]).toString('utf8');
      return { name, value, domains: entry.domains, kind: entry.kind ?? 'secret' };
    } catch {
      throw new VaultTamperedError(
        `The secret ${entry.tenant} / ${entry.name} failed authentication: the secrets file was altered, or another key wrote it. Set it again`,
      );
    }
  }
}

function listing(entry: Entry): SecretListing {
  return { tenant: entry.tenant, name: entry.name, domains: entry.domains, savedAt: entry.savedAt, ...(entry.kind ? { kind: entry.kind } : {}) };
}

/** What the ciphertext is bound to; a value's is as it always was, a seed's names its kind too. */
function aad(tenant: string, name: string, domains: string[], kind: SecretKind): Buffer {
  return Buffer.from(`clawd-secret-v1\0${tenant}\0${name}\0${domains.join(',')}${kind === 'totp' ? '\0totp' : ''}`);
}
