import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { hostPage, startPackageSite } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Whatever a person does with a mouse and keys, through the API, the client
 * and the CLI, where refs alone do not reach (spec §26), on a page of
 * widgets nobody here wrote or set up as they are in the wild
 * (tests/fixtures/third-party/reach.html): a jQuery UI sortable list dragged
 * in steps, a paragraph
 * whose page reads a selection on mouseup, an icon clicked at its point, a
 * terminal that reads keydown only, a card field that keeps its own value,
 * a field that takes nothing, a date and a time field. Each check reads the
 * page's own state. On the managed and the extension profile.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startPackageSite>>;
const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));

beforeAll(async () => {
  env = await startControlEnv();
  site = await startPackageSite({ '/jquery/': 'jquery', '/jquery-ui/': 'jquery-ui' }, { files: { '/reach.html': hostPage('reach.html') } });
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

/** The middle of what a selector finds, in CSS pixels of the viewport (what a screenshot shows there). */
const middleOf = (page: Page, selector: string) =>
  page.evaluate((css) => {
    const box = document.querySelector(css)!.getBoundingClientRect();
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }, selector);
const order = (page: Page) => page.evaluate(() => [...document.querySelectorAll('#sortable li')].map((item) => item.textContent));

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const open = async (): Promise<{ client: BrowserClient; targetId: string; page: Page }> => {
      const client = env.client(profile);
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(site.url('/reach.html'), targetId);
      const page = await env.server.manager.driver(profile).page(targetId);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
      return { client, targetId, page };
    };

    it("a jQuery UI sortable item dragged in steps, by ref, by points, and by the mouse's own down, moves and up, goes where it was dropped", async () => {
      const { client, targetId, page } = await open();
      const { text } = await client.snapshot({ targetId });
      const dragged = await client.drag(refOf(text, /- listitem \[ref=e\d+\]: "Item 1"/), refOf(text, /- listitem \[ref=e\d+\]: "Item 5"/), { targetId });
      expect(dragged).toMatchObject({ kind: 'drag', changed: true });
      expect((await order(page)).indexOf('Item 1')).toBeGreaterThanOrEqual(3);
      // By coordinates with the default steps, and by the mouse's own down, moves and up: the item lands.
      await page.reload();
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
      await client.dragAt(await middleOf(page, '#sortable li:nth-child(1)'), await middleOf(page, '#sortable li:nth-child(5)'), { targetId });
      expect((await order(page)).indexOf('Item 1')).toBeGreaterThanOrEqual(3);
      const start = await middleOf(page, '#sortable li:nth-child(6)');
      const end = await middleOf(page, '#sortable li:nth-child(1)');
      const down = await client.mouseDown({ ...start, targetId });
      expect(down.hit).toMatchObject({ role: 'listitem' });
      await client.move(end.x, end.y - 4, { steps: 30, targetId });
      await client.mouseUp({ targetId });
      expect((await order(page))[0]).toBe('Item 6');
      expect(await page.textContent('#order')).toMatch(/^Item 6, /);
    });

    it("a word and a sentence selected by their text, or between two points: a real selection the page's mouseup handler reads", async () => {
      const { client, targetId, page } = await open();
      const { text } = await client.snapshot({ targetId });
      // A plain paragraph has no ref: its text is found in the page.
      const word = await client.selectText({ text: 'tellus enim', targetId });
      expect(word).toMatchObject({ kind: 'select-text', selection: 'tellus enim', selectedBy: 'mouse' });
      expect(await page.evaluate(() => document.getSelection()!.toString())).toBe('tellus enim');
      expect(await page.textContent('#highlighted')).toBe('highlighted: tellus enim');
      const sentence = await client.selectText({ text: 'The quick brown fox jumps over the lazy dog, and the lazy dog sleeps on.', targetId });
      expect(sentence.selectedBy).toBe('mouse');
      expect(await page.evaluate(() => document.getSelection()!.toString())).toBe('The quick brown fox jumps over the lazy dog, and the lazy dog sleeps on.');
      // Four times on the page now (twice in the paragraph, twice in what the page says was highlighted): the first, and the answer says so.
      const lazy = await client.selectText({ text: 'lazy dog', targetId });
      expect(lazy).toMatchObject({ selection: 'lazy dog', occurrences: 4, selectedBy: 'mouse' });
      expect(await page.textContent('#highlighted')).toBe('highlighted: lazy dog');
      // Text the element does not hold: said, with what it reads.
      expect((await rejection(client.selectText({ text: 'purple elephant', targetId }))).message).toMatch(
        /^the page does not hold the text "purple elephant"; it reads "Item 1/,
      );
      // In a ref's element only: a list item's, which holds no such words.
      expect((await rejection(client.selectText({ text: 'lazy dog', ref: refOf(text, /- listitem \[ref=e\d+\]: "Item 1"/), targetId }))).message).toMatch(
        /^e\d+ does not hold the text "lazy dog"; it reads "Item 1"\./,
      );
      // By two points: the first word's left edge to the second word's right.
      const points = await page.evaluate(() => {
        const node = document.getElementById('para')!.firstChild!;
        const range = document.createRange();
        range.setStart(node, 0);
        range.setEnd(node, 'Risus donec'.length);
        const box = range.getBoundingClientRect();
        return { from: { x: box.left + 1, y: box.top + box.height / 2 }, to: { x: box.right - 1, y: box.top + box.height / 2 } };
      });
      const between = await client.selectTextAt(points.from, points.to, { targetId });
      expect(between.selection).toBe('Risus donec');
      expect(await page.textContent('#highlighted')).toBe('highlighted: Risus donec');
    });

    it('an icon with nothing to name it is clicked at its point, once and three times, and the answer says what was hit; a triple click by ref', async () => {
      const { client, targetId, page } = await open();
      await client.snapshot({ targetId });
      const star = await middleOf(page, '#star');
      const clicked = await client.clickAt(star.x, star.y, { targetId });
      expect(await page.textContent('#starred')).toBe('starred (1 click)');
      expect(clicked).toMatchObject({ kind: 'click', changed: true, hit: { ref: expect.stringMatching(/^e\d+$/) } });
      await client.clickAt(star.x, star.y, { targetId, count: 3 });
      expect(await page.textContent('#starred')).toBe('starred (3 clicks)');
      // The action log keeps where it pressed.
      const { actions } = await client.actions({ limit: 5 });
      expect(actions.at(-1)).toMatchObject({ kind: 'click', at: { x: star.x, y: star.y } });
      // A triple click by ref selects all a field holds, as a person's does.
      const { text } = await client.snapshot({ targetId });
      await client.type(refOf(text, 'textbox "Card"'), '12345678', { targetId });
      await client.click(refOf(text, 'textbox "Card"'), { targetId, count: 3 });
      expect(
        await page.evaluate(() => {
          const card = document.getElementById('card') as HTMLInputElement;
          return card.value.slice(card.selectionStart!, card.selectionEnd!);
        }),
      ).toBe('1234 5678');
    });

    it('typing: a keydown-only terminal gets keys, a masked field is typed again key by key, a dead one says the text did not arrive, date and time fields take a date as a person writes it', async () => {
      const { client, targetId, page } = await open();
      const { text } = await client.snapshot({ targetId });
      const typed = await client.type(refOf(text, 'textbox "Terminal"'), 'whoami', { targetId, submit: true });
      expect(typed).toMatchObject({ typedAs: 'keys', changed: true });
      expect(await page.evaluate(() => (window as unknown as { received: string[] }).received)).toEqual(['whoami']);
      const card = await client.type(refOf(text, 'textbox "Card"'), '12345678', { targetId });
      expect(card).toMatchObject({ retyped: true, shows: '1234 5678' });
      expect(await page.inputValue('#card')).toBe('1234 5678');
      const dead = await rejection(client.type(refOf(text, 'textbox "Code"'), '42', { targetId }));
      expect(dead.message).toMatch(/^The text did not arrive in e\d+: set at once and then typed key by key, the field still shows nothing/);
      const date = await client.type(refOf(text, /"Arrival"/), '03/15/2026', { targetId });
      expect(date).toMatchObject({ retyped: true, shows: '2026-03-15' });
      expect(await page.inputValue('#when')).toBe('2026-03-15');
      // Its own form goes in at once.
      expect((await client.type(refOf(text, /"Arrival"/), '2026-04-01', { targetId })).retyped).toBeUndefined();
      expect(await page.inputValue('#when')).toBe('2026-04-01');
      // A time as people write it goes in as the field keeps it.
      const time = await client.type(refOf(text, /"At"/), '2:30 PM', { targetId });
      expect(time).toMatchObject({ shows: '14:30' });
      expect(time.retyped).toBeUndefined();
      expect(await page.inputValue('#at')).toBe('14:30');
    });
  });
}

