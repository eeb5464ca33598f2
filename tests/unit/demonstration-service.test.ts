import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProfileDriver } from '../../relay/src/driver/profile-driver.js';
import type { ElementFacts } from '../../relay/src/replay/person-steps.js';
import { OPERATOR, type RoutineCaller } from '../../relay/src/routines/routine-owners.js';
import { FileRoutineStore } from '../../relay/src/routines/routine-files.js';
import { fakePersonWatch } from '../harness/service-fakes.js';
import { DemonstrationService } from '../../relay/src/service/demonstration-service.js';
import { KeptDemonstrations } from '../../relay/src/service/kept-demonstrations.js';

// Demonstrations built alone: the real routine files, a tab whose person's watch the test speaks for
// (the page side is the e2e suites'), and who may stop, save, see and delete what a person showed.

const field = (name: string): ElementFacts => ({
  tag: 'input',
  role: 'textbox',
  name,
  nameCount: 1,
  label: name,
  labelCount: 1,
  testId: null,
  testIdCount: 0,
  text: '',
  textCount: 0,
  css: `#${name.toLowerCase()}`,
});
const KEY: RoutineCaller = { by: 'session', session: 'ab12' };
const OTHER_KEY: RoutineCaller = { by: 'session', session: 'cd34' };

function setup() {
  const { person, hear } = fakePersonWatch();
  const page = { url: () => 'https://shop.example/search', title: async () => 'Shop search', once: () => {}, isClosed: () => false };
  const tab = { targetId: async () => 'T1', page, person, secrets: { holding: false } };
  const driver = { profile: { name: 'work' }, tabFor: async () => tab } as unknown as ProfileDriver;
  const store = new FileRoutineStore(mkdtempSync(join(tmpdir(), 'clawd-routines-')));
  const demonstrations = new DemonstrationService({ driver: () => driver }, store, new KeptDemonstrations(undefined));
  return { demonstrations, person, does: hear, store };
}

describe('DemonstrationService', () => {
  it('hears what the person does in the tab and makes it a routine and a Playwright test when stopped with a name', async () => {
    const { demonstrations, person, does } = setup();
    const started = await demonstrations.start('work', {});
    expect(started).toMatchObject({ targetId: 'T1', profile: 'work', url: 'https://shop.example/search', steps: [] });
    expect(person.mode).toBe('demonstrate');
    // Starting again in the same tab is the same demonstration.
    expect((await demonstrations.start('work', {})).since).toBe(started.since);
    await does({ kind: 'type', element: field('Query'), value: 'red shoes' });
    await does({ kind: 'press', key: 'Enter', element: field('Query') });
    expect(demonstrations.of('work', 'T1')?.steps).toHaveLength(2);
    const made = await demonstrations.stop('work', { name: 'find-shoes' });
    expect(made.saved).toBe(true);
    expect(made.routine).toMatchObject({
      name: 'find-shoes',
      owner: { by: 'operator' },
      recordedOn: { profile: 'work', url: 'https://shop.example/search', title: 'Shop search' },
    });
    expect(made.routine!.parameters).toEqual([expect.objectContaining({ kind: 'text', default: 'red shoes' })]);
    expect(made.script).toContain('test(');
    expect(person.mode).toBe('off');
    expect((await demonstrations.routines()).routines.map((routine) => routine.name)).toEqual(['find-shoes']);
    await expect(demonstrations.stop('work', {})).rejects.toMatchObject({ status: 404 });
  });

  it("lets a key stop only its own demonstration, and never save over another's routine", async () => {
    const { demonstrations, does } = setup();
    await demonstrations.start('work', {}, OPERATOR);
    await does({ kind: 'click', element: field('Query') });
    await demonstrations.stop('work', { name: 'search' }, OPERATOR);

    await demonstrations.start('work', {}, KEY);
    await expect(demonstrations.stop('work', { name: 'mine' }, OTHER_KEY)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('theirs to stop'),
    });
    // The operator's name is a 409 that names a free one, and the demonstration goes on.
    await expect(demonstrations.stop('work', { name: 'search' }, KEY)).rejects.toMatchObject({
      status: 409,
      details: expect.objectContaining({ routine: 'search' }),
    });
    expect(demonstrations.of('work', 'T1')).toBeDefined();
    const saved = await demonstrations.stop('work', { name: 'search-mine' }, KEY);
    expect(saved.routine?.owner).toEqual({ by: 'session', session: 'ab12' });
  });

  it("shows a key the operator's routines and its own, never another key's, and lets it delete only its own", async () => {
    const { demonstrations } = setup();
    for (const [name, caller] of [
      ['shared', OPERATOR],
      ['mine', KEY],
      ['theirs', OTHER_KEY],
    ] as const) {
      await demonstrations.start('work', {}, caller);
      await demonstrations.stop('work', { name }, caller);
    }
    expect((await demonstrations.routines(KEY)).routines.map((routine) => routine.name).sort()).toEqual(['mine', 'shared']);
    expect((await demonstrations.routines(OPERATOR)).routines).toHaveLength(3);
    await expect(demonstrations.routine('theirs', KEY)).rejects.toMatchObject({ status: 404 });
    await expect(demonstrations.deleteRoutine('shared', KEY)).rejects.toMatchObject({ status: 403 });
    expect((await demonstrations.deleteRoutine('mine', KEY)).deleted.name).toBe('mine');
  });

  it('discards a demonstration when asked, saving nothing', async () => {
    const { demonstrations, does, store } = setup();
    await demonstrations.start('work', {});
    await does({ kind: 'click', element: field('Query') });
    expect(await demonstrations.stop('work', { name: 'kept', discard: true })).toEqual({ saved: false, notes: ['discarded: nothing was made'] });
    expect(await store.list()).toEqual([]);
  });
});
