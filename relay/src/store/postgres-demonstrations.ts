import { ConflictError } from '../errors.js';
import { type DemonstrationLedger, type KeptDemonstration, KeptDemonstrationSchema } from '../demonstrations/demonstration-ledger.js';
import type { PersonStep } from '../replay/person-steps.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * The demonstrations going on in task sessions, in the fleet's store
 * (spec §18): a row per tab, what its server heard so far, written as it
 * hears it; gone at the stop. A row nobody stopped (its session ended with
 * it) goes a week after it was last written.
 */
export class PostgresDemonstrations implements DemonstrationLedger {
  constructor(private readonly store: PostgresStore) {}

  get server(): string {
    return this.store.server;
  }

  async keep(demonstration: KeptDemonstration): Promise<void> {
    await this.store.query(
      `INSERT INTO clawd_demonstrations (profile, target_id, server, demonstration) VALUES ($1, $2, $3, $4)
       ON CONFLICT (profile, target_id) DO UPDATE SET server = excluded.server, demonstration = excluded.demonstration, kept_at = now()`,
      [demonstration.profile, demonstration.targetId, demonstration.server, JSON.stringify(demonstration)],
    );
  }

  async forget(profile: string, targetId: string): Promise<void> {
    await this.store.query("DELETE FROM clawd_demonstrations WHERE (profile = $1 AND target_id = $2) OR kept_at < now() - interval '7 days'", [
      profile,
      targetId,
    ]);
  }

  async ofProfile(profile: string): Promise<KeptDemonstration[]> {
    const { rows } = await this.store.query<{ target_id: string; demonstration: unknown }>(
      'SELECT target_id, demonstration FROM clawd_demonstrations WHERE profile = $1 ORDER BY kept_at',
      [profile],
    );
    return rows.map((row) => {
      const checked = KeptDemonstrationSchema.safeParse(row.demonstration);
      if (!checked.success)
        throw new ConflictError(`The demonstration kept for tab ${row.target_id} in the store (${this.store.name}) does not have its shape: it was altered`);
      return { ...checked.data, steps: checked.data.steps as PersonStep[] };
    });
  }
}
