import { describe, expect, it } from 'vitest';
import type { Action } from '../../relay/src/api/schemas.js';
import type { Routine } from '../../relay/src/api/teach-schemas.js';
import { OPERATOR, type RoutineCaller } from '../../relay/src/routines/routine-owners.js';
import { RoutineService } from '../../relay/src/service/routine-service.js';
import { fakeDriver, fakeDrivers, fakeOperations } from '../harness/service-fakes.js';

// A routine's run built alone on fakes of its ports: its parameters and where its secrets go are checked
// before any step, each step goes through the control service's own acts, and the first failure stops it.

const routine = (over: Partial<Routine> = {}): Routine => ({
  name: 'search',
  description: 'Search the shop',
  createdAt: '2026-01-01T00:00:00Z',
  recordedOn: { profile: 'work', url: 'https://shop.example/', title: 'Shop' },
  owner: { by: 'operator' },
  parameters: [],
  steps: [
    { kind: 'goto', url: 'https://shop.example/search' },
    { kind: 'press', key: 'Enter' },
  ],
  ...over,
});

function setup(saved: Routine, navigateFails = false) {
  const tab = { targetId: 'T1', url: 'about:blank', title: '' };
  const drivers = fakeDrivers([fakeDriver('work', [tab])]);
  const operations = fakeOperations(drivers);
  const acts: Action[] = [];
  const gone: string[] = [];
  const browser = {
    navigate: async (_profile: string | undefined, url: string, targetId?: string) => {
      if (navigateFails) throw new Error('net::ERR_NAME_NOT_RESOLVED at https://shop.example/search\nCall log: …');
      gone.push(url);
      tab.url = url;
      return { targetId: targetId ?? 'T1', url, title: 'Search', fence: 'f' };
    },
    act: async (_profile: string | undefined, action: Action) => {
      acts.push(action);
      return { targetId: 'T1', kind: action.kind, url: tab.url, changed: true };
    },
    fileChooser: async () => {
      throw new Error('not in these routines');
    },
  };
  const routines = new RoutineService(
    { browser: browser as never, operations, drivers, secrets: { secretOpener: () => undefined } },
    {
      visible: async (name: string) => {
        if (name !== saved.name) throw new Error(`No routine named ${name}`);
        return saved;
      },
    },
  );
  return { routines, operations, acts, gone };
}

const run = (
  service: RoutineService,
  request: { params?: Record<string, string | boolean | string[]>; origins?: string[] } = {},
  caller: RoutineCaller = OPERATOR,
) => service.run('work', 'search', { params: {}, ...request } as never, undefined, caller);

describe('RoutineService', () => {
  it('runs each step through the control service, in one operation, and says where it went', async () => {
    const { routines, operations, acts, gone } = setup(routine());
    const answer = await run(routines);
    expect(answer).toMatchObject({
      routine: 'search',
      ok: true,
      targetId: 'T1',
      url: 'https://shop.example/search',
      owner: { by: 'operator' },
      origins: ['https://shop.example'],
    });
    expect(answer.steps.map((step) => [step.what, step.outcome])).toEqual([
      ['go to https://shop.example/search', 'ok'],
      ['press Enter', 'ok'],
    ]);
    expect(gone).toEqual(['https://shop.example/search']);
    expect(acts).toEqual([{ kind: 'press', key: 'Enter', targetId: 'T1' }]);
    expect(operations.ran).toEqual(['routine']);
  });

  it('refuses unknown parameters and missing ones before any step runs', async () => {
    const needs = routine({ parameters: [{ name: 'query', kind: 'text', description: 'Search' }] });
    const { routines, operations } = setup(needs);
    await expect(run(routines, { params: { colour: 'red' } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('has no parameter "colour"'),
    });
    await expect(run(routines)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('params.query') });
    await expect(run(routines, { params: { query: true } })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('wants text') });
    expect(operations.ran).toEqual([]);
  });

  it("types a secret given to another's routine only where the caller named, and says where before typing", async () => {
    const theirs = routine({
      owner: { by: 'session', session: 'ab12' },
      parameters: [{ name: 'password', kind: 'secret', description: 'Password' }],
      steps: [
        { kind: 'goto', url: 'https://shop.example/login' },
        { kind: 'type', element: { by: 'label', value: 'Password' }, what: 'textbox "Password"', param: 'password', origin: 'https://shop.example' },
      ],
    });
    const { routines, operations } = setup(theirs);
    await expect(run(routines, { params: { password: 'hunter22' } })).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('"origins": ["https://shop.example"]'),
    });
    expect(operations.ran).toEqual([]);
    // Named where it goes, the run starts (its typing step needs a page, which these fakes are not: it fails there).
    await run(routines, { params: { password: 'hunter22' }, origins: ['https://shop.example'] });
    expect(operations.ran).toEqual(['routine']);
    // A short secret would redact pieces of every answer: refused.
    await expect(run(routines, { params: { password: 'abc' }, origins: ['https://shop.example'] })).rejects.toMatchObject({ status: 400 });
  });

  it('stops at the first step that fails, saying which, why (its first line) and where the tab is', async () => {
    const { routines, acts } = setup(routine(), true);
    const answer = await run(routines);
    expect(answer.ok).toBe(false);
    expect(answer.failed).toEqual({
      step: 1,
      what: 'go to https://shop.example/search',
      error: 'net::ERR_NAME_NOT_RESOLVED at https://shop.example/search',
      url: 'about:blank',
    });
    expect(answer.steps).toHaveLength(1);
    expect(acts).toEqual([]);
  });
});
