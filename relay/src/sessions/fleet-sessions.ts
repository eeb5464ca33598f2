import { GoneError, NotFoundError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AuditTrail } from '../vault/audit-log.js';
import { type FleetServer, keyDigestOf, type RegisteredSession, type SessionRegistry } from './session-registry.js';

/**
 * Any server, any session (spec §18): where a task session is answered for.
 * A session whose browser this server holds is answered here; one another
 * live server holds is carried there (server/fleet-carrier.ts); one whose
 * server was lost is taken over here when it ran on the Grid (the browser
 * lives on, and so do its tabs), and is gone (410) when it ran on that
 * server's own machine. Lost servers are looked for every third of a lease,
 * and at once by a call for one of their sessions.
 */

/** Sessions' keys: 32 random bytes in hex (session-keys.ts). */
const SESSION_KEY_SHAPE = /^[0-9a-f]{64}$/;
const PRUNE_EVERY_MS = 3_600_000;
const CARRY_CACHE_MS = 2_000;
const UNKNOWN_KEY_MS = 10_000;
/** Entries each cache keeps at most (the oldest go first). */
const CACHE_ENTRIES = 10_000;

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

export type SessionPlace = { here: true } | { carry: FleetServer };

/** What TaskSessions lends the fleet. */
export interface LocalSessions {
  has(id: string): boolean;
  /** The sessions the registry lists as this server's, and whether each runs on a Grid. */
  registeredSessions(): Array<{ id: string; grid: boolean }>;
  /** Stops answering for a session the fleet no longer counts as this server's. */
  letGo(id: string, why: string): Promise<void>;
  /** Takes a Grid session over from a lost server: its browser attached to here, its key (by digest) opening it here. */
  adopt(session: RegisteredSession, keyDigest: string): Promise<void>;
}

export class FleetSessions {
  private sweeper: NodeJS.Timeout | undefined;
  /** Takeovers under way, so that a call and the sweep wait for the same one. */
  private readonly takingOver = new Map<string, Promise<void>>();
  private prunedAt = 0;
  /**
   * What the store said a moment ago, so that a carried call costs one hop,
   * not three queries. A key's session never changes; a holder is trusted
   * for CARRY_CACHE_MS (if the session ended meanwhile, its holder says so
   * itself), and forgotten at once when it does not answer.
   */
  private readonly keySessions = new Map<string, string>();
  private readonly holders = new Map<string, { server: FleetServer; until: number }>();
  /** Secrets shaped like keys that the store did not know, and until when that answer stands. */
  private readonly unknownKeys = new Map<string, number>();

  constructor(
    readonly registry: SessionRegistry,
    private readonly local: LocalSessions,
    private readonly deps: { log: Logger; audit: AuditTrail },
  ) {}

  /** This server's id in the store. */
  get server(): string {
    return this.registry.server;
  }

  /** Starts looking for lost servers' sessions. */
  start(): void {
    this.sweeper = setInterval(
      () => void this.sweep().catch((error: Error) => this.deps.log.warn(`fleet: looking for lost servers' sessions failed: ${error.message}`)),
      (this.registry.leaseSeconds * 1000) / 3,
    );
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Where session `id` is answered; throws what a caller is told when it is nowhere (410, or 404 with when it ended). */
  async locate(id: string): Promise<SessionPlace> {
    if (this.local.has(id)) return { here: true };
    const known = this.holders.get(id);
    if (known && known.until > Date.now()) return { carry: known.server };
    this.holders.delete(id);
    const pending = this.takingOver.get(id);
    if (pending) return pending.then(() => this.locate(id));
    const registered = await this.registry.byId(id);
    // Never in the fleet, or ended: what this server says of it is the truth.
    if (!registered) return { here: true };
    if (registered.state !== 'live') throw endedError(registered);
    // Its own, let go while its lease lapsed: driven again here (a local one ran nowhere else).
    if (registered.owner === this.registry.server) {
      if (registered.place === 'grid' && this.registry.leaseHeld()) await this.takeOver(registered);
      return { here: true };
    }
    const owner = await this.registry.serverById(registered.owner);
    if (owner?.alive) {
      remember(this.holders, id, { server: owner, until: Date.now() + CARRY_CACHE_MS });
      return { carry: owner };
    }
    await this.takeOver(registered);
    return this.locate(id);
  }

  /**
   * A secret that is no live session's key here: whether it is one of the
   * fleet's, and which. Only what has a key's shape is looked up, so a
   * caller without a credential cannot make every guess a query.
   */
  async keyOf(secret: string): Promise<{ id: string } | undefined> {
    if (!SESSION_KEY_SHAPE.test(secret)) return undefined;
    const digest = keyDigestOf(secret);
    const known = this.keySessions.get(digest);
    if (known) return { id: known };
    // A key is in the store before its session's opener is given it: one the store did not know a moment ago is nobody's.
    if ((this.unknownKeys.get(digest) ?? 0) > Date.now()) return undefined;
    const found = (await this.registry.byKeyDigest(digest))?.session;
    if (found) remember(this.keySessions, digest, found.id);
    else remember(this.unknownKeys, digest, Date.now() + UNKNOWN_KEY_MS);
    return found && { id: found.id };
  }

  /** A holder that did not answer: asked of the store again next time. */
  forgetServer(server: string): void {
    for (const [id, known] of this.holders) if (known.server.id === server) this.holders.delete(id);
  }

  /** Takeovers under way, for a call carried here to wait for (its session may be one of them); undefined when none. */
  takeoversUnderWay(): Promise<unknown> | undefined {
    return this.takingOver.size ? Promise.allSettled([...this.takingOver.values()]) : undefined;
  }

  /**
   * One session, one server: what this server answers for is what the store
   * says is its own. A session another server took over (this one stalled,
   * or lost the store, past its lease), or marked lost, is let go of; and
   * while this server cannot renew its lease it drives no Grid session,
   * which another server may be taking over.
   */
  private async reconcile(): Promise<void> {
    const mine = this.local.registeredSessions();
    if (!mine.length) return;
    if (!this.registry.leaseHeld()) {
      const why = `this server could not renew its lease in the store for ${this.registry.leaseSeconds} s, so another server may hold it now`;
      for (const session of mine) if (session.grid) await this.local.letGo(session.id, why);
      return;
    }
    const held = await this.registry.stillHeld(mine.map((session) => session.id));
    for (const session of mine) if (!held.has(session.id)) await this.local.letGo(session.id, "the fleet no longer counts it as this server's");
  }

  /** Grid sessions the store says are this server's, let go while its lease lapsed: driven again. */
  private async takeBack(): Promise<void> {
    for (const session of await this.registry.ownedLive())
      if (session.place === 'grid' && !this.local.has(session.id)) await this.takeOver(session).catch(() => {});
  }

  /** Every lost server's sessions: taken over (Grid) or marked lost (local); then what is long over is forgotten. */
  async sweep(): Promise<void> {
    await this.reconcile();
    if (this.registry.leaseHeld()) await this.takeBack();
    for (const orphan of await this.registry.orphans()) await this.takeOver(orphan).catch(() => {});
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await this.registry.prune();
    }
  }

