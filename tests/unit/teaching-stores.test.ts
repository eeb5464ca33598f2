import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Routine, RoutineOwner } from '../../relay/src/api/teach-schemas.js';
import { FileNoteStore } from '../../relay/src/notes/note-file.js';
import { MAX_NOTES_PER_PROFILE, type NewNote } from '../../relay/src/notes/note-store.js';
import { FileRoutineStore } from '../../relay/src/routines/routine-files.js';

/**
 * The home's answers to the teaching stores' ports: a routine save that
 * never replaces another space's, a note store whose notes outlive the
 * object that wrote them (a restart), with ids that are never reused, the
 * oldest going past the most kept, and files read back as their shape.
 */

const acme: RoutineOwner = { by: 'session', session: 'aaaa11112222', tenant: 'acme' };
const acmeOther: RoutineOwner = { by: 'session', session: 'bbbb11112222', tenant: 'acme' };
const globex: RoutineOwner = { by: 'session', session: 'cccc11112222', tenant: 'globex' };

const routine = (name: string, owner: RoutineOwner, description = 'Log in'): Routine => ({
  name,
  description,
  createdAt: '2026-01-01T00:00:00.000Z',
  recordedOn: { profile: 'clawd', url: 'https://bank.example/login', title: 'Log in' },
  owner,
  parameters: [],
  steps: [{ kind: 'goto', url: 'https://bank.example/login' }],
});

const note = (over: Partial<NewNote> = {}): NewNote => ({
  profile: 'extension',
  targetId: 'T1',
  url: 'https://shop.example/cart',
  text: 'Use the blue button',
  marks: [{ locator: { by: 'role', role: 'button', name: 'Pay', exact: true }, what: 'button "Pay"' }],
  at: '2026-01-01T00:00:00.000Z',
  ...over,
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clawd-teaching-stores-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the routine files', () => {
  it("replace a routine of the same space, and refuse to overwrite another space's with a 409", async () => {
    const store = new FileRoutineStore(join(dir, 'routines'));
    await store.save(routine('bank-login', acme));
    await store.save(routine('bank-login', acmeOther, 'Log in, again'));
    expect((await store.find('bank-login'))?.description).toBe('Log in, again');
    await expect(store.save(routine('bank-login', globex, 'Steal'))).rejects.toMatchObject({ code: 'conflict' });
    expect((await store.find('bank-login'))?.owner).toEqual(acmeOther);
    expect((await store.delete('bank-login')).name).toBe('bank-login');
    await expect(store.delete('bank-login')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuse a file altered into another shape', async () => {
    const store = new FileRoutineStore(dir);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...routine('bad', acme), steps: [{ kind: 'run-shell' }] }));
    await expect(store.find('bad')).rejects.toMatchObject({ code: 'conflict' });
    expect(await store.list()).toEqual([]);
  });
});

describe('the notes file', () => {
  it('keeps open notes for the next server on the home, marked done once, their ids never reused', async () => {
    const path = join(dir, 'notes.json');
    const first = new FileNoteStore(path);
    const a = await first.add(note());
    const b = await first.add(note({ text: 'Then the receipt', targetId: 'T2' }));
    expect([a.id, b.id]).toEqual(['n1', 'n2']);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const after = new FileNoteStore(path);
    expect(await after.ofTab('extension', 'T1', false)).toEqual([{ ...note(), id: 'n1', done: false }]);
    expect(await after.markDone('other-profile', 'n1')).toBeUndefined();
    expect((await after.markDone('extension', 'n1'))?.done).toBe(true);
    expect(await after.ofTab('extension', 'T1', false)).toEqual([]);
    expect((await after.ofTab('extension', 'T1', true)).map((kept) => kept.id)).toEqual(['n1']);
    expect((await after.add(note())).id).toBe('n3');
    expect(JSON.parse(readFileSync(path, 'utf8')).entries).toHaveLength(3);
  });

  it("keeps a profile's newest notes past the most kept, and another profile's as they are", async () => {
    const store = new FileNoteStore(join(dir, 'notes.json'));
    await store.add(note({ profile: 'clawd', text: 'other profile' }));
    for (let index = 0; index < MAX_NOTES_PER_PROFILE + 2; index++) await store.add(note({ text: `note ${index}` }));
    const kept = await store.ofTab('extension', 'T1', true);
    expect(kept).toHaveLength(MAX_NOTES_PER_PROFILE);
    expect(kept[0].text).toBe('note 2');
    expect(await store.ofTab('clawd', 'T1', true)).toHaveLength(1);
  });

  it('refuses a file altered into another shape, saying which', async () => {
    const path = join(dir, 'notes.json');
    writeFileSync(path, JSON.stringify({ version: 1, entries: [{ ...note(), id: 'n1', done: false, script: 'alert(1)' }] }));
    await expect(new FileNoteStore(path).ofTab('extension', 'T1', false)).rejects.toThrow(/notes file .* altered/);
  });
});