describe('the CLI and the script', () => {
  const cli = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, '--url', `http://127.0.0.1:${env.server.control.port}`, '--profile', 'clawd', ...args],
      { env: { ...process.env, CLAWD_HOME: env.home } },
    );
    return stdout.trim();
  };

  it("says in a line or two what each act did, the target's state and what it hit, with the page's words fenced; the script replays the mouse's acts", async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(site.url('/reach.html'));
    const page = await env.server.manager.driver('clawd').page(targetId);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const outline = await cli('snapshot', '--target', targetId);
    const star = await middleOf(page, '#star');
    const clicked = await cli('click-at', String(star.x), String(star.y), '--target', targetId);
    expect(clicked).toMatch(/^click: done\n<page (\d+)>\nat the point: \w+.*\[ref=e\d+\]\n<\/page \1>$/);
    const card = await cli('type', refOf(outline, 'textbox "Card"'), '4242', '--target', targetId);
    expect(card).toMatch(/^type: done \(typed again key by key: the field did not take it at once\)$/);
    const selected = await cli('select-text', 'lazy dog', '--target', targetId);
    expect(selected).toMatch(/^select-text: .*the first of 2 places the text is.*\n<page (\d+)>\nselected "lazy dog"\n<\/page \1>$/);
    expect(await page.textContent('#highlighted')).toBe('highlighted: lazy dog');
    const { script } = await client.script({ targetId });
    expect(script).toContain(`await page.mouse.click(${star.x}, ${star.y});`);
    expect(script).toMatch(/the text "lazy dog" selected with the mouse[^\n]*\n\s*await page\.mouse\.move\([\d.]+, [\d.]+\);\n\s*await page\.mouse\.down\(\);/);
  });
});
