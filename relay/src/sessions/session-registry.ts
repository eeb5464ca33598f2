import { createHash } from 'node:crypto';
import type { SessionInfo } from '../api/session-responses.js';
import type { GridPlacement } from '../profiles/grid-session.js';

export type { GridPlacement };

/**
 * The fleet's list of task sessions (spec §18), kept in its store
 * (store/postgres-sessions.ts) so that any server can answer for any
 * session: which server holds its browser, how to reach that server, and
 * what a server needs to take a Grid session over when its holder is lost.
 * Without a store there is no registry: a session is this server's alone.
 */

export interface RegisteredSession {
  id: string;
  /** The server that holds its browser (or last did). */
  owner: string;
  place: 'local' | 'grid';
  /** As listed (never its key). */
  info: SessionInfo;
  grid?: GridPlacement;
  state: 'live' | 'ended' | 'lost';
  endedAt?: string;
  why?: string;
}

/** A server of the fleet as the others reach it. */
export interface FleetServer {
  id: string;
  controlUrl: string;
  relayUrl: string;
  /** Its lease is current: it renewed it within leaseSeconds. */
  alive: boolean;
  /** When its lease runs out (or ran out). */
  leaseUntil: string;
}

export interface SessionRegistry {
  /** This server's id in the store. */
  readonly server: string;
  /** How long a lease lasts, in seconds (config store.leaseSeconds). */
  readonly leaseSeconds: number;
  opened(info: SessionInfo, keyDigest: string, grid?: GridPlacement): Promise<void>;
  /** The session ended (closed, expired, or ended by what happened to it: `why`). */
  ended(id: string, why?: string): Promise<void>;
  extended(id: string, expiresAt: string): Promise<void>;
  byId(id: string): Promise<RegisteredSession | undefined>;
  byKeyDigest(digest: string): Promise<{ session: RegisteredSession; keyDigest: string } | undefined>;
  /** The key digest of a live session (a session taken over keeps its key). */
  keyDigestOf(id: string): Promise<string | undefined>;
  /** Live sessions held by other servers (GET /sessions lists the fleet's). */
  othersLive(): Promise<RegisteredSession[]>;
  serverById(id: string): Promise<FleetServer | undefined>;
  /** Whether this server's lease is current: renewed within leaseSeconds. */
  leaseHeld(): boolean;
  /** Live sessions the store lists as this server's. */
  ownedLive(): Promise<RegisteredSession[]>;
  /** Which of `ids` the store still lists as live and this server's. */
  stillHeld(ids: string[]): Promise<Set<string>>;
  /** Forgets ended sessions after a week, and servers lost a day ago that hold nothing. */
  prune(): Promise<void>;
  /** Live sessions whose holder's lease ran out. */
  orphans(): Promise<RegisteredSession[]>;
  /** Makes this server the holder of `id` if `from` still is (one server wins); the session when it did. */
  claim(id: string, from: string): Promise<RegisteredSession | undefined>;
  /** A local session whose server was lost: its browser went with it. */
  markLost(id: string, from: string, why: string): Promise<boolean>;
}

export function keyDigestOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
