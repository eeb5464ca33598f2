import { createHash } from 'node:crypto';
import type { SessionInfo } from '../api/session-responses.js';
import type { FleetServer, GridPlacement, RegisteredSession, SessionRegistry } from '../sessions/session-registry.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * The fleet's session registry and its servers' leases in the store (spec
 * §18). Each server renews its lease every third of `leaseSeconds`; one
 * whose lease ran out is lost, and its live sessions are orphans: another
 * server claims a Grid session (one UPDATE decides who wins) and marks a
 * local one lost. Times are the database's own (now()), so servers' clocks
 * need not agree.
 */

interface SessionRow {
  id: string;
  owner: string;
  place: 'local' | 'grid';
  info: SessionInfo;
  grid: GridPlacement | null;
  state: 'live' | 'ended' | 'lost';
  ended_at: Date | null;
  why: string | null;
  key_digest: string;
}

interface ServerRow {
  id: string;
  control_url: string;
  relay_url: string;
  lease_until: Date;
  alive: boolean;
}

function sessionOf(row: SessionRow): RegisteredSession {
  return {
    id: row.id,
    owner: row.owner,
    place: row.place,
    info: row.info,
    ...(row.grid ? { grid: row.grid } : {}),
    state: row.state,
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    ...(row.why ? { why: row.why } : {}),
  };
}

