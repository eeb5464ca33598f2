import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { ariaSnapshot, RefNotFoundError, resolveRef, takeAiSnapshot } from '../../relay/src/snapshot/ai-snapshot.js';
import type { FixtureServer } from '../harness/fixture-server.js';
import { pagePerTest } from '../harness/page-per-test.js';
import { refOf } from '../harness/refs.js';

/**
 * The `ai` snapshot and its refs against real Chromium: what the outline
 * says about a page, that refs reach the elements they name (in frames too,
 * out-of-process ones included), and that refs which no longer mean anything
 * are refused with a reason.
 */

const fixture = pagePerTest();
let page: Page;
let server: FixtureServer;
beforeEach(() => {
  ({ page, server } = fixture);
});

async function refError(ref: string): Promise<RefNotFoundError> {
  const error = await resolveRef(page, ref).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RefNotFoundError);
  return error as RefNotFoundError;
}

describe('ai snapshot', () => {
  it('an editor that is a whole document (a contenteditable body, or designMode) is one textbox with a ref', async () => {
    await page.setContent(`
      <iframe title="Editor one" srcdoc="<body contenteditable><p>Hello</p></body>"></iframe>
      <iframe title="Editor two" srcdoc="<body><p>Old</p><script>document.designMode = 'on'</script></body>"></iframe>`);
    await page.waitForFunction(() => [...document.querySelectorAll('iframe')].every((frame) => frame.contentDocument?.readyState === 'complete'));
    const { text } = await takeAiSnapshot(page, {});
    expect(text).toMatch(/- iframe "Editor one" \[frame=f1\]:\n {2}- textbox \[value="Hello"\] \[ref=f1e1\]/);
    expect(text).toMatch(/- iframe "Editor two" \[frame=f2\]:\n {2}- textbox \[value="Old"\] \[ref=f2e1\]/);
    // Nothing is focused until someone clicks in.
    expect(text).not.toContain('[focused]');
    await (await resolveRef(page, 'f2e1')).fill('New text');
    expect(await page.frames()[2].evaluate(() => document.body.innerText.trim())).toBe('New text');
  });

  it("names from content as a reader hears them: spaced where layout breaks the line, hidden parts left out, a child's own label used", async () => {
    await page.setContent(`
      <button style="display:flex"><span>GET</span><span>/pets</span><span>List pets</span></button>
      <a href="/x"><span style="display:none">secret</span>Read <b>more</b><span aria-hidden="true">→</span></a>
      <button><svg aria-label="Close dialog"></svg></button>
      <h2><div>Section</div><div>two</div></h2>
      <div style="cursor:pointer"><button>Inside</button> and text</div>
      <div onclick="1">Plain clickable</div>
      <a href="/inbox"><span style="display:inline-block">3</span>Messages</a>
      <button><svg viewBox="0 0 1 1"><title>Settings</title><path d="M0 0h1v1z"/></svg></button>
      <button>Line<br>break <img alt="smiley" src="data:,"> <span style="visibility:hidden">ghost</span></button>
      <a href="/long">
                                                            Indented
                                                            far
                                                            in the markup
      </a>
      <my-button>Delete</my-button>
      <script>
        customElements.define('my-button', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<button><slot>Fallback</slot></button>'; }
        });
      </script>`);
    const { text } = await takeAiSnapshot(page, {});
    expect(text).toContain('- button "GET /pets List pets"');
    expect(text).toContain('- link "Read more"');
    expect(text).toContain('- button "Close dialog"');
    expect(text).toContain('- heading "Section two" [level=2]');
    // A box clickable only by its cursor that holds a control of its own gets no handle: the control is the handle.
    expect(text).toMatch(/\n- button "Inside" \[ref=e\d+\]\n- text: "and text"\n/);
    expect(text).toContain('- generic "Plain clickable"');
    expect(text).toContain('- link "3 Messages"');
    expect(text).toContain('- button "Settings"');
    expect(text).toContain('- button "Line break smiley"');
    // Indentation is not words: it does not use up what a name may read.
    expect(text).toContain('- link "Indented far in the markup"');
    // A web component's button is named by what is slotted into it, as it is shown.
    expect(text).toContain('- button "Delete"');
    expect(text).not.toContain('Fallback');
  });

  it('outlines a form: roles, names, values, states, and a ref on every control', async () => {
    await page.goto(server.url('form.html'));
    await page.fill('#name', 'clawd');

    const snapshot = await takeAiSnapshot(page, {});

    expect(snapshot.text).toBe(
      [
        '- heading "Sign up" [level=1]',
        '- form:',
        '  - textbox "Name" [required] [focused] [value="clawd"] [ref=e1]',
        '  - textbox "you@example.com" [ref=e2]',
        '  - textbox "Comment" [ref=e3]',
        // A drop-down's choices are on its line: its options have no box to click.
        '  - combobox "Fruit" [value="Apple"] [options: "Apple", "Banana", "Cherry"] [ref=e4]',
        '  - checkbox "Subscribe" [ref=e5]',
        '  - group "Size":',
        '    - radio "Small" [ref=e6]',
        '    - radio "Medium" [checked] [ref=e7]',
        '    - radio "Large" [ref=e8]',
        '  - button "Not yet" [disabled] [ref=e9]',
        '  - button "Submit" [ref=e10]',
      ].join('\n'),
    );
    expect(snapshot).toMatchObject({ refCount: 10, truncated: false, frames: 1 });
  });

  it('refs reach the elements they name: fill, select, check and click through them', async () => {
    await page.goto(server.url('form.html'));
    const { text } = await takeAiSnapshot(page, {});

    await (await resolveRef(page, refOf(text, 'textbox "Name"'))).fill('Ada');
    await (await resolveRef(page, refOf(text, 'textbox "you@example.com"'))).fill('ada@example.com');
    await (await resolveRef(page, refOf(text, 'textbox "Comment"'))).fill('Hi there');
    await (await resolveRef(page, refOf(text, 'combobox "Fruit"'))).selectOption('cherry');
    await (await resolveRef(page, refOf(text, 'checkbox "Subscribe"'))).check();
    await (await resolveRef(page, refOf(text, 'radio "Large"'))).click();
    await (await resolveRef(page, refOf(text, 'button "Submit"'))).click();

    expect(JSON.parse((await page.textContent('#result')) ?? '')).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      comment: 'Hi there',
      fruit: 'cherry',
      subscribe: true,
      size: 'large',
    });
    // The outline shows what the page now holds.
    const after = (await takeAiSnapshot(page, {})).text;
    expect(after).toContain('- combobox "Fruit" [value="Cherry"] [options: "Apple", "Banana", "Cherry"] [ref=e4]');
    expect(after).toContain('- checkbox "Subscribe" [checked] [ref=e5]');
    expect(after).toContain('- radio "Large" [checked] [ref=e8]');
  });

  it('a ref inside a cross-origin (out-of-process) iframe resolves and clicks', async () => {
    await page.goto(server.url(`frame-host.html?src=${encodeURIComponent(server.crossOriginUrl('frame-child.html'))}`));
    const child = page.frames()[1];
    expect(new URL(child.url()).hostname).toBe('localhost');

    const snapshot = await takeAiSnapshot(page, {});

    expect(snapshot.text).toBe(['- heading "Frame Host" [level=1]', '- iframe [frame=f1]:', '  - button "Inner button" [ref=f1e1]'].join('\n'));
    expect(snapshot.frames).toBe(2);
    await (await resolveRef(page, 'f1e1')).click();
    expect(await child.evaluate(() => document.body.dataset.clicked)).toBe('yes');
  });

  it('stitches nested same- and cross-origin frames in document order, with refs into each', async () => {
    await page.goto(server.url('snapshot-frames.html'));

    const snapshot = await takeAiSnapshot(page, {});

    expect(snapshot.text).toBe(
      [
        '- heading "Frames" [level=1]',
        '- button "Before frames" [ref=e1]',
        '- iframe "Same origin" [frame=f1]:',
        '  - button "Inner button" [ref=f1e1]',
        '- iframe "Cross origin" [frame=f2]:',
        '  - heading "Frame Host" [level=1]',
        '  - iframe [frame=f3]:',
        '    - button "Inner button" [ref=f3e1]',
        '- button "After frames" [ref=e2]',
      ].join('\n'),
    );
    expect(snapshot).toMatchObject({ refCount: 4, frames: 4 });

    await (await resolveRef(page, 'f3e1')).click();
    const clicked = await Promise.all(page.frames().map((frame) => frame.evaluate(() => document.body.dataset.clicked ?? null)));
    // Only the innermost frame (the grandchild) was clicked.
    expect(clicked.filter((value) => value === 'yes')).toHaveLength(1);
    const grandchild = page.frames().find((frame) => frame.parentFrame()?.parentFrame());
    expect(await grandchild?.evaluate(() => document.body.dataset.clicked)).toBe('yes');
  });

  it('follows the visibility, structure and interactivity rules', async () => {
    await page.goto(server.url('snapshot-features.html'));

    const { text } = await takeAiSnapshot(page, {});

    expect(text).toBe(
      [
        '- navigation "Primary":',
        '  - list:',
        // A list's items have refs of their own (a sortable list's item is dragged by it).
        '    - listitem [ref=e1]:',
        '      - link "Docs" [url=/docs] [ref=e2]',
        '    - listitem [ref=e3]:',
        '      - link "About" [url=https://example.com/about?x=1] [ref=e4]',
        '- main:',
        '  - heading "Visibility" [level=2]',
        // display:none, [hidden], aria-hidden and visibility:hidden content is gone;
        // a visibility:visible child of a hidden parent and display:contents children stay.
        '  - button "Visible inside hidden" [ref=e5]',
        '  - button "Inside contents" [ref=e6]',
        '  - button "More" [expanded=false] [ref=e7]',
        '  - heading "Interactivity" [level=2]',
        // cursor:pointer where it starts (not on the inheriting span), onclick, tabindex>=0.
        '  - generic "Clickable card with a span" [ref=e8]',
        '  - generic "Onclick div" [ref=e9]',
        '  - generic "Focusable div" [ref=e10]',
        '  - text: "Not focusable div"',
        '  - textbox "Editor" [value="Some rich text"] [ref=e11]',
        '  - button "Toggle" [pressed] [expanded=false] [ref=e12]',
        '  - checkbox "Mixed" [checked=mixed] [ref=e13]',
        // The label of a hidden file input is what a user clicks.
        '  - label "Upload avatar" [ref=e14]',
        '  - textbox "Password" [value="••••••"] [ref=e15]',
        '  - slider "Volume" [value="3"] [ref=e16]',
        '  - progressbar "Loading" [value="30%"]',
        '  - heading "Shadow" [level=2]',
        '  - button "Shadow button" [ref=e17]',
        '  - text: "Slotted label"',
        '  - heading "Labelled section" [level=2]',
        '  - region "Labelled section":',
        '    - text: "Plain paragraph with"',
        '    - link "an inline link" [url=/inline] [ref=e18]',
        '    - text: "inside."',
        '    - img "A pixel"',
      ].join('\n'),
    );

    // Refs reach into open shadow roots, and onto elements that are only clickable by script.
    await (await resolveRef(page, refOf(text, 'generic "Onclick div"'))).click();
    expect(await page.getAttribute('#onclick', 'data-clicked')).toBe('yes');
    const shadowButton = await resolveRef(page, refOf(text, 'button "Shadow button"'));
    expect(await shadowButton.evaluate((el) => el.id)).toBe('shadow-button');
  });

  it('marks draggable items and gives them refs', async () => {
    await page.goto(server.url('dnd.html'));
    const { text } = await takeAiSnapshot(page, {});
    expect(text).toContain('  - listitem [draggable] [ref=e1]: "Item A"');
    expect(text).toContain('- generic "Drop zone" [ref=e4]: "Drop here"');
    expect(await (await resolveRef(page, 'e2')).evaluate((el) => el.id)).toBe('item-b');
  });

  it('is deterministic for an unchanged page', async () => {
    await page.goto(server.url('snapshot-frames.html'));
    const first = await takeAiSnapshot(page, {});
    const second = await takeAiSnapshot(page, {});
    expect(second.text).toBe(first.text);

    await page.goto(server.url('snapshot-features.html'));
    expect((await takeAiSnapshot(page, {})).text).toBe((await takeAiSnapshot(page, {})).text);
  });

  it('respects limit and says where it cut', async () => {
    await page.goto(server.url('form.html'));

    const snapshot = await takeAiSnapshot(page, { limit: 3 });

    const lines = snapshot.text.split('\n');
    expect(snapshot.truncated).toBe(true);
    expect(lines.slice(0, 3)).toEqual(['- heading "Sign up" [level=1]', '- form:', '  - textbox "Name" [required] [ref=e1]']);
    expect(lines[3]).toMatch(/^\[truncated at limit=3 lines; about \d+ more elements not shown\]$/);
    expect(lines).toHaveLength(4);
  });

  it('cuts across frames too, in document order', async () => {
    await page.goto(server.url('snapshot-frames.html'));

    const snapshot = await takeAiSnapshot(page, { limit: 4 });

    expect(snapshot.truncated).toBe(true);
    expect(snapshot.text.split('\n').slice(0, 4)).toEqual([
      '- heading "Frames" [level=1]',
      '- button "Before frames" [ref=e1]',
      '- iframe "Same origin" [frame=f1]:',
      '  - button "Inner button" [ref=f1e1]',
    ]);
  });

  it('the raw format returns the accessibility tree as nodes', async () => {
    await page.goto(server.url('form.html'));

    const full = await ariaSnapshot(page, {});

    expect(full.truncated).toBe(false);
    expect(full.nodes[0]).toMatchObject({ role: 'RootWebArea', name: 'Form' });
    const name = full.nodes.find((node) => node.role === 'textbox' && node.name === 'Name');
    expect(name?.properties).toMatchObject({ required: true });
    const byId = new Map(full.nodes.map((node) => [node.nodeId, node]));
    expect(full.nodes[0].childIds?.every((id) => byId.has(id))).toBe(true);

    const cut = await ariaSnapshot(page, { limit: 3 });
    expect(cut.nodes).toHaveLength(3);
    expect(cut.truncated).toBe(true);
  });
});