  private takeOver(orphan: RegisteredSession): Promise<void> {
    let pending = this.takingOver.get(orphan.id);
    if (!pending) {
      pending = this.claim(orphan).finally(() => this.takingOver.delete(orphan.id));
      this.takingOver.set(orphan.id, pending);
    }
    return pending;
  }

  private async claim(orphan: RegisteredSession): Promise<void> {
    const { log, audit } = this.deps;
    const detail =
      orphan.owner === this.registry.server
        ? `this server's lease lapsed for over ${this.registry.leaseSeconds} s and is renewed`
        : `its server ${orphan.owner} was lost (no lease renewal for ${this.registry.leaseSeconds} s)`;
    if (orphan.place !== 'grid' || !orphan.grid) {
      if (
        await this.registry.markLost(
          orphan.id,
          orphan.owner,
          `Task session ${orphan.id} was lost with server ${orphan.owner}, where its browser ran; it has been reaped`,
        )
      ) {
        log.warn(`task session ${orphan.id} is lost: ${detail}`);
        audit.record({ event: 'session-lost', tenant: orphan.info.tenant, session: orphan.id, outcome: 'error', detail });
      }
      return;
    }
    const keyDigest = await this.registry.keyDigestOf(orphan.id);
    // Its own (let go while its lease lapsed) is this server's already: nothing to claim.
    const claimed = !keyDigest ? undefined : orphan.owner === this.registry.server ? orphan : await this.registry.claim(orphan.id, orphan.owner);
    // Another server claimed it first: calls are carried there.
    if (!claimed || !keyDigest) return;
    try {
      await this.local.adopt(claimed, keyDigest);
      log.info(`task session ${orphan.id} taken over: ${detail}`);
      audit.record({
        event: 'session-takeover',
        tenant: orphan.info.tenant,
        session: orphan.id,
        outcome: 'ok',
        detail: `${detail}; now held by ${this.registry.server}`,
      });
    } catch (error) {
      const why = `Task session ${orphan.id} was lost on the Grid while being taken over from server ${orphan.owner}: ${(error as Error).message}`;
      await this.registry.ended(orphan.id, why).catch(() => {});
      log.warn(`task session ${orphan.id} could not be taken over: ${(error as Error).message}`);
      audit.record({ event: 'session-lost', tenant: orphan.info.tenant, session: orphan.id, outcome: 'error', detail: why });
    }
  }
}

/** What a call on a session that ended elsewhere in the fleet is told: gone with why (lost, a limit), or when it ended. */
export function endedError(registered: RegisteredSession): Error {
  // Ended by what happened to it (lost with its server or node, a limit): the sentence that says so.
  if (registered.why) return new GoneError(registered.why, { next: 'open-session', session: registered.id });
  return new NotFoundError(`Task session ${registered.id} ended at ${registered.endedAt ?? 'an unknown time'}`, {
    next: 'open-session',
    session: registered.id,
    ...(registered.endedAt ? { endedAt: registered.endedAt } : {}),
  });
}
