import { describe, expect, it } from 'vitest';
import type { AuditEntry, SessionInfo } from '../../relay/src/api/session-responses.js';
import { GoneError, NotFoundError } from '../../relay/src/errors.js';
import { FleetSessions } from '../../relay/src/sessions/fleet-sessions.js';
import { type FleetServer, keyDigestOf, type RegisteredSession, type SessionRegistry } from '../../relay/src/sessions/session-registry.js';

/**
 * Where a session is answered, decided from the registry's rows (the real
 * store is tests/e2e/fleet-sessions.test.ts): held here, carried to a live
 * holder, taken over once however many calls ask at once, lost with a local
 * holder, and what an ended one says. The registry here is a table in memory
 * with the store's rules (one claim wins).
 */

const KEY = 'a'.repeat(64);

class TableRegistry implements SessionRegistry {
  readonly leaseSeconds = 15;
  readonly rows = new Map<string, RegisteredSession & { keyDigest: string }>();
  readonly servers = new Map<string, FleetServer>();
  claims = 0;
  lease = true;
  constructor(readonly server: string) {}
  leaseHeld() {
    return this.lease;
  }
  async ownedLive() {
    return [...this.rows.values()].filter((row) => row.state === 'live' && row.owner === this.server);
  }
  async stillHeld(ids: string[]) {
    return new Set(ids.filter((id) => this.rows.get(id)?.owner === this.server && this.rows.get(id)?.state === 'live'));
  }
  async opened() {}
  async ended(id: string, why?: string) {
    const row = this.rows.get(id)!;
    Object.assign(row, { state: 'ended', endedAt: '2026-11-27T00:00:00.000Z', ...(why ? { why } : {}) });
  }
  async extended() {}
  async byId(id: string) {
    return this.rows.get(id);
  }
  async byKeyDigest(digest: string) {
    const row = [...this.rows.values()].find((candidate) => candidate.keyDigest === digest);
    return row && { session: row, keyDigest: row.keyDigest };
  }
  async keyDigestOf(id: string) {
    return this.rows.get(id)?.keyDigest;
  }
  async othersLive() {
    return [...this.rows.values()].filter((row) => row.state === 'live' && row.owner !== this.server);
  }
  async serverById(id: string) {
    return this.servers.get(id);
  }
  async prune() {}
  async orphans() {
    return [...this.rows.values()].filter((row) => row.state === 'live' && row.owner !== this.server && !this.servers.get(row.owner)?.alive);
  }
  async claim(id: string, from: string) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const row = this.rows.get(id);
    if (!row || row.owner !== from || row.state !== 'live') return undefined;
    this.claims++;
    row.owner = this.server;
    return row;
  }
  async markLost(id: string, from: string, why: string) {
    const row = this.rows.get(id);
    if (!row || row.owner !== from || row.state !== 'live') return false;
    Object.assign(row, { state: 'lost', why });
    return true;
  }
}

function setUp() {
  const registry = new TableRegistry('b');
  const held = new Set<string>();
  const adopted: string[] = [];
  const letGo: string[] = [];
  const audit: AuditEntry[] = [];
  const fleet = new FleetSessions(
    registry,
    {
      has: (id) => held.has(id),
      registeredSessions: () => [...held].map((id) => ({ id, grid: registry.rows.get(id)?.place === 'grid' })),
      letGo: async (id) => {
        letGo.push(id);
        held.delete(id);
      },
      adopt: async (session) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        adopted.push(session.id);
        held.add(session.id);
      },
    },
    {
      log: { debug() {}, info() {}, warn() {}, error() {} },
      audit: { record: (event: Omit<AuditEntry, 'time'>) => void audit.push({ time: '', ...event }) } as never,
    },
  );
  const add = (id: string, owner: string, place: 'local' | 'grid') =>
    registry.rows.set(id, {
      id,
      owner,
      place,
      state: 'live',
      keyDigest: keyDigestOf(id === 'g1' ? KEY : id.padEnd(64, '0')),
      info: { id, place } as SessionInfo,
      ...(place === 'grid' ? { grid: { session: 'grid-1', cdpUrl: 'ws://grid/session/grid-1/se/cdp', product: 'Chrome/156' } } : {}),
    });
  return { registry, held, adopted, letGo, audit, fleet, add };
}

