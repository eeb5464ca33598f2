import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveRef, takeAiSnapshot } from '../../relay/src/snapshot/ai-snapshot.js';
import type { FixtureServer } from '../harness/fixture-server.js';
import { pagePerTest } from '../harness/page-per-test.js';
import { refOf } from '../harness/refs.js';

/**
 * The snapshot on pages it was not written for: one that rewrites the DOM's
 * own methods (the walk runs in an isolated world, so it must not notice),
 * and a long documentation page shaped for a budget: interactive only, a
 * scope, a depth, a character budget, and a diff after one change.
 */

const fixture = pagePerTest();
let page: Page;
let server: FixtureServer;
beforeEach(() => {
  ({ page, server } = fixture);
});

describe('a page that rewrites the DOM', () => {
  it('is outlined truly, its refs work, and it cannot see what the snapshot keeps', async () => {
    await page.goto(server.url('hostile-dom.html'));
    // The page's own world really is broken: its querySelectorAll throws.
    expect(
      await page.evaluate(() => {
        try {
          document.querySelectorAll('p');
          return 'works';
        } catch {
          return 'throws';
        }
      }),
    ).toBe('throws');

    const { text } = await takeAiSnapshot(page, {});

    expect(text.split('\n')).toEqual([
      '- heading "Account" [level=1]',
      '- text: "Balance: 120 coins left"',
      '- textbox "Amount" [ref=e1]',
      '- button "Send coins" [ref=e2]',
      '- text: "nothing sent"',
    ]);
    await (await resolveRef(page, refOf(text, 'textbox "Amount"'))).fill('7');
    await (await resolveRef(page, refOf(text, 'button "Send coins"'))).click();
    expect(await page.locator('#log').evaluate((el) => el.textContent)).toBe('sent 7');

    await page.waitForTimeout(100);
    expect(await page.evaluate(() => (window as unknown as { seenByPage: string[] }).seenByPage)).toEqual([]);
  });
});

describe('shaping a long page', () => {
  beforeEach(async () => {
    await page.goto(server.url('large-docs.html'));
  });

  it('interactive: only what can be acted on, under its landmarks and headings, far smaller', async () => {
    const full = await takeAiSnapshot(page, {});
    const { text } = await takeAiSnapshot(page, { interactive: true });
    const lines = text.split('\n');

    expect(lines.every((line) => /\[ref=|^\s*- (heading|navigation|main|banner|contentinfo|region|form)\b/.test(line))).toBe(true);
    expect(text).not.toMatch(/- text:/);
    expect(text).toContain('- navigation "Site":');
    expect(text).toMatch(/- form "Feedback":\n\s+- textbox "Email" \[ref=e\d+\]/);
    expect(text).toMatch(/- heading "Chapter 3" \[level=2\]\n\s*- link "Read more about 3a"/);
    expect(text.length).toBeLessThan(full.text.length * 0.6);
  });

  it('scope: the lines of one element, by selector or by ref', async () => {
    const bySelector = await takeAiSnapshot(page, { scope: { selector: 'section[aria-label="Chapter 3"]' } });
    const lines = bySelector.text.split('\n');
    expect(lines[0]).toBe('- region "Chapter 3":');
    expect(bySelector.text).toContain('- heading "Chapter 3" [level=2]');
    expect(bySelector.text).not.toContain('Chapter 4');
    expect(lines.length).toBeLessThan(15);

    const { text } = await takeAiSnapshot(page, {});
    const email = refOf(text, 'textbox "Email"');
    const byRef = await takeAiSnapshot(page, { scope: { ref: email } });
    expect(byRef.text).toBe(`- textbox "Email" [ref=${email}]`);

    await expect(takeAiSnapshot(page, { scope: { selector: '#nothing-here' } })).rejects.toThrow(/No element matches selector/);
    await expect(takeAiSnapshot(page, { scope: { selector: '[[bad' } })).rejects.toThrow(/Invalid selector/);
  });

  it('find: the lines that say it, under their path, with refs that act; a long page costs a few lines', async () => {
    const full = await takeAiSnapshot(page, {});
    const { text } = await takeAiSnapshot(page, { find: 'read more about 3a' });
    const lines = text.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^\s+- link "Read more about 3a" \[url=[^\]]+\] \[ref=e\d+\]$/));
    // Each match under its landmarks and sections, but nothing beside it.
    expect(lines[0]).toMatch(/^- main:/);
    expect(text).not.toContain('Guide 1');
    expect(text.length).toBeLessThan(full.text.length / 20);
    await (await resolveRef(page, refOf(text, 'link "Read more about 3a"'))).click();
    await page.waitForURL(/\/ch3\/a$/);

    await page.goBack();
    const many = await takeAiSnapshot(page, { find: '/"Guide \\d+"/' });
    expect(many.text.split('\n').at(-1)).toMatch(/^\[find .*: 40 matches, the first 20 shown: narrow it\]$/);
    expect((await takeAiSnapshot(page, { find: 'no such words anywhere' })).text).toBe('[find "no such words anywhere": nothing on the page matches]');
  });

  it('depth: only the top levels, and a note of what is deeper', async () => {
    const { text } = await takeAiSnapshot(page, { depth: 1 });
    const lines = text.split('\n');
    expect(lines.slice(0, -1).every((line) => line.startsWith('- '))).toBe(true);
    expect(lines.at(-1)).toMatch(/^\[depth=1: \d+ deeper lines not shown \(\d+ with refs\); raise depth/);
  });

  it('maxChars: stays within the budget and says what was cut and how to see it', async () => {
    const { text } = await takeAiSnapshot(page, { maxChars: 1500 });
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text.split('\n').at(-1)).toMatch(
      /^\[cut at maxChars=1500: \d+ more lines \(\d+ with refs\) not shown; next: .*Chapter.*scope to a ref or selector\]$/,
    );
  });

  it('diff: after one change, that change and little else; refs of unchanged elements stay', async () => {
    const before = await takeAiSnapshot(page, {});
    const rate = refOf(before.text, 'button "Rate this page"');
    await (await resolveRef(page, rate)).click();

    const after = await takeAiSnapshot(page, { diff: true });

    const lines = after.text.split('\n');
    // The click changed the status text (and moved focus, which a diff leaves out).
    expect(lines[0]).toMatch(/^\[since the previous snapshot: \+0 added, ~1 changed, -0 removed; \d+ unchanged lines not shown\]$/);
    expect(lines.slice(1)).toEqual(['  - main:', '~   - text: "Thanks for rating"']);
    expect(after.changes).toMatchObject({ added: 0, removed: 0, changed: 1 });
    // The button kept its ref: a ref an agent holds stays good while its element does.
    await (await resolveRef(page, rate)).click();
    expect((await takeAiSnapshot(page, { diff: true })).text).toBe('[no change since the previous snapshot]');
  });

  it('diff after a navigation says so and gives the whole snapshot', async () => {
    await takeAiSnapshot(page, {});
    await page.goto(server.url('todo.html'));
    const { text } = await takeAiSnapshot(page, { diff: true });
    expect(text.split('\n')[0]).toBe('[the page navigated since the previous snapshot: the snapshot follows in full]');
    expect(text).toContain('- heading "Todos" [level=1]');
    // A phrase split by inline markup is one text line.
    expect(text).toContain('- text: "0 items left"');
  });
});
