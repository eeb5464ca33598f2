import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { startWidgetLibraries } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * What a person clicks gets a ref even when nothing in its markup says it is
 * a control: a jQuery mail view (tests/fixtures/third-party/mail.html) whose
 * Reply and Forward are two spans with handlers of their own in one bar
 * with a pointer cursor, icons drawn by CSS or an image without alt, a "-"
 * and "+" beside a number, a calendar's Prev as an <a> without href. Each is
 * clicked by ref on the managed profile and a task session, and the page's
 * own state says it was reached (a tab shared from the person's Chrome has
 * no command-line API to ask for listeners: docs/managed-profiles.md); a framework's root that listens to every
 * event gets no ref, and the bar holding Reply and Forward takes neither
 * name.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startWidgetLibraries>>;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startWidgetLibraries();
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

for (const profile of ['clawd', 'session'] as const) {
  describe(`on the ${profile} profile`, () => {
    const open = async () => {
      let name: string = profile;
      let client: BrowserClient = env.client('clawd');
      if (profile === 'session') {
        // A throwaway browser for one task, driven with its own key.
        const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
        name = `session-${session.id}`;
        client = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key! });
      }
      const targetId = (await client.openTab('about:blank')).targetId;
      await client.navigate(site.url('/mail.html'), targetId);
      const page = await env.server.manager.driver(name).page(targetId);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
      return { client, targetId, page };
    };

    it('a span, an icon, a "+" and an <a> without href that listen for a click each get a ref, and a click by it reaches them', async () => {
      const { client, targetId, page } = await open();
      const { text } = await client.snapshot({ targetId, interactive: true });
      // Reply and Forward apart, each by its word; the bar that holds both is no control and takes neither name.
      expect(text).toMatch(/- generic "Reply" \[ref=e\d+\]/);
      expect(text).toMatch(/- generic "Forward" \[ref=e\d+\]/);
      expect(text).not.toMatch(/"Reply Forward"/);
      const status = () => page.textContent('#status');
      const clicks: Array<[string | RegExp, string | (() => Promise<string | null>), string]> = [
        ['generic "Reply"', status, 'reply'],
        ['generic "Forward"', status, 'forward'],
        // Icons named by what draws them: CSS content:url(img/like.png), an icon font's class, an image's file.
        ['generic "like"', status, 'liked'],
        ['generic "star"', status, 'starred'],
        ['generic "share"', status, 'shared'],
        // A row that opens a mail is in the lean view too, though rows are not.
        [/listitem \[ref=e\d+\]: "Your invoice"/, status, 'opened 2'],
      ];
      for (const [line, read, expected] of clicks) {
        await client.click(refOf(text, line), { targetId });
        expect(await (read as () => Promise<string | null>)()).toBe(expected);
      }
      await client.click(refOf(text, 'generic "+"'), { targetId });
      await client.click(refOf(text, 'generic "+"'), { targetId });
      await client.click(refOf(text, 'generic "-"'), { targetId });
      expect(await page.textContent('#count')).toBe('2');
      await client.click(refOf(text, 'generic "Prev"'), { targetId });
      expect(await page.textContent('#month')).toBe('February');
      // A framework's delegation root is not a control: it has no ref, and its words are text.
      expect(text).not.toMatch(/generic "Open the archive" \[ref=/);
    });
  });
}