describe('where a fleet answers for a session', () => {
  it('answers here for what it holds or never heard of, and carries to a live holder', async () => {
    const { registry, held, fleet, add } = setUp();
    held.add('mine');
    expect(await fleet.locate('mine')).toEqual({ here: true });
    expect(await fleet.locate('unknown')).toEqual({ here: true });
    add('g1', 'a', 'grid');
    const a = { id: 'a', controlUrl: 'http://a', relayUrl: 'http://a1', alive: true, leaseUntil: '2026-11-27T00:00:15.000Z' };
    registry.servers.set('a', a);
    expect(await fleet.locate('g1')).toEqual({ carry: a });
    expect((await fleet.keyOf(KEY))?.id).toBe('g1');
    // Only what has a key's shape is looked up.
    expect(await fleet.keyOf('not-a-key')).toBeUndefined();
  });

  it("takes a lost holder's Grid session over once, however many calls ask at once", async () => {
    const { registry, adopted, audit, fleet, add } = setUp();
    add('g1', 'a', 'grid');
    registry.servers.set('a', { id: 'a', controlUrl: 'http://a', relayUrl: 'http://a1', alive: false, leaseUntil: '2026-11-27T00:00:00.000Z' });
    const places = await Promise.all([fleet.locate('g1'), fleet.locate('g1'), fleet.sweep().then(() => fleet.locate('g1'))]);
    expect(places).toEqual([{ here: true }, { here: true }, { here: true }]);
    expect(adopted).toEqual(['g1']);
    expect(registry.claims).toBe(1);
    expect(registry.rows.get('g1')!.owner).toBe('b');
    expect(audit.map((entry) => entry.event)).toEqual(['session-takeover']);
  });

  it("marks a lost holder's local session lost: a 410 that says so", async () => {
    const { audit, fleet, add } = setUp();
    add('l1', 'a', 'local');
    const error = await fleet.locate('l1').catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(GoneError);
    expect((error as Error).message).toMatch(/lost with server a, where its browser ran/);
    expect(audit.map((entry) => entry.event)).toEqual(['session-lost']);
  });

  it('says when an ended session ended, and why one ended by what happened to it', async () => {
    const { registry, fleet, add } = setUp();
    add('e1', 'a', 'grid');
    await registry.ended('e1');
    expect(await fleet.locate('e1').catch((caught: Error) => caught)).toBeInstanceOf(NotFoundError);
    add('e2', 'a', 'grid');
    await registry.ended('e2', 'Task session e2 was lost with node http://n1');
    const gone = await fleet.locate('e2').catch((caught: Error) => caught);
    expect(gone).toBeInstanceOf(GoneError);
    expect((gone as Error).message).toBe('Task session e2 was lost with node http://n1');
  });

  it('one session, one server: lets go of what the store gives another, drives no Grid session while its lease lapses, and takes its own back after', async () => {
    const { registry, held, adopted, letGo, fleet, add } = setUp();
    add('g1', 'b', 'grid');
    add('g2', 'b', 'grid');
    add('l1', 'b', 'local');
    for (const id of ['g1', 'g2', 'l1']) held.add(id);
    // Another server (alive) took g2 over while this one stalled.
    registry.servers.set('c', { id: 'c', controlUrl: 'http://c', relayUrl: 'http://c1', alive: true, leaseUntil: '2026-11-27T00:00:15.000Z' });
    registry.rows.get('g2')!.owner = 'c';
    await fleet.sweep();
    expect(letGo).toEqual(['g2']);
    // The store unreachable past the lease: the Grid session is let go of, the local one stays.
    registry.lease = false;
    await fleet.sweep();
    expect(letGo).toEqual(['g2', 'g1']);
    expect([...held]).toEqual(['l1']);
    // The lease renewed: its own Grid session is driven again, without a claim.
    registry.lease = true;
    await fleet.sweep();
    expect(adopted).toEqual(['g1']);
    expect(registry.claims).toBe(0);
  });
});
