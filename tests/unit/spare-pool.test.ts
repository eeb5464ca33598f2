import { afterEach, describe, expect, it, vi } from 'vitest';
import { SparePool } from '../../relay/src/sessions/spare-pool.js';

describe('spares for task sessions', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a launch that fails is tried again after a pause, and the pool fills', async () => {
    vi.useFakeTimers();
    let launches = 0;
    const failures: string[] = [];
    const pool = new SparePool<number>({
      wanted: () => 1,
      make: async () => {
        launches++;
        if (launches === 1) throw new Error('Target page, context or browser has been closed');
        return launches;
      },
      usable: () => true,
      discard: async () => {},
      onFailure: (error) => failures.push(error.message),
    });
    pool.refill();
    await vi.advanceTimersByTimeAsync(0);
    expect(failures).toEqual(['Target page, context or browser has been closed']);
    expect(pool.counts()).toMatchObject({ ready: 0, starting: 0 });
    // Not at once: after the pause.
    await vi.advanceTimersByTimeAsync(1_900);
    expect(launches).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(launches).toBe(2);
    expect(pool.counts()).toMatchObject({ ready: 1 });
    expect(await pool.take()).toBe(2);
    await pool.close();
  });
});
