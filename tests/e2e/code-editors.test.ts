import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../relay/src/client/browser-client.js';
import { startEditorSite } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * `type` puts text wherever a person's typing would go, on editors nobody
 * here wrote: Monaco (on Chromium it edits through an EditContext: a focused
 * element that is neither an input nor contenteditable, where Playwright's
 * `fill` waits its whole timeout) and CodeMirror 6 (a contenteditable). The
 * editor's own model is read to check each answer; old fields keep working
 * as they did (forms.test.ts, widgets). On both profiles.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startEditorSite>>;
beforeAll(async () => {
  env = await startControlEnv();
  site = await startEditorSite();
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const tab = async () => {
      const client = env.client(profile);
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      return { client, targetId, page: async (): Promise<Page> => env.server.manager.driver(profile).page(targetId) };
    };

    it('Monaco (an EditContext): type goes in as keys at once, and the editor holds the text', async () => {
      const { client, targetId, page } = await tab();
      await client.navigate(site.url('/monaco.html'), targetId);
      await client.wait({ selector: '.monaco-editor .view-lines', targetId });
      const { text } = await client.snapshot({ targetId });
      const editor = refOf(text, /textbox "Editor content/);
      // It edits through an EditContext, not a field: the case `fill` cannot handle.
      expect(
        await (await page()).evaluate(() => !!(document.querySelector('.monaco-editor [role=textbox]') as HTMLElement & { editContext?: unknown }).editContext),
      ).toBe(true);

      const started = performance.now();
      const typed = await client.type(editor, 'let x = 1;', { targetId });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(typed).toMatchObject({ changed: true, typedAs: 'keys' });
      // At the caret (the start of the document), as a person's typing goes.
      expect((await client.evaluate('() => window.editor.getValue()', { targetId })).result).toBe('let x = 1;const answer = 41;\n');

      // Slowly, key by key; then Enter with submit: a new line in an editor.
      await client.press('End', { targetId });
      await client.type(editor, ' // ok', { targetId, slowly: true, submit: true });
      expect((await client.evaluate('() => window.editor.getValue()', { targetId })).result).toBe('let x = 1;const answer = 41; // ok\n\n');
    }, 60_000);

    it('CodeMirror 6 (a contenteditable) is filled as a field; a plain element is refused at once', async () => {
      const { client, targetId } = await tab();
      await client.navigate(site.url('/codemirror.html'), targetId);
      await client.wait({ selector: '.cm-content', targetId });
      const { text } = await client.snapshot({ targetId });
      const typed = await client.type(refOf(text, 'textbox'), 'let total = 2;', { targetId });
      expect(typed).toMatchObject({ changed: true });
      expect(typed.typedAs).toBeUndefined();
      expect((await client.evaluate('() => window.view.state.doc.toString()', { targetId })).result).toBe('let total = 2;');
      // A button takes no text: said at once, not after a 30 s timeout.
      const started = performance.now();
      const error = await rejection(client.type(refOf(text, 'button "Run"'), 'nope', { targetId }));
      expect(error).toBeInstanceOf(ConflictError);
      expect(performance.now() - started).toBeLessThan(10_000);
    }, 60_000);
  });
}