describe('refs that cannot be used', () => {
  it('a newer snapshot makes an older ref stale', async () => {
    await page.goto(server.url('form.html'));
    const { text } = await takeAiSnapshot(page, {});
    const send = refOf(text, 'button "Submit"');
    expect(send).toBe('e10');

    await page.evaluate(() => document.querySelectorAll('button').forEach((button) => button.remove()));
    await takeAiSnapshot(page, {});

    const error = await refError(send);
    expect(error.problem).toBe('stale');
    expect(error.message).toMatch(/e10 is stale.*older snapshot.*Take a new snapshot/);
  });

  it('refs from before a navigation are stale', async () => {
    await page.goto(server.url('form.html'));
    await takeAiSnapshot(page, {});
    await page.goto(server.url('index.html'));

    const error = await refError('e1');
    expect(error.problem).toBe('stale');
    expect(error.message).toMatch(/navigated or reloaded.*Take a new snapshot/);
  });

  it('without any snapshot, every ref is stale', async () => {
    await page.goto(server.url('form.html'));
    const error = await refError('e1');
    expect(error.problem).toBe('stale');
    expect(error.message).toMatch(/no snapshot has been taken of this tab yet/);
  });

  it('a ref whose element was removed says so', async () => {
    await page.goto(server.url('form.html'));
    const { text } = await takeAiSnapshot(page, {});
    await page.evaluate(() => document.getElementById('submit')?.remove());

    const error = await refError(refOf(text, 'button "Submit"'));
    expect(error.problem).toBe('removed');
    expect(error.message).toMatch(/removed from the page/);
  });

  it('unknown and malformed refs are unknown', async () => {
    await page.goto(server.url('form.html'));
    await takeAiSnapshot(page, {});

    for (const ref of ['e999', 'f7e1', 'button', '']) {
      const error = await refError(ref);
      expect(error.problem, ref).toBe('unknown');
      expect(error.message, ref).toMatch(/^Unknown ref/);
    }
  });
});

