import type pg from 'pg';
import type { AuditEntry } from '../api/session-responses.js';
import type { Logger } from '../log.js';
import { type AuditEvent, type AuditPage, type AuditQuery, type AuditTrail, GRANT_EVENTS } from '../vault/audit-log.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * The audit in the fleet's store (spec §18): every server writes its
 * entries to one table, so one query answers for all of them (by tenant,
 * session, kind and time, newest first). An entry is taken at once and
 * written in order behind the request; while the store does not answer it
 * waits in memory and is written when the store is back (nothing recorded
 * is dropped, up to MAX_WAITING). A server hears the others' entries through
 * LISTEN/NOTIFY, and its own at once, so every console sees every entry.
 */

const CHANNEL = 'clawd_audit';
/** Entries written in one statement. */
const BATCH = 200;
/** Entries kept while the store is away; past this the oldest go, and the log says how many. */
const MAX_WAITING = 100_000;
const RETRY_MS = 1000;

export class PostgresAudit implements AuditTrail {
  private readonly listeners = new Set<(entry: AuditEntry) => void>();
  private readonly waiting: AuditEntry[] = [];
  private writing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastFailure = '';
  /** The newest entry of another server this one has passed on. */
  private lastSeen = 0;
  private notifications: pg.PoolClient | undefined;
  /** Catch-ups run one after another, so no entry is passed on twice. */
  private catching: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: PostgresStore,
    private readonly log: Logger,
  ) {}

  /** Starts hearing other servers' entries (from now on). */
  async start(): Promise<void> {
    const { rows } = await this.store.query<{ last: string }>('SELECT coalesce(max(id), 0) AS last FROM clawd_audit');
    this.lastSeen = Number(rows[0].last);
    await this.listen();
  }

  record(event: AuditEvent): void {
    const entry: AuditEntry = { time: new Date().toISOString(), ...event };
    this.waiting.push(entry);
    if (this.waiting.length > MAX_WAITING) {
      this.waiting.splice(0, this.waiting.length - MAX_WAITING);
      this.log.warn(`store ${this.store.name}: more than ${MAX_WAITING} audit entries wait for it; the oldest were dropped`);
    }
    for (const listener of this.listeners) listener(entry);
    void this.write().catch(() => {});
  }

  subscribe(listener: (entry: AuditEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    // This server's entries are written before it answers: what it acknowledged, it shows.
    await this.write();
    const { rows } = await this.store.query<{ id: string; entry: AuditEntry }>(
      `SELECT id, entry FROM clawd_audit
        WHERE ($1::text IS NULL OR tenant = $1) AND ($2::text IS NULL OR session = $2) AND ($3::text IS NULL OR event = $3)
          AND ($4::timestamptz IS NULL OR time >= $4) AND ($5::timestamptz IS NULL OR time < $5) AND ($6::bigint IS NULL OR id < $6)
        ORDER BY id DESC LIMIT $7`,
      [query.tenant ?? null, query.session ?? null, query.event ?? null, query.since ?? null, query.until ?? null, query.before ?? null, query.limit + 1],
    );
    const entries = rows.slice(0, query.limit).map((row) => ({ ...row.entry, position: Number(row.id) }));
    return { entries, ...(rows.length > query.limit ? { next: entries[entries.length - 1].position } : {}) };
  }

  async grantEntries(): Promise<AuditEntry[]> {
    await this.write();
    const { rows } = await this.store.query<{ entry: AuditEntry }>('SELECT entry FROM clawd_audit WHERE event = ANY($1) ORDER BY id', [GRANT_EVENTS]);
    return rows.map((row) => row.entry);
  }

  /** Writes what waits (a last try, a few seconds at most), and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await Promise.race([this.write().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    if (this.waiting.length) this.log.warn(`store ${this.store.name}: ${this.waiting.length} audit entries were not written: the store did not answer`);
    const client = this.notifications;
    this.notifications = undefined;
    client?.release(true);
  }

  /** Writes every waiting entry, in order; one writer at a time. Fails (a 503 naming the store) while the store is away. */
  private write(): Promise<void> {
    this.writing ??= this.writeWaiting().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeWaiting(): Promise<void> {
    try {
      while (this.waiting.length) {
        const batch = this.waiting.slice(0, BATCH);
        const values: unknown[] = [];
        const rows = batch.map((entry) => {
          values.push(entry.time, entry.event, entry.tenant ?? null, entry.session ?? null, entry.grantId ?? null, JSON.stringify(entry), this.store.server);
          const at = values.length - 7;
          return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7})`;
        });
        // Written and announced in one statement: the other servers fetch what is newer than what they saw.
        await this.store.query(
          `WITH written AS (INSERT INTO clawd_audit (time, event, tenant, session, grant_id, entry, server) VALUES ${rows.join(', ')} RETURNING id)
           SELECT pg_notify('${CHANNEL}', max(id)::text) FROM written`,
          values,
        );
        this.waiting.splice(0, batch.length);
      }
      if (this.lastFailure) this.log.info(`store ${this.store.name}: answers again; the audit entries that waited are written`);
      this.lastFailure = '';
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastFailure) this.log.warn(`${message}; ${this.waiting.length} audit entries wait for it`);
      this.lastFailure = message;
      if (!this.closed) {
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => void this.write().catch(() => {}), RETRY_MS);
        this.retryTimer.unref();
      }
      throw error;
    }
  }

  /** LISTENs on its own connection; when that goes, listens again once the store answers, and catches up. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.store.pool.connect();
      client.on('notification', () => void this.catchUp().catch(() => {}));
      client.on('error', () => {
        client.release(true);
        if (this.notifications === client) this.notifications = undefined;
        setTimeout(() => void this.listen(), RETRY_MS).unref();
      });
      await client.query(`LISTEN ${CHANNEL}`);
      this.notifications = client;
      await this.catchUp();
    } catch {
      setTimeout(() => void this.listen(), RETRY_MS).unref();
    }
  }

  /** Passes on the entries other servers wrote since the last one seen. */
  private catchUp(): Promise<void> {
    this.catching = this.catching.catch(() => {}).then(() => this.passOnNew());
    return this.catching;
  }

  private async passOnNew(): Promise<void> {
    const { rows } = await this.store.query<{ id: string; entry: AuditEntry }>('SELECT id, entry FROM clawd_audit WHERE id > $1 AND server <> $2 ORDER BY id', [
      this.lastSeen,
      this.store.server,
    ]);
    for (const row of rows) {
      this.lastSeen = Math.max(this.lastSeen, Number(row.id));
      for (const listener of this.listeners) listener(row.entry);
    }
  }
}
