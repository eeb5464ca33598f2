import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A click by ref reaches the page as one click, exactly as Playwright's own
 * `locator.click()` does (issue: answers an agent can trust). The page
 * (tests/fixtures/capture-clicks.html) handles clicks in one listener on
 * window, in the capture phase, registered as it loads, as delegation,
 * gesture and analytics libraries do; its state is its own list of chores.
 *
 * Before, each ref click began with Playwright's trial click, whose mouse
 * press and release such a page received before Playwright's own listener
 * could swallow them: two clicks for one. A checkbox the page toggles came
 * back unchecked while the act answered success, and `fill` said "Clicking
 * the checkbox did not change its state". On both profiles.
 */

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

/** What a person's single click sends: the page must see this, once, and nothing more. */
const ONE_CLICK = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const tab = async (client: BrowserClient): Promise<string> =>
      profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;

    it('a checkbox the page toggles in a window capture listener: ticked and unticked by ref, set by fill, each one click', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(env.fixtures.url('capture-clicks.html'), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      const read = () =>
        page.evaluate(() => {
          const state = window as unknown as { chores: Array<{ done: boolean }>; seen: string[] };
          const seen = state.seen.splice(0);
          return {
            done: state.chores.map((chore) => chore.done),
            checked: [...document.querySelectorAll<HTMLInputElement>('input.toggle')].map((box) => box.checked),
            completed: [...document.querySelectorAll('#list > li')].map((row) => row.classList.contains('completed')),
            seen,
          };
        });

      const { text } = await client.snapshot({ targetId });
      await client.click(refOf(text, 'checkbox "Dishes"'), { targetId });
      expect(await read()).toEqual({ done: [true, false, false], checked: [true, false, false], completed: [true, false, false], seen: ONE_CLICK });
      expect((await client.snapshot({ targetId })).text).toContain('checkbox "Dishes" [checked]');
      expect(await page.locator('#left').textContent()).toBe('2 chores left');

      // The same ref again unticks it.
      await client.click(refOf(text, 'checkbox "Dishes"'), { targetId });
      expect(await read()).toEqual({ done: [false, false, false], checked: [false, false, false], completed: [false, false, false], seen: ONE_CLICK });

      // Playwright's own click, for comparison: the very same events.
      await page.getByRole('checkbox', { name: 'Laundry' }).click();
      expect(await read()).toEqual({ done: [false, true, false], checked: [false, true, false], completed: [false, true, false], seen: ONE_CLICK });

      // fill sets a checkbox with one click too (and finds it set).
      await client.fill([{ ref: refOf(text, 'checkbox "Windows"'), value: true }], { targetId });
      expect(await read()).toEqual({ done: [false, true, true], checked: [false, true, true], completed: [false, true, true], seen: ONE_CLICK });
      // Already set: no click at all.
      await client.fill([{ ref: refOf(text, 'checkbox "Windows"'), value: true }], { targetId });
      expect((await read()).seen).toEqual([]);

      // Hovering presses nothing.
      await client.act({ kind: 'hover', targetId, ref: refOf(text, 'checkbox "Dishes"') });
      expect(await read()).toMatchObject({ done: [false, true, true], seen: [] });
    });

    it('a button the page handles in a window capture listener does its work once per click by ref', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(env.fixtures.url('capture-clicks.html'), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      const add = refOf((await client.snapshot({ targetId })).text, 'button "Add a chore"');
      await client.click(add, { targetId });
      await client.click(add, { targetId });
      expect(await page.evaluate(() => (window as unknown as { chores: Array<{ title: string }> }).chores.map((chore) => chore.title))).toEqual([
        'Dishes',
        'Laundry',
        'Windows',
        'Chore 4',
        'Chore 5',
      ]);
      const { text } = await client.snapshot({ targetId });
      expect(text).toContain('checkbox "Chore 5"');
      expect(text).toContain('5 chores left');
    });
  });
}
