import { describe, expect, it } from 'vitest';
import type { DemonstrationLedger, KeptDemonstration } from '../../relay/src/demonstrations/demonstration-ledger.js';
import { KeptDemonstrations } from '../../relay/src/service/kept-demonstrations.js';

/**
 * What a session's demonstration heard, written to the fleet's ledger:
 * one write at a time per tab, the latest state last; nothing of a
 * profile that is not a task session's; gone at the end, after the write
 * under way; a ledger that fails holds nothing up.
 */

/** A ledger in memory whose writes finish when the test says. */
function ledger() {
  const rows = new Map<string, KeptDemonstration>();
  const waiting: Array<() => void> = [];
  let writes = 0;
  let failing = false;
  const kept: DemonstrationLedger = {
    server: 'server-a',
    async keep(demonstration) {
      writes++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (failing) throw new Error('the store does not answer');
      rows.set(`${demonstration.profile}\n${demonstration.targetId}`, structuredClone(demonstration));
    },
    async forget(profile, targetId) {
      rows.delete(`${profile}\n${targetId}`);
    },
    async ofProfile(profile) {
      return [...rows.values()].filter((row) => row.profile === profile);
    },
  };
  return { kept, rows, release: () => waiting.splice(0).forEach((resolve) => resolve()), writes: () => writes, fail: () => (failing = true) };
}

const state = (steps: number) => () => ({
  profile: 'session-0123456789ab',
  targetId: 'T1',
  since: '2026-01-01T00:00:00.000Z',
  url: 'https://shop.example/',
  title: 'Shop',
  steps: Array.from({ length: steps }, (_, index) => ({ kind: 'goto' as const, url: `https://shop.example/${index}` })),
  dropped: 0,
  withheld: 0,
  startedBy: { by: 'operator' as const },
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a demonstration kept for the fleet', () => {
  it('is written one write at a time, the latest state last, and named by its server', async () => {
    const store = ledger();
    const kept = new KeptDemonstrations(store.kept);
    let steps = 1;
    const now = () => state(steps)();
    kept.heard('session-0123456789ab', 'T1', now);
    steps = 2;
    kept.heard('session-0123456789ab', 'T1', now);
    steps = 3;
    kept.heard('session-0123456789ab', 'T1', now);
    await settle();
    expect(store.writes()).toBe(1);
    store.release();
    await settle();
    expect(store.writes()).toBe(2);
    store.release();
    await settle();
    const [row] = await store.kept.ofProfile('session-0123456789ab');
    expect(row.steps).toHaveLength(3);
    expect(row.server).toBe('server-a');
    expect(await kept.unheard('session-0123456789ab', () => false)).toHaveLength(1);
    expect(await kept.unheard('session-0123456789ab', (tab) => tab === 'T1')).toEqual([]);
  });

  it("writes nothing of a profile that is not a task session's, and nothing without a ledger", async () => {
    const store = ledger();
    new KeptDemonstrations(store.kept).heard('clawd', 'T1', state(1));
    expect(store.writes()).toBe(0);
    const none = new KeptDemonstrations(undefined);
    none.heard('session-0123456789ab', 'T1', state(1));
    expect(await none.unheard('session-0123456789ab', () => false)).toEqual([]);
    await none.ended('session-0123456789ab', 'T1');
  });

  it('goes at the end, after the write under way, and a failing ledger holds nothing up', async () => {
    const store = ledger();
    const kept = new KeptDemonstrations(store.kept);
    kept.heard('session-0123456789ab', 'T1', state(1));
    const ended = kept.ended('session-0123456789ab', 'T1');
    store.release();
    await ended;
    expect(store.rows.size).toBe(0);

    store.fail();
    kept.heard('session-0123456789ab', 'T2', state(1));
    store.release();
    await kept.ended('session-0123456789ab', 'T2');
    expect(store.rows.size).toBe(0);
  });
});
