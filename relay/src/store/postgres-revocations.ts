import type { Revocations } from '../vault/grants.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * Revoked grants in the fleet's store (spec §18): a revocation answered on
 * one server is refused on every other at once, since each verification
 * asks the store. A store that does not answer refuses the grant (a 503
 * naming it): a revocation that cannot be checked is not assumed away.
 */
export class PostgresRevocations implements Revocations {
  constructor(private readonly store: PostgresStore) {}

  async has(id: string): Promise<boolean> {
    const { rowCount } = await this.store.query('SELECT 1 FROM clawd_revoked_grants WHERE grant_id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async add(id: string): Promise<void> {
    await this.store.query('INSERT INTO clawd_revoked_grants (grant_id, server) VALUES ($1, $2) ON CONFLICT (grant_id) DO NOTHING', [id, this.store.server]);
  }
}
