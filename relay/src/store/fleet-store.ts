import type { Logger } from '../log.js';
import { PostgresAudit } from './postgres-audit.js';
import { PostgresRevocations } from './postgres-revocations.js';
import { PostgresVaultRows } from './postgres-vault.js';
import { PostgresSecretRows } from './postgres-secrets.js';
import { PostgresStore, type StoreSettings } from './postgres-store.js';

/**
 * A server's share of the fleet's store (spec §18), opened when it starts:
 * the schema brought up to date, then what lives there. Today that is the
 * audit, grants' revocations, and the vault's and secrets' sealed entries;
 * the rest of a server's state stays under $CLAWD_HOME.
 */
export interface FleetStore {
  store: PostgresStore;
  audit: PostgresAudit;
  revocations: PostgresRevocations;
  vault: PostgresVaultRows;
  secrets: PostgresSecretRows;
  close(): Promise<void>;
}

/** Opens the store; a store that cannot be reached stops the server from starting, with a message that names it. */
export async function openFleetStore(settings: StoreSettings, log: Logger): Promise<FleetStore> {
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