export class PostgresSessions implements SessionRegistry {
  private renewal: NodeJS.Timeout | undefined;
  /** When the store last said this server's lease was renewed. */
  private renewedAt = 0;
  private address: { controlUrl: string; relayUrl: string; tokenDigest: string } | undefined;
  /** Sessions' ends the store did not hear when they happened: written when it answers again. */
  private readonly unwritten = new Map<string, () => Promise<unknown>>();
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: PostgresStore,
    readonly leaseSeconds: number,
  ) {}

  get server(): string {
    return this.store.server;
  }

  /**
   * Joins the fleet at these addresses and keeps the lease renewed until
   * leave(). A server whose token is not the live servers' does not join:
   * calls carried between them would be refused.
   */
  async join(address: { controlUrl: string; relayUrl: string }, token: string): Promise<void> {
    const tokenDigest = createHash('sha256').update(token).digest('hex');
    const { rows } = await this.store.query<{ id: string }>('SELECT id FROM clawd_servers WHERE lease_until > now() AND token_digest <> $1 LIMIT 1', [
      tokenDigest,
    ]);
    if (rows.length)
      throw new Error(`This server's token is not the fleet's (server ${rows[0].id} has another): give every server of the fleet the same $CLAWD_HOME/token`);
    this.address = { ...address, tokenDigest };
    await this.renew();
    this.renewal = setInterval(() => void this.renew().catch(() => {}), (this.leaseSeconds * 1000) / 3);
    this.renewal.unref();
  }

  /** Renews the lease (writing the row again if it was pruned meanwhile). */
  private async renew(): Promise<void> {
    const { controlUrl, relayUrl, tokenDigest } = this.address!;
    const started = Date.now();
    await this.store.query(
      `INSERT INTO clawd_servers (id, control_url, relay_url, token_digest, lease_until) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
       ON CONFLICT (id) DO UPDATE SET control_url = excluded.control_url, relay_url = excluded.relay_url, token_digest = excluded.token_digest, lease_until = excluded.lease_until`,
      [this.server, controlUrl, relayUrl, tokenDigest, this.leaseSeconds],
    );
    this.renewedAt = started;
  }

  leaseHeld(): boolean {
    return Date.now() - this.renewedAt < this.leaseSeconds * 1000;
  }

  async ownedLive(): Promise<RegisteredSession[]> {
    const { rows } = await this.store.query<SessionRow>("SELECT * FROM clawd_sessions WHERE owner = $1 AND state = 'live'", [this.server]);
    return rows.map(sessionOf);
  }

  async stillHeld(ids: string[]): Promise<Set<string>> {
    const { rows } = await this.store.query<{ id: string }>("SELECT id FROM clawd_sessions WHERE id = ANY($1) AND owner = $2 AND state = 'live'", [
      ids,
      this.server,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** A server stopping leaves the fleet at once (its sessions were closed first). */
  async leave(): Promise<void> {
    clearInterval(this.renewal);
    await this.writeUnwritten();
    clearInterval(this.retry);
    await this.store.query('DELETE FROM clawd_servers WHERE id = $1', [this.server]).catch(() => {});
  }

  async opened(info: SessionInfo, keyDigest: string, grid?: GridPlacement): Promise<void> {
    await this.store.query(
      'INSERT INTO clawd_sessions (id, key_digest, owner, place, tenant, info, grid, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [info.id, keyDigest, this.server, info.place, info.tenant ?? null, info, grid ?? null, info.expiresAt],
    );
  }

  /**
   * A session's end is acknowledged to its caller whether or not the store
   * answers: one it does not hear now is written when it answers again
   * (tried every few seconds), with the time the session really ended.
   */
  async ended(id: string, why?: string): Promise<void> {
    const endedAt = new Date().toISOString();
    // Only while this server holds it: one another server took over is that server's to end.
    const write = () =>
      this.store.query("UPDATE clawd_sessions SET state = 'ended', ended_at = $3, why = $2 WHERE id = $1 AND owner = $4 AND state = 'live'", [
        id,
        why ?? null,
        endedAt,
        this.server,
      ]);
    await write().catch((error: unknown) => {
      this.unwritten.set(id, write);
      this.retry ??= setInterval(() => void this.writeUnwritten(), 2_000);
      this.retry.unref();
      throw error;
    });
  }

  private async writeUnwritten(): Promise<void> {
    for (const [id, write] of this.unwritten) {
      if (
        !(await write().then(
          () => true,
          () => false,
        ))
      )
        return;
      this.unwritten.delete(id);
    }
    clearInterval(this.retry);
    this.retry = undefined;
  }

  async extended(id: string, expiresAt: string): Promise<void> {
    await this.store.query(
      "UPDATE clawd_sessions SET expires_at = $2, info = jsonb_set(info, '{expiresAt}', to_jsonb($2::text)) WHERE id = $1 AND owner = $3",
      [id, expiresAt, this.server],
    );
  }

  async byId(id: string): Promise<RegisteredSession | undefined> {
    const { rows } = await this.store.query<SessionRow>('SELECT * FROM clawd_sessions WHERE id = $1', [id]);
    return rows[0] && sessionOf(rows[0]);
  }

  async byKeyDigest(digest: string): Promise<{ session: RegisteredSession; keyDigest: string } | undefined> {
    const { rows } = await this.store.query<SessionRow>('SELECT * FROM clawd_sessions WHERE key_digest = $1', [digest]);
    return rows[0] && { session: sessionOf(rows[0]), keyDigest: rows[0].key_digest };
  }

  async keyDigestOf(id: string): Promise<string | undefined> {
    const { rows } = await this.store.query<{ key_digest: string }>("SELECT key_digest FROM clawd_sessions WHERE id = $1 AND state = 'live'", [id]);
    return rows[0]?.key_digest;
  }

  async othersLive(): Promise<RegisteredSession[]> {
    const { rows } = await this.store.query<SessionRow>("SELECT * FROM clawd_sessions WHERE state = 'live' AND owner <> $1 ORDER BY (info->>'createdAt')", [
      this.server,
    ]);
    return rows.map(sessionOf);
  }

  async serverById(id: string): Promise<FleetServer | undefined> {
    const { rows } = await this.store.query<ServerRow>('SELECT *, lease_until > now() AS alive FROM clawd_servers WHERE id = $1', [id]);
    const row = rows[0];
    return row && { id: row.id, controlUrl: row.control_url, relayUrl: row.relay_url, alive: row.alive, leaseUntil: row.lease_until.toISOString() };
  }

  async prune(): Promise<void> {
    // An ended session's row tells its key's late holder that it ended, for a week; a lost server's row goes a day after its lease.
    await this.store.query("DELETE FROM clawd_sessions WHERE state <> 'live' AND ended_at < now() - interval '7 days'");
    await this.store.query(
      "DELETE FROM clawd_servers WHERE lease_until < now() - interval '1 day' AND NOT EXISTS (SELECT 1 FROM clawd_sessions WHERE owner = clawd_servers.id AND state = 'live')",
    );
  }

  async orphans(): Promise<RegisteredSession[]> {
    const { rows } = await this.store.query<SessionRow>(
      `SELECT s.* FROM clawd_sessions s LEFT JOIN clawd_servers v ON v.id = s.owner
       WHERE s.state = 'live' AND s.owner <> $1 AND (v.id IS NULL OR v.lease_until < now())`,
      [this.server],
    );
    return rows.map(sessionOf);
  }

  async claim(id: string, from: string): Promise<RegisteredSession | undefined> {
    const { rows } = await this.store.query<SessionRow>("UPDATE clawd_sessions SET owner = $3 WHERE id = $1 AND owner = $2 AND state = 'live' RETURNING *", [
      id,
      from,
      this.server,
    ]);
    return rows[0] && sessionOf(rows[0]);
  }

  async markLost(id: string, from: string, why: string): Promise<boolean> {
    const { rowCount } = await this.store.query(
      "UPDATE clawd_sessions SET state = 'lost', ended_at = now(), why = $3 WHERE id = $1 AND owner = $2 AND state = 'live'",
      [id, from, why],
    );
    return (rowCount ?? 0) > 0;
  }
}
