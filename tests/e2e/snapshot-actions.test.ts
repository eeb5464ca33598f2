import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveRef, takeAiSnapshot } from '../../relay/src/snapshot/ai-snapshot.js';
import type { FixtureServer } from '../harness/fixture-server.js';
import { pagePerTest } from '../harness/page-per-test.js';
import { refOf } from '../harness/refs.js';

/**
 * The actions that later take refs (drag, hover, dialogs, uploads,
 * downloads, element screenshots), done through refs on the fixtures made
 * for them: the fixtures work, and a ref is all an action needs.
 */

const fixture = pagePerTest({ acceptDownloads: true });
let page: Page;
let server: FixtureServer;
beforeEach(() => {
  ({ page, server } = fixture);
});

/** Snapshot the page and resolve the ref on the line that starts with `- <start>`. */
async function elementFor(start: string) {
  const { text } = await takeAiSnapshot(page, {});
  return resolveRef(page, refOf(text, start));
}

describe('actions through refs', () => {
  it('drags a draggable item onto the drop zone', async () => {
    await page.goto(server.url('dnd.html'));
    const { text } = await takeAiSnapshot(page, {});
    const item = await resolveRef(page, refOf(text, 'listitem [draggable]'));
    const zone = await resolveRef(page, refOf(text, 'generic "Drop zone"'));
    const from = await item.boundingBox();
    const to = await zone.boundingBox();

    await page.mouse.move(from!.x + from!.width / 2, from!.y + from!.height / 2);
    await page.mouse.down();
    await page.mouse.move(to!.x + to!.width / 2, to!.y + to!.height / 2, { steps: 5 });
    await page.mouse.up();

    await expect.poll(() => page.textContent('#result')).toBe('dropped:a order:b,c');
  });

  it('Playwright dragTo works on the drag fixture', async () => {
    await page.goto(server.url('dnd.html'));
    await page.locator('#item-c').dragTo(page.locator('#zone'));
    await expect.poll(() => page.textContent('#result')).toBe('dropped:c order:a,b');
  });

  it('answers confirm and prompt dialogs opened by a ref click', async () => {
    await page.goto(server.url('dialogs.html'));
    page.once('dialog', (dialog) => dialog.accept());
    await (await elementFor('button "Confirm"')).click();
    expect(await page.textContent('#result')).toBe('confirm:true');

    page.once('dialog', (dialog) => dialog.accept('hello'));
    await (await elementFor('button "Prompt"')).click();
    expect(await page.textContent('#result')).toBe('prompt:hello');

    page.once('dialog', (dialog) => dialog.dismiss());
    await (await elementFor('button "Alert"')).click();
    expect(await page.textContent('#result')).toBe('alert:done');
  });

  it('uploads through the file input ref and through the file chooser', async () => {
    await page.goto(server.url('upload.html'));
    await (
      await elementFor('button "Upload files"')
    ).setInputFiles([
      { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('first file contents') },
      { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('second') },
    ]);
    await expect.poll(() => page.textContent('#result')).toBe('a.txt:first file contents;b.txt:second');
    // The outline now shows the chosen files as the control's value.
    expect((await takeAiSnapshot(page, {})).text).toContain('- button "Upload files" [value="a.txt, b.txt"]');

    const chooser = page.waitForEvent('filechooser');
    await (await elementFor('button "Choose file"')).click();
    await (await chooser).setFiles({ name: 'c.txt', mimeType: 'text/plain', buffer: Buffer.from('chosen') });
    await expect.poll(() => page.textContent('#chooser-result')).toBe('c.txt:chosen');
  });

  it('downloads through a link ref', async () => {
    await page.goto(server.url('download.html'));
    const download = page.waitForEvent('download');
    await (await elementFor('link "Download report"')).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('report.txt');
    expect(await readFile((await file.path())!, 'utf8')).toBe('clawd report');
  });

  it('hovers, evaluates and screenshots an element by ref', async () => {
    await page.goto(server.url('index.html'));
    const button = await elementFor('button "Click me"');
    await button.hover();
    expect(await page.evaluate(() => document.querySelector('#btn')!.matches(':hover'))).toBe(true);
    expect(await button.evaluate((el) => el.textContent)).toBe('Click me');
    const png = await button.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});
