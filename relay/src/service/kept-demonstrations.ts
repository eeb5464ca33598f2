import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { DemonstrationLedger, KeptDemonstration } from '../demonstrations/demonstration-ledger.js';

/**
 * What a task session's demonstration heard so far, written to the fleet's
 * ledger as it is heard (demonstrations/demonstration-ledger.ts): one write
 * per tab at a time, the latest state always the last written, and never
 * holding up the person (a store that does not answer leaves the
 * demonstration going on here, written at its next step). Profiles that
 * are not task sessions are this server's own: nothing of them is written.
 */
export class KeptDemonstrations {
  private readonly writing = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(private readonly ledger: DemonstrationLedger | undefined) {}

  /** This server, as the ledger names it; undefined without one. */
  get server(): string | undefined {
    return this.ledger?.server;
  }

  /** The demonstration of `profile`'s tab heard more: `state` is written (now, or after the write under way). */
  heard(profile: string, targetId: string, state: () => Omit<KeptDemonstration, 'server'>): void {
    const ledger = this.ledger;
    if (!ledger || !profile.startsWith(SESSION_PROFILE_PREFIX)) return;
    const key = `${profile}\n${targetId}`;
    if (this.writing.has(key)) return void this.again.add(key);
    const write = async () => {
      do {
        this.again.delete(key);
        await ledger.keep({ ...state(), server: ledger.server }).catch(() => {});
      } while (this.again.has(key));
    };
    this.writing.set(
      key,
      write().finally(() => this.writing.delete(key)),
    );
  }

  /** The tab's demonstration ended here: what was kept of it goes, once any write under way is done. */
  async ended(profile: string, targetId: string): Promise<void> {
    if (!this.ledger || !profile.startsWith(SESSION_PROFILE_PREFIX)) return;
    await this.writing.get(`${profile}\n${targetId}`);
    await this.ledger.forget(profile, targetId).catch(() => {});
  }

  /** The profile's demonstrations kept but heard by no server now (the one that heard them was lost): none without a ledger. */
  async unheard(profile: string, heardHere: (targetId: string) => boolean): Promise<KeptDemonstration[]> {
    if (!this.ledger || !profile.startsWith(SESSION_PROFILE_PREFIX)) return [];
    return (await this.ledger.ofProfile(profile)).filter((kept) => !heardHere(kept.targetId));
  }
}
