import { describe, expect, it } from 'vitest';
import { TooManyError } from '../../relay/src/errors.js';
import { type MachineLoad, pressureState } from '../../relay/src/runtime/machine-load.js';
import { AdmissionQueue } from '../../relay/src/sessions/admission-queue.js';
import { rejection } from '../harness/test-site.js';

/** Admission of task sessions (slots, a bounded queue, its deadline) and the pressure a health check reads. */

describe('the admission queue', () => {
  const queue = (capacity: number, max: number, waitMs: number) =>
    new AdmissionQueue(
      () => ({ capacity, queue: max, waitMs }),
      () => 7.2,
    );

  it('gives slots up to capacity, then queues first come first served, and a freed slot goes to the first in line', async () => {
    const admission = queue(1, 2, 5000);
    const first = await admission.enter();
    const order: string[] = [];
    const second = admission.enter().then((slot) => (order.push('second'), slot));
    const third = admission.enter().then((slot) => (order.push('third'), slot));
    expect([admission.inUse, admission.waiting]).toEqual([1, 2]);
    first.release();
    first.release(); // once only
    const slot = await second;
    expect([admission.inUse, admission.waiting, order]).toEqual([1, 1, ['second']]);
    slot.release();
    (await third).release();
    expect([admission.inUse, admission.waiting, order]).toEqual([0, 0, ['second', 'third']]);
  });

  it('refuses at once when the queue is full, and after the wait, each a 429 with when to ask again', async () => {
    const admission = queue(1, 1, 150);
    await admission.enter();
    const waiting = admission.enter();
    const full = await rejection(admission.enter());
    expect(full).toBeInstanceOf(TooManyError);
    expect(full.message).toMatch(/1 wait already \(config sessionQueue.max: 1\): ask again in 8 s/);
    expect((full as TooManyError).details).toEqual({ retryAfterSeconds: 8 });
    const late = await rejection(waiting);
    expect(late.message).toMatch(/No task session slot freed in 0.15 s \(config sessionQueue.waitSeconds\)/);
    expect(admission.waiting).toBe(0);
  });

  it('lets a caller that goes leave the queue, and none waits with a queue of 0', async () => {
    const admission = queue(1, 1, 5000);
    const held = await admission.enter();
    const caller = new AbortController();
    const waiting = admission.enter(caller.signal);
    caller.abort(new Error('gone'));
    expect((await rejection(waiting)).message).toBe('gone');
    expect(admission.waiting).toBe(0);
    held.release();
    expect(admission.inUse).toBe(0);
    const none = queue(0, 0, 5000);
    expect(await rejection(none.enter())).toBeInstanceOf(TooManyError);
  });
});

describe('pressure', () => {
  const load = (cpu: number, memory: number): MachineLoad => ({ cpu, memory });
  const thresholds = { cpu: 0.9, memory: 0.95 };
  it('says full first, then cpu, then memory; a threshold of 1 is never reached', () => {
    expect(pressureState(load(0.99, 0.99), thresholds, { inUse: 4, capacity: 4 })).toBe('full');
    expect(pressureState(load(0.95, 0.99), thresholds, { inUse: 1, capacity: 4 })).toBe('cpu');
    expect(pressureState(load(0.2, 0.96), thresholds, { inUse: 1, capacity: 4 })).toBe('memory');
    expect(pressureState(load(0.2, 0.5), thresholds, { inUse: 3, capacity: 4 })).toBe('ok');
    expect(pressureState(load(1, 1), { cpu: 1, memory: 1 }, { inUse: 0, capacity: 4 })).toBe('ok');
  });
});
