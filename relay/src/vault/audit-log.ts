import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditEntry, AuditEventKind } from '../api/session-responses.js';

/**
 * The audit trail of credentials (spec §11): every vault refresh, grant,
 * injection and session start and stop. Tenants, sessions, domains, grant
 * ids and outcomes; never a cookie value. The operator's console reads it
 * (newest first, filtered) and hears each new entry as it is written.
 *
 * Two homes for it, one interface: `AuditLog` here (one JSON line per entry
 * in `$CLAWD_HOME/logs/audit.jsonl`, outside any session's dir), and, with a
 * configured store, PostgreSQL (store/postgres-audit.ts), which every
 * server of a fleet writes and reads.
 */

export type AuditEvent = Omit<AuditEntry, 'time'>;

/** What GET /audit may ask for. */
export interface AuditQuery {
  tenant?: string;
  session?: string;
  event?: AuditEventKind;
  /** Entries at or after this time (ISO), and before `until`. */
  since?: string;
  until?: string;
  /** Entries older than this position (an answer's `next`): the next page. */
  before?: number;
  limit: number;
}

export interface AuditPage {
  entries: Array<AuditEntry & { position: number }>;
  next?: number;
}

/** Where the audit is kept: written without waiting (an entry is never what fails a request), read a page at a time. */
export interface AuditTrail {
  record(event: AuditEvent): void;
  /** Calls `listener` with each entry written from now on (a fleet's: every server's); returns how to stop. */
  subscribe(listener: (entry: AuditEntry) => void): () => void;
  query(query: AuditQuery): Promise<AuditPage>;
  /** The entries live grants are known from (grant, grant-revoked, inject), oldest first. */
  grantEntries(): Promise<AuditEntry[]>;
}

/** The entries live grants are known from, wherever the audit is kept. */
export const GRANT_EVENTS: readonly AuditEventKind[] = ['grant', 'grant-revoked', 'inject'];

export class AuditLog implements AuditTrail {
  private readonly listeners = new Set<(entry: AuditEntry) => void>();

  constructor(private readonly path: string) {}

  record(event: AuditEvent): void {
    const entry: AuditEntry = { time: new Date().toISOString(), ...event };
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    for (const listener of this.listeners) listener(entry);
  }

  /** Calls `listener` with each entry written from now on; returns how to stop. */
  subscribe(listener: (entry: AuditEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Entries newest first, those matching every filter given, a page at a
   * time: `next` is the `before` of the page after this one (absent at the
   * oldest). Positions count lines from the start of the file.
   */
  async query(query: AuditQuery): Promise<AuditPage> {
    const entries = this.all();
    const matches: Array<AuditEntry & { position: number }> = [];
    let position = Math.min(query.before ?? entries.length, entries.length) - 1;
    for (; position >= 0 && matches.length < query.limit; position--) {
      const entry = entries[position];
      if (query.tenant !== undefined && entry.tenant !== query.tenant) continue;
      if (query.session !== undefined && entry.session !== query.session) continue;
      if (query.event !== undefined && entry.event !== query.event) continue;
      if (query.since !== undefined && entry.time < query.since) continue;
      if (query.until !== undefined && entry.time >= query.until) continue;
      matches.push({ ...entry, position });
    }
    return { entries: matches, ...(position >= 0 ? { next: position + 1 } : {}) };
  }

  async grantEntries(): Promise<AuditEntry[]> {
    return this.all().filter((entry) => GRANT_EVENTS.includes(entry.event));
  }

  /** Every entry, oldest first (a line that does not parse, say one cut short by a crash, is skipped). */
  all(): AuditEntry[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .flatMap((line) => {
        if (!line) return [];
        try {
          return [JSON.parse(line) as AuditEntry];
        } catch {
          return [];
        }
      });
  }
}
