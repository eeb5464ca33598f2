import type { Logger } from '../log.js';
import { PostgresAudit } from './postgres-audit.js';
import { PostgresDemonstrations } from './postgres-demonstrations.js';
import { PostgresNotes } from './postgres-notes.js';
import { PostgresRevocations } from './postgres-revocations.js';
import { PostgresRoutines } from './postgres-routines.js';
import { PostgresVaultRows } from './postgres-vault.js';
import { PostgresSecretRows } from './postgres-secrets.js';
import { PostgresSessions } from './postgres-sessions.js';
import { PostgresStore, type StoreSettings } from './postgres-store.js';

/**
 * A server's share of the fleet's store (spec §18), opened when it starts:
 * the schema brought up to date, then what lives there: the audit, grants'
 * revocations, the vault's and secrets' sealed entries, the session
 * registry with the servers' leases, and what people taught (routines and
 * notes, and what task sessions' demonstrations heard so far). Profiles,
 * recordings and logs stay each server's own.
 */
export interface FleetStore {
  store: PostgresStore;
  audit: PostgresAudit;
  revocations: PostgresRevocations;
  vault: PostgresVaultRows;
  secrets: PostgresSecretRows;
  sessions: PostgresSessions;
  routines: PostgresRoutines;
  notes: PostgresNotes;
  demonstrations: PostgresDemonstrations;
  close(): Promise<void>;
}

/** Opens the store; a store that cannot be reached stops the server from starting, with a message that names it. */
export async function openFleetStore(settings: StoreSettings, log: Logger, leaseSeconds: number): Promise<FleetStore> {
  const store = new PostgresStore(settings, log);
  try {
    await store.migrate();
    const audit = new PostgresAudit(store, log);
    await audit.start();
    log.info(`store: PostgreSQL at ${store.name}`);
    return {
      store,
      audit,
      revocations: new PostgresRevocations(store),
      vault: new PostgresVaultRows(store),
      secrets: new PostgresSecretRows(store),
      sessions: new PostgresSessions(store, leaseSeconds),
      routines: new PostgresRoutines(store),
      notes: new PostgresNotes(store),
      demonstrations: new PostgresDemonstrations(store),
      async close() {
        await audit.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
