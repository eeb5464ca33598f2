import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A tab that is not in front is acted on, read and pictured as the one in
 * front is (spec §26): two agents on one profile clicking in their own tabs
 * at the same time, each then taking a screenshot, and one agent acting in
 * its tab behind another (a screenshot there waited 30 s for a frame that
 * never came). On the managed profile and the person's own Chromium (the
 * extension profile). The page's own counter is the proof of each click.
 */

let env: ControlEnv;
beforeAll(async () => {
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
});

const clicks = (page: Page) => page.evaluate(() => (window as unknown as { clicks: number }).clicks);
/** A PNG's width and height, from its header. */
const size = (base64: string) => {
  const png = Buffer.from(base64, 'base64');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
};

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const agent = (name: string) =>
      new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: env.server.token, profile, agent: name });

    it('two agents click in their own tabs at the same time, and take screenshots, whichever tab is in front', async () => {
      const [ann, bob] = [agent(`ann-${profile}`), agent(`bob-${profile}`)];
      const annTab = await ann.openTab(env.fixtures.url('/effects.html'));
      const bobTab = await bob.openTab(env.fixtures.url('/effects.html'));
      const pages = await Promise.all([annTab, bobTab].map((tab) => env.server.manager.driver(profile).page(tab.targetId)));
      const run = async (client: BrowserClient) => {
        const { text } = await client.snapshot({ interactive: true });
        const counter = refOf(text, /button "Clicked \d+ times"/);
        for (let i = 0; i < 4; i++) expect((await client.click(counter)).changed).toBe(true);
        return client.screenshot({});
      };
      const shots = await Promise.all([run(ann), run(bob)]);
      expect(await Promise.all(pages.map(clicks))).toEqual([4, 4]);
      for (const shot of shots) expect(size(shot.data).width).toBeGreaterThan(100);
      // Each agent's calls meant its own tab throughout.
      expect(shots.map((shot) => shot.targetId)).toEqual([annTab.targetId, bobTab.targetId]);
    });

    it('one agent with two tabs acts, reads and takes a screenshot in the one behind', async () => {
      const client = agent(`carol-${profile}`);
      const behind = await client.openTab(env.fixtures.url('/effects.html'));
      const front = await client.openTab(env.fixtures.url('/form.html'));
      await client.focusTab(front.targetId);
      const page = await env.server.manager.driver(profile).page(behind.targetId);
      const { text } = await client.snapshot({ targetId: behind.targetId, interactive: true });
      await client.click(refOf(text, /button "Clicked \d+ times"/), { targetId: behind.targetId });
      await client.click(refOf(text, 'checkbox "Agree"'), { targetId: behind.targetId });
      expect(await clicks(page)).toBe(1);
      expect(await page.isChecked('#agree')).toBe(true);
      const shot = await client.screenshot({ targetId: behind.targetId });
      expect(size(shot.data).width).toBeGreaterThan(100);
      // The page changed since its last frame: the picture is of it now, not an old frame.
      await page.evaluate(() => (document.body.style.background = 'rgb(255, 0, 0)'));
      const after = await client.screenshot({ targetId: behind.targetId, type: 'jpeg' });
      expect(after.data.length).toBeGreaterThan(100);
      const again = await client.snapshot({ targetId: behind.targetId, interactive: true });
      expect(again.text).toMatch(/button "Clicked 1 times"/);
    });
  });
}
