import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserClient, ConflictError } from '../../relay/src/client/browser-client.js';
import { hostPage, petsApi, startPackageSite, startSwaggerUi } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Pages nobody here wrote, driven as an agent drives them: through the control
 * API, by snapshot refs alone, on the managed and the extension profile.
 * - Swagger UI (swagger-ui-dist, a React app): expand an operation, "Try it
 *   out", fill a path parameter, Execute. The request reaching our API proves it.
 * - reveal.js's own demo deck: next slide by its control, then by the keyboard;
 *   the snapshot shows the slide on screen and not the ones off it.
 * - Widgets on a host page of ours (tests/fixtures/third-party/widgets.html):
 *   Select2 (search and pick), Quill (type, select, bold) and TinyMCE, whose
 *   editor is the body of an iframe (replace the text, select, bold).
 * The only things of ours are the API description Swagger UI shows (set in its
 * configuration file, as its README says to) and the API answering it.
 */

let env: ControlEnv;
let swagger: Awaited<ReturnType<typeof startPackageSite>>;
let reveal: Awaited<ReturnType<typeof startPackageSite>>;
let widgets: Awaited<ReturnType<typeof startPackageSite>>;
const apiCalls: string[] = [];

beforeAll(async () => {
  env = await startControlEnv();
  swagger = await startSwaggerUi(petsApi(apiCalls));
  reveal = await startPackageSite('reveal.js');
  widgets = await startPackageSite(
    { '/jquery/': 'jquery', '/select2/': 'select2', '/quill/': 'quill', '/tinymce/': 'tinymce' },
    { files: { '/widgets.html': hostPage('widgets.html') } },
  );
}, 90_000);
afterAll(async () => {
  await env?.close();
  await swagger?.close();
  await reveal?.close();
  await widgets?.close();
});

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const tab = async (client: BrowserClient): Promise<string> =>
      profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;

    it('Swagger UI: expand an operation, try it out, fill its parameter and execute it, by refs alone', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(swagger.url('/index.html'), targetId);
      await client.wait({ text: 'Find a pet by id', targetId });
      const page = await env.server.manager.driver(profile).page(targetId);
      apiCalls.length = 0;

      let { text } = await client.snapshot({ targetId, interactive: true });
      await client.click(refOf(text, 'button "GET /pets/{petId} Find a pet by id"'), { targetId });
      // The operation opens (is-open) a moment before its body renders: wait for what the next step uses.
      await client.wait({ selector: '#operations-pets-showPetById .try-out__btn', targetId });

      ({ text } = await client.snapshot({ targetId, diff: true }));
      // The diff shows the operation opening, not the rest of the page again.
      expect(text).toMatch(/button "Try it out"/);
      expect(text).not.toMatch(/List orders/);
      await client.click(refOf(text, 'button "Try it out"'), { targetId });

      ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
      await client.fill([{ ref: refOf(text, /textbox "petId"/), value: '42' }], { targetId });
      ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
      await client.click(refOf(text, 'button "Execute"'), { targetId });

      await client.wait({ text: 'Rex the 42th', targetId });
      expect(apiCalls).toEqual(['GET /api/pets/42']);
      ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
      expect(text).toContain('Rex the 42th');
      expect(await page.locator('#operations-pets-showPetById .live-responses-table tbody .response-col_status').first().innerText()).toContain('200');
    });

    it('reveal.js demo: next slide by its own control, then by the keyboard; only the slide on screen is in the snapshot', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(reveal.url('/demo.html'), targetId);
      await client.wait({ text: 'The HTML Presentation Framework', targetId });
      const page = await env.server.manager.driver(profile).page(targetId);
      await page.waitForFunction(() => (window as unknown as { Reveal?: { isReady(): boolean } }).Reveal?.isReady());
      const slide = () => page.evaluate(() => (window as unknown as { Reveal: { getIndices(): { h: number; v: number } } }).Reveal.getIndices());

      let { text } = await client.snapshot({ targetId });
      expect(text).toContain('heading "The HTML Presentation Framework" [level=3]');
      expect(text).not.toContain('Hello There');
      await client.click(refOf(text, 'button "next slide"'), { targetId });
      await page.waitForFunction(() => (window as unknown as { Reveal: { getIndices(): { h: number } } }).Reveal.getIndices().h === 1);

      ({ text } = await client.snapshot({ targetId }));
      expect(text).toContain('heading "Hello There" [level=2]');
      expect(text).not.toContain('heading "The HTML Presentation Framework"');

      await client.press('ArrowRight', { targetId });
      await page.waitForFunction(() => (window as unknown as { Reveal: { getIndices(): { h: number } } }).Reveal.getIndices().h === 2);
      expect(await slide()).toMatchObject({ h: 2, v: 0 });
      ({ text } = await client.snapshot({ targetId }));
      expect(text).toContain('heading "Vertical Slides" [level=2]');
      expect(text).not.toContain('Hello There');
    });

    it('widgets: Select2 search and pick, Quill and TinyMCE (an editor in an iframe) typed into and made bold, by refs alone', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(widgets.url('/widgets.html'), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      await page.waitForFunction(() => (window as unknown as { mceReady?: boolean }).mceReady === true);
      const section = (n: number) => client.snapshot({ targetId, selector: `section:nth-of-type(${n})` }).then((snapshot) => snapshot.text);

      // Select2: open it, search, pick. The real <select> behind it changes.
      await client.click(refOf(await section(1), /combobox "Argentina"/), { targetId });
      const open = (await client.snapshot({ targetId })).text;
      // Select2 shows the choice as a read-only textbox: typing there is refused at once, with why.
      const started = performance.now();
      const refused = await rejection(client.type(refOf(open, /textbox "Argentina" \[readonly\]/), 'Nor', { targetId }));
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused.message).toMatch(/read-only or disabled, so it cannot be typed into/);
      expect(performance.now() - started).toBeLessThan(5_000);
      await client.type(refOf(open, 'searchbox "Search"'), 'Nor', { targetId, slowly: true });
      const filtered = (await client.snapshot({ targetId })).text;
      expect(filtered).toMatch(/option "Norway"/);
      expect(filtered).not.toMatch(/option "Brazil"/);
      await client.click(refOf(filtered, 'option "Norway"'), { targetId });
      await client.wait({ text: 'chosen: NO', targetId });
      expect(await page.evaluate(() => (document.getElementById('country') as HTMLSelectElement).value)).toBe('NO');

      // Quill: type, select all, bold.
      let text = await section(2);
      await client.type(refOf(text, /^\s*- textbox.*\[ref=/), 'Hello from an agent', { targetId });
      await client.press('Control+A', { targetId });
      await client.click(refOf(text, 'button "bold"'), { targetId });
      expect(await page.evaluate(() => (window as unknown as { quill: { getContents(): { ops: unknown[] } } }).quill.getContents().ops)).toEqual([
        { insert: 'Hello from an agent', attributes: { bold: true } },
        { insert: '\n' },
      ]);

      // TinyMCE: its editor is an iframe's body. Replace the draft, select all, bold.
      text = await section(3);
      const editor = refOf(text, /textbox "Rich Text Area".*\[value="Draft"\]/);
      expect(editor).toMatch(/^f\d+e\d+$/);
      await client.type(editor, 'Typed by an agent', { targetId });
      await client.press('Control+A', { targetId });
      await client.click(refOf(text, 'button "Bold"'), { targetId });
      expect(await page.evaluate(() => (window as unknown as { tinymce: { activeEditor: { getContent(): string } } }).tinymce.activeEditor.getContent())).toBe(
        '<p><strong>Typed by an agent</strong></p>',
      );
      expect(await section(3)).toMatch(/textbox "Rich Text Area" \[focused\] \[value="Typed by an agent"\]/);
    });
  });
}
