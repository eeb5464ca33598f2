import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { startWidgetLibraries } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * What the snapshot used to drop, on the npm libraries that showed it
 * (issue 23), each on a host page of ours set up as its docs say
 * (tests/fixtures/third-party/), driven through the control API by refs
 * alone on the managed and the extension profile, the effect read from the
 * page's own state:
 * - Shoelace: a checkbox and a switch whose labels are light-DOM text shown
 *   through a <slot> in their shadow roots: named by it, and ticked by ref.
 * - AG Grid Community: cells (role=gridcell, tabindex=-1) get refs: one is
 *   double-clicked into its editor, typed into, and the grid's row data holds
 *   the new value.
 * - SortableJS: list items, made draggable by the list's own listeners only
 *   when a pointer goes down, get refs: one is dragged below another and the
 *   list's order changes.
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

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const open = async (client: BrowserClient, file: string) => {
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(site.url(`/${file}`), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
      return { targetId, page };
    };

    it('Shoelace: a checkbox and a switch named by their slotted labels, ticked by ref', async () => {
      const client = env.client(profile);
      const { targetId, page } = await open(client, 'shoelace.html');
      const { text } = await client.snapshot({ targetId, interactive: true });
      await client.click(refOf(text, 'checkbox "Subscribe to news"'), { targetId });
      await client.click(refOf(text, 'switch "Dark mode"'), { targetId });
      expect(await page.textContent('#state')).toBe('news: on, dark: on');
      expect(await page.evaluate(() => (document.getElementById('news') as HTMLInputElement).checked)).toBe(true);
      const after = (await client.snapshot({ targetId, interactive: true })).text;
      expect(after).toMatch(/- checkbox "Subscribe to news" \[checked\].*\[ref=e\d+\]/);
      expect(after).toMatch(/- switch "Dark mode" \[checked\].*\[ref=e\d+\]/);
    });

    it("AG Grid: a cell double-clicked by ref opens its editor; what is typed there is in the grid's row data", async () => {
      const client = env.client(profile);
      const { targetId, page } = await open(client, 'ag-grid.html');
      let { text } = await client.snapshot({ targetId });
      expect(text).toMatch(/- gridcell "Toyota" \[ref=e\d+\]/);
      await client.click(refOf(text, 'gridcell "Celica"'), { targetId, double: true });
      ({ text } = await client.snapshot({ targetId }));
      // The cell now holds AG Grid's own text editor.
      await client.type(refOf(text, /- textbox .*\[ref=/), 'Supra', { targetId, submit: true });
      expect(
        await page.evaluate(
          () =>
            (window as unknown as { gridApi: { getDisplayedRowAtIndex(i: number): { data: { model: string } } } }).gridApi.getDisplayedRowAtIndex(0).data.model,
        ),
      ).toBe('Supra');
      ({ text } = await client.snapshot({ targetId }));
      expect(text).toMatch(/- gridcell "Supra" .*\[ref=e\d+\]/);
    });

    it('SortableJS: a list item dragged by ref below another, and the list is reordered', async () => {
      const client = env.client(profile);
      const { targetId, page } = await open(client, 'sortable.html');
      const { text } = await client.snapshot({ targetId });
      // No attribute on the items says they can be dragged: they get refs as items of their list.
      expect(await page.evaluate(() => [...document.querySelectorAll('#items li')].some((item) => item.hasAttribute('draggable')))).toBe(false);
      await client.drag(refOf(text, /- listitem \[ref=e\d+\]: "Alpha"/), refOf(text, /- listitem \[ref=e\d+\]: "Charlie"/), { targetId });
      await page.waitForFunction(() => document.getElementById('order')!.textContent !== 'Alpha, Bravo, Charlie, Delta');
      const order = await page.evaluate(() => [...document.querySelectorAll('#items li')].map((item) => item.textContent));
      expect(order.indexOf('Alpha')).toBeGreaterThan(order.indexOf('Bravo'));
      expect(await page.textContent('#order')).toBe(order.join(', '));
    });
  });
}
