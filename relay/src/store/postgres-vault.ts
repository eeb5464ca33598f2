import type { VaultEntry, VaultRows } from '../vault/cookie-vault.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * The vault's sealed entries in the fleet's store (spec §18): a row per
 * (tenant, domain), as the vault sealed it in this process (AES-256-GCM
 * under the vault key, the tenant and domain bound in): the database holds
 * ciphertext and counts, never a cookie. Every server with the same vault
 * key opens what any of them saved.
 */

interface Row {
  tenant: string;
  domain: string;
  saved_at: Date;
  cookies: number;
  origins: number | null;
  passkeys: number | null;
  iv: string;
  tag: string;
  data: string;
}

function entryOf(row: Row): VaultEntry {
  return {
    tenant: row.tenant,
    domain: row.domain,
    savedAt: row.saved_at.toISOString(),
    count: row.cookies,
    ...(row.origins ? { origins: row.origins } : {}),
    ...(row.passkeys ? { passkeys: row.passkeys } : {}),
    iv: row.iv,
    tag: row.tag,
    data: row.data,
  };
}

export class PostgresVaultRows implements VaultRows {
  constructor(private readonly store: PostgresStore) {}

  async list(tenant?: string): Promise<VaultEntry[]> {
    const { rows } = await this.store.query<Row>('SELECT * FROM clawd_vault WHERE ($1::text IS NULL OR tenant = $1) ORDER BY tenant, domain', [tenant ?? null]);
    return rows.map(entryOf);
  }

  async put(entry: VaultEntry): Promise<void> {
    await this.store.query(
      `INSERT INTO clawd_vault (tenant, domain, saved_at, cookies, origins, passkeys, iv, tag, data, server) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (tenant, domain) DO UPDATE SET saved_at = excluded.saved_at, cookies = excluded.cookies, origins = excluded.origins, passkeys = excluded.passkeys, iv = excluded.iv, tag = excluded.tag, data = excluded.data, server = excluded.server`,
      [
        entry.tenant,
        entry.domain,
        entry.savedAt,
        entry.count,
        entry.origins ?? null,
        entry.passkeys ?? null,
        entry.iv,
        entry.tag,
        entry.data,
        this.store.server,
      ],
    );
  }

  async remove(tenant: string, domain?: string): Promise<VaultEntry[]> {
    const { rows } = await this.store.query<Row>('DELETE FROM clawd_vault WHERE tenant = $1 AND ($2::text IS NULL OR domain = $2) RETURNING *', [
      tenant,
      domain ?? null,
    ]);
    return rows.map(entryOf);
  }
}
