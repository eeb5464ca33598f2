import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Every act says what changed (issue: answers an agent can trust): a
 * checkbox that turned, a menu that opened, a page that changed its text, and
 * a button that did nothing, which answers `changed: false` with a hint
 * rather than a bare success. On both profiles; the page's own state is read
 * to check each answer against it.
 */

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    it('says what each act changed, and when nothing did', async () => {
      const client = env.client(profile);
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(env.fixtures.url('effects.html'), targetId);
      const { text } = await client.snapshot({ targetId });
      const page = String(text);

      const agree = await client.click(refOf(page, 'checkbox "Agree"'), { targetId });
      expect(agree).toMatchObject({ changed: true, state: { checked: true } });
      expect((await client.evaluate('() => document.querySelector("#agree").checked', { targetId })).result).toBe(true);
      // Only the input changed (no page code follows a plain form's checkbox): said, so an agent that expected the app to react knows it did not.
      expect(agree.hint).toBe('nothing else on the page changed');

      // A web component whose checkbox updates a count inside its shadow root: the page reacted, so no hint.
      const notify = await client.click(refOf(page, 'checkbox "Notify me"'), { targetId });
      expect(notify).toMatchObject({ changed: true, state: { checked: true } });
      expect(notify.hint).toBeUndefined();
      expect((await client.evaluate('() => document.querySelector("tally-box").shadowRoot.querySelector("span").textContent', { targetId })).result).toBe(
        '1 chosen',
      );

      const dead = await client.click(refOf(page, 'button "Does nothing"'), { targetId });
      expect(dead.changed).toBe(false);
      expect(dead.hint).toMatch(/^the element did not react: nothing on the page changed/);
      expect(dead.state).toBeUndefined();

      const counter = await client.click(refOf(page, 'button "Clicked 0 times"'), { targetId });
      expect(counter).toMatchObject({ changed: true });
      expect(counter.state).toBeUndefined();
      expect((await client.evaluate('() => window.clicks', { targetId })).result).toBe(1);

      const menu = await client.click(refOf(page, 'button "Menu"'), { targetId });
      expect(menu).toMatchObject({ changed: true, state: { expanded: 'true' } });

      const size = await client.select(refOf(page, 'combobox "Size"'), ['Large'], { targetId });
      expect(size).toMatchObject({ changed: true, state: { value: 'Large' } });

      // A key that moves the focus changed something; one that reaches nothing did not.
      expect((await client.press('Tab', { targetId })).changed).toBe(true);
      await client.evaluate('() => document.activeElement.blur()', { targetId });
      const nothing = await client.press('Shift', { targetId });
      expect(nothing).toMatchObject({ changed: false, hint: expect.stringMatching(/nothing on the page changed after Shift/) });
    });
  });
}
