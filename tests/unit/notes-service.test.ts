import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProfileDriver } from '../../relay/src/driver/profile-driver.js';
import { FileNoteStore } from '../../relay/src/notes/note-file.js';
import type { NoteStore } from '../../relay/src/notes/note-store.js';
import type { ElementFacts } from '../../relay/src/replay/person-steps.js';
import { fakePersonWatch } from '../harness/service-fakes.js';
import { NotesService } from '../../relay/src/service/notes-service.js';

// A person's notes built alone: the real file store, a tab whose person's watch the test speaks for
// (the page side is the e2e suites'), and what the agent reads of a note.

const button = (name: string): ElementFacts => ({
  tag: 'button',
  role: 'button',
  name,
  nameCount: 1,
  label: '',
  labelCount: 0,
  testId: null,
  testIdCount: 0,
  text: name,
  textCount: 1,
  css: `#${name.toLowerCase()}`,
});

function setup(store: NoteStore = new FileNoteStore(join(mkdtempSync(join(tmpdir(), 'clawd-notes-')), 'notes.json'))) {
  const { person, hear } = fakePersonWatch();
  // The page is not a real one: a marked element is not found again on it (its ref is left out).
  const tab = { targetId: async () => 'T1', page: { url: () => 'https://shop.example/cart' }, person };
  const driver = { profile: { name: 'work' }, tabFor: async () => tab } as unknown as ProfileDriver;
  const notes = new NotesService({ driver: () => driver }, store);
  const mark = (element: ElementFacts) => hear({ kind: 'mark', element });

  return { notes, person, driver, mark, store };
}

describe('NotesService', () => {
  it('marks what the person clicks while a note is written, keeps the note, and gives the page its clicks back', async () => {
    const { notes, person, mark } = setup();
    expect(await notes.start('work', {})).toMatchObject({ targetId: 'T1', marking: [] });
    expect(person.mode).toBe('mark');
    await mark(button('Pay'));
    await mark(button('Pay'));
    await mark(button('Back'));
    expect(notes.marking('work', 'T1')).toEqual(['button "Pay"', 'button "Back"']);
    const note = await notes.add('work', { text: 'use the blue button' });
    expect(note).toMatchObject({
      targetId: 'T1',
      url: 'https://shop.example/cart',
      text: 'use the blue button',
      done: false,
      marks: [{ what: 'button "Pay"' }, { what: 'button "Back"' }],
    });
    expect(person.mode).toBe('off');
    expect(notes.marking('work', 'T1')).toBeUndefined();
  });

  it("gives an agent the tab's open notes, fenced as the person's words, until it marks one done", async () => {
    const { notes } = setup();
    const note = await notes.add('work', { text: 'Ignore the coupon box' });
    const listed = await notes.list('work', {});
    expect(listed.notes.map((one) => one.text)).toEqual(['Ignore the coupon box']);
    expect(listed.fenced).toContain('Ignore the coupon box');
    expect(listed.fence).toEqual(expect.any(String));
    expect((await notes.done('work', note.id)).done).toBe(true);
    expect((await notes.list('work', {})).notes).toEqual([]);
    expect((await notes.list('work', { all: true })).notes).toHaveLength(1);
    await expect(notes.done('work', 'n999')).rejects.toMatchObject({ status: 404 });
  });

  it('cancels a note being written, and refuses one while a demonstration hears the tab', async () => {
    const { notes, person } = setup();
    await notes.start('work', {});
    expect(await notes.cancel('work', {})).toEqual({ targetId: 'T1', cancelled: true });
    expect(person.mode).toBe('off');
    expect(await notes.cancel('work', {})).toEqual({ targetId: 'T1', cancelled: false });
    person.mode = 'demonstrate';
    await expect(notes.start('work', {})).rejects.toMatchObject({ status: 409 });
  });

  it('leaves a snapshot whole when the store does not answer, saying so where the notes would be', async () => {
    const failing: NoteStore = {
      add: async () => {
        throw new Error('no store');
      },
      ofTab: async () => {
        throw new Error('connection refused\nat …');
      },
      markDone: async () => undefined,
    };
    const { notes, driver } = setup(failing);
    expect(await notes.forSnapshot(driver, 'T1')).toBe("[the person's notes on this tab could not be read: connection refused; GET /notes says when they can]");
  });
});
