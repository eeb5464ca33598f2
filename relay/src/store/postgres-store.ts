import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { MIGRATIONS } from './migrations.js';

/**
 * The store a fleet shares (spec §18): one PostgreSQL database, reached at
 * config `store.postgres.url` (a password there or in PG* environment
 * variables, as libpq reads them; never logged: the store is named by host,
 * port and database only). Its schema is brought up to date when a server
 * starts (migrations.ts), under an advisory lock. A store that does not
 * answer is a 503 that names it.
 */

/** The advisory lock migrations hold: one number for clawd-browser's schema. */
const MIGRATION_LOCK = 7_311_205_118;

export interface StoreSettings {
  url: string;
  poolSize: number;
}

export class PostgresStore {
  readonly pool: pg.Pool;
  /** host:port/database, never the credentials. */
  readonly name: string;
  /** This server, as the rows it writes say: its host and process, and a tag of its own (two servers may share a process). */
  readonly server = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  constructor(
    settings: StoreSettings,
    private readonly log: Logger,
  ) {
    const url = new URL(settings.url);
    this.name = `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || '/'}`;
    this.pool = new pg.Pool({ connectionString: settings.url, max: settings.poolSize, connectionTimeoutMillis: 5000 });
    // A connection the server closed while idle: the pool drops it and opens another when asked.
    this.pool.on('error', (error) => this.log.warn(`store ${this.name}: an idle connection failed: ${error.message}`));
  }

  /** A 503 for a failure to reach the store, naming it; any other error as it is. */
  unavailable(error: unknown): Error {
    const message = (error as Error)?.message ?? String(error);
    return new UnavailableError(`The store (PostgreSQL at ${this.name}) does not answer: ${message.split('\n')[0]}`, { store: this.name });
  }

  /** One query; a store that does not answer is a 503 that names it. */
  async query<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, values);
    } catch (error) {
      throw isConnectionError(error) ? this.unavailable(error) : error;
    }
  }

  /** Brings the schema up to date; servers starting together apply each step once. Says which steps this server applied. */
  async migrate(): Promise<number[]> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw this.unavailable(error);
    });
    const applied: number[] = [];
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS clawd_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)',
      );
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM clawd_migrations')).rows.map((row) => row.version));
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO clawd_migrations (version, name, applied_by) VALUES ($1, $2, $3)', [migration.version, migration.name, this.server]);
        applied.push(migration.version);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw isConnectionError(error) ? this.unavailable(error) : error;
    } finally {
      client.release();
    }
    if (applied.length) this.log.info(`store ${this.name}: schema steps ${applied.join(', ')} applied`);
    return applied;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}

/** Whether an error says the store could not be reached (refused, reset, timed out, shutting down), not that a query was wrong. */
function isConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EPIPE|57P01|57P02|57P03|08\w{3})$/.test(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message ?? '');
}
