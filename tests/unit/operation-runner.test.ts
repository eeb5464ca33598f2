import { describe, expect, it } from 'vitest';
import type { ProfileDriver } from '../../relay/src/driver/profile-driver.js';
import { GoneError } from '../../relay/src/errors.js';
import { OperationRunner } from '../../relay/src/service/operation-runner.js';
import { scratchActionLog } from '../harness/service-fakes.js';

// The operation runner built alone: drivers and task sessions faked (only their names and endings), the
// real action log. What a call in flight hears when its task session ends under it, and what is recorded.

function setup() {
  const ended = new Map<string, GoneError>();
  const endings: Array<(id: string) => void> = [];
  const recorded: string[] = [];
  const drivers = {
    driver: (profile?: string) => ({ profile: { name: profile ?? 'work' } }) as unknown as ProfileDriver,
    endedError: (name: string) => ended.get(name),
    registry: { config: () => ({ actionTimeoutMs: 2_000 }) },
  };
  const sessions = {
    whenEnded: (listener: (id: string) => void) => void endings.push(listener),
    recordAction: async (profile: string, kind: string) => void recorded.push(`${profile}:${kind}`),
  };
  const log = scratchActionLog();
  const runner = new OperationRunner(drivers, sessions, log);
  const end = (id: string, why: string) => {
    ended.set(`session-${id}`, new GoneError(why));
    for (const listener of endings) listener(id);
  };
  return { runner, log, recorded, end, ended };
}

describe('OperationRunner', () => {
  it('logs each call, and keeps a screenshot of actions (not of views) in a recorded session', async () => {
    const { runner, log, recorded } = setup();
    expect(
      await runner.operation('session-s1', { kind: 'click', targetId: 'T1', ref: 'e2' }, undefined, async () => ({
        targetId: 'T1',
        url: 'https://a.example/?q=secret',
      })),
    ).toEqual({ targetId: 'T1', url: 'https://a.example/?q=secret' });
    await runner.operation('session-s1', { kind: 'snapshot' }, undefined, async () => ({ targetId: 'T1' }));
    expect(recorded).toEqual(['session-s1:click']);
    expect(log.recent({ limit: 10 }).map((action) => [action.kind, action.outcome, action.url])).toEqual([
      ['click', 'ok', 'https://a.example/'],
      ['snapshot', 'ok', undefined],
    ]);
  });

  it("aborts a session's calls in flight when it ends, each told why the session ended", async () => {
    const { runner, end, log } = setup();
    let heard: unknown;
    const call = runner.operation(
      'session-s1',
      { kind: 'navigate' },
      undefined,
      (_driver, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject((heard = signal.reason)))),
    );
    const other = runner.operation('work', { kind: 'navigate' }, undefined, async () => 'still here');
    end('s1', 'Session s1 ended: it used more memory than its limit');
    await expect(call).rejects.toMatchObject({ status: 410, message: expect.stringContaining('more memory than its limit') });
    expect(heard).toBeInstanceOf(GoneError);
    expect(await other).toBe('still here');
    expect(log.recent({ limit: 10 }).find((action) => action.profile === 'session-s1')?.outcome).toBe('error');
  });

  it("tells a call that failed because its session's browser died why the session ended, once that is known", async () => {
    const { runner, ended } = setup();
    const call = runner.operation('session-s2', { kind: 'click' }, undefined, async () => {
      // The session's end is learned a moment after its browser died.
      setTimeout(() => ended.set('session-s2', new GoneError('Session s2 ended: its time limit passed')), 150);
      throw new Error('page.click: Target closed');
    });
    await expect(call).rejects.toMatchObject({ status: 410, message: expect.stringContaining('time limit passed') });
    // Outside a task session, or for any other failure, the error is the call's own.
    await expect(runner.operation('work', { kind: 'click' }, undefined, async () => Promise.reject(new Error('page.click: Target closed')))).rejects.toThrow(
      'Target closed',
    );
    await expect(runner.operation('session-s3', { kind: 'click' }, undefined, async () => Promise.reject(new Error('element is not visible')))).rejects.toThrow(
      'not visible',
    );
  });
});
