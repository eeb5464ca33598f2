import { randomBytes } from 'node:crypto';
import { keyDigestOf } from './session-registry.js';

/**
 * Task sessions' own keys (spec §9): made when a session opens, shown to
 * its opener once, and kept only as SHA-256 digests, so a lookup's timing
 * says nothing about any key. An ended session's key is remembered a while,
 * so that its late caller hears that the session ended (and why), not that
 * the key is wrong.
 */

/** Ended sessions whose keys are still told apart from keys that never were. */
const ENDED_KEYS_REMEMBERED = 256;

export type KeyOwner = { session: string } | { ended: string; at: string; why?: string } | undefined;

export class SessionKeys {
  /** Digests of live sessions' keys → their ids. */
  private readonly live = new Map<string, string>();
  /** Digests of ended sessions' keys: which session, and when it ended. */
  private readonly ended = new Map<string, { id: string; at: string; why?: string }>();

  /** A new key for session `id`: the key itself, to be shown once, and its digest, which is all that is kept. */
  issue(id: string): { key: string; digest: string } {
    const key = randomBytes(32).toString('hex');
    const digest = keyDigestOf(key);
    this.live.set(digest, id);
    return { key, digest };
  }

  /** A session taken over from a lost server of the fleet: its key (known here by its digest) opens it here now. */
  adopt(digest: string, id: string): void {
    this.live.set(digest, id);
  }

  /** Another server of the fleet holds the session now: its key is the fleet's to answer for, not this server's. */
  forget(digest: string): void {
    this.live.delete(digest);
  }

  /** The session ended: its key opens nothing now, and says so (with `why`, when it was ended by what happened to it). */
  end(digest: string, id: string, why?: string): void {
    this.live.delete(digest);
    this.ended.set(digest, { id, at: new Date().toISOString(), ...(why ? { why } : {}) });
    if (this.ended.size > ENDED_KEYS_REMEMBERED) this.ended.delete(this.ended.keys().next().value!);
  }

  /** Whose key this is: a live session's, one that ended (and when), or nobody's. */
  owner(secret: string): KeyOwner {
    const digest = keyDigestOf(secret);
    const live = this.live.get(digest);
    if (live) return { session: live };
    const ended = this.ended.get(digest);
    return ended ? { ended: ended.id, at: ended.at, ...(ended.why ? { why: ended.why } : {}) } : undefined;
  }
}
