import type { SecretEntry, SecretRows } from '../vault/secret-store.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * Named secrets in the fleet's store (spec §18): a row per (tenant, name),
 * sealed in this process as the secret store seals them (the tenant, name
 * and domains bound in): the database holds ciphertext and the domains it
 * may be typed on, never a value.
 */

interface Row {
  tenant: string;
  name: string;
  domains: string[];
  kind: 'totp' | null;
  saved_at: Date;
  iv: string;
  tag: string;
  data: string;
}

function entryOf(row: Row): SecretEntry {
  return {
    tenant: row.tenant,
    name: row.name,
    domains: row.domains,
    ...(row.kind ? { kind: row.kind } : {}),
    savedAt: row.saved_at.toISOString(),
    iv: row.iv,
    tag: row.tag,
    data: row.data,
  };
}

export class PostgresSecretRows implements SecretRows {
  constructor(private readonly store: PostgresStore) {}

  async list(tenant?: string): Promise<SecretEntry[]> {
    const { rows } = await this.store.query<Row>('SELECT * FROM clawd_secrets WHERE ($1::text IS NULL OR tenant = $1) ORDER BY tenant, name', [tenant ?? null]);
    return rows.map(entryOf);
  }

  async find(tenant: string, name: string): Promise<SecretEntry | undefined> {
    const { rows } = await this.store.query<Row>('SELECT * FROM clawd_secrets WHERE tenant = $1 AND name = $2', [tenant, name]);
    return rows[0] && entryOf(rows[0]);
  }

  async put(entry: SecretEntry): Promise<void> {
    await this.store.query(
      `INSERT INTO clawd_secrets (tenant, name, domains, kind, saved_at, iv, tag, data, server) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (tenant, name) DO UPDATE SET domains = excluded.domains, kind = excluded.kind, saved_at = excluded.saved_at, iv = excluded.iv, tag = excluded.tag, data = excluded.data, server = excluded.server`,
      [entry.tenant, entry.name, entry.domains, entry.kind ?? null, entry.savedAt, entry.iv, entry.tag, entry.data, this.store.server],
    );
  }

  async remove(tenant: string, name?: string): Promise<SecretEntry[]> {
    const { rows } = await this.store.query<Row>('DELETE FROM clawd_secrets WHERE tenant = $1 AND ($2::text IS NULL OR name = $2) RETURNING *', [
      tenant,
      name ?? null,
    ]);
    return rows.map(entryOf);
  }
}