describe('on a 5,000-element page', () => {
  it('is faster than Playwright ariaSnapshot and smaller than the HTML', async () => {
    await page.goto(server.url('many.html'));
    const elements = await page.evaluate(() => document.body.getElementsByTagName('*').length);
    const html = await page.evaluate(() => document.documentElement.outerHTML.length);

    const ours: number[] = [];
    const theirs: number[] = [];
    let text = '';
    let playwrightText = '';
    for (let round = 0; round < 5; round++) {
      let started = performance.now();
      const snapshot = await takeAiSnapshot(page, {});
      ours.push(performance.now() - started);
      text = snapshot.text;
      // A link and a button per row, the 1,000 rows themselves, and the header row and its two headers.
      expect(snapshot.refCount).toBe(3003);

      started = performance.now();
      playwrightText = await page.locator('body').ariaSnapshot();
      theirs.push(performance.now() - started);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(
      `many.html (${elements} elements, ${html} chars of HTML): ` +
        `ai snapshot median ${median(ours).toFixed(1)} ms, ${text.length} chars; ` +
        `Playwright ariaSnapshot median ${median(theirs).toFixed(1)} ms, ${playwrightText.length} chars; ` +
        `ratio ${(median(ours) / median(theirs)).toFixed(2)}x time, ${(text.length / html).toFixed(2)}x HTML size`,
    );

    expect(text).toContain('- link "Item 1000" [url=/items/1000] [ref=e3002]');
    expect(text.length).toBeLessThan(html);
  });
});
