import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refOf } from '../harness/refs.js';
import { startPythonDocsSite } from '../harness/python-docs.js';
import type { startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A page's readable content as Markdown (`GET /text`, the client, the CLI's
 * `text`, MCP's `browser_snapshot {markdown}`): an article fixture on both
 * profiles, checked line by line, and Python's documentation of `os`, a page
 * nobody here wrote and longer than the default cap.
 */

let env: ControlEnv;
let docs: Awaited<ReturnType<typeof startTestSite>>;

beforeAll(async () => {
  docs = await startPythonDocsSite();
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
  await docs?.close();
});

describe.each(['clawd', 'extension'])('the %s profile reads a page as Markdown', (profile) => {
  it('the main content: headings, emphasis, absolute links, nested lists, a table, a quote, code; not what is hidden, the navigation or the form', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('article.html'));
    const page = await client.text({ targetId });
    const base = env.fixtures.url('');
    expect(page).toMatchObject({ targetId, title: 'Release notes', truncated: false, chars: page.markdown.length });
    const lines = page.markdown.split('\n');
    expect(lines[0]).toBe('# Release notes');
    expect(page.markdown).toContain(
      `Version **2.0** adds *streams* and fixes [the upload bug](${new URL('/issues/7', base).href}). Run \`npm i widget\` to get it.`,
    );
    expect(page.markdown).toContain('## What changed\n\n- Streams\n  - readable\n  - writable\n- Faster [benchmarks](https://example.com/bench?x=1)');
    expect(page.markdown).toContain('3. third\n4. fourth');
    expect(page.markdown).toContain('Bundle sizes\n\n| Build | KiB |\n| --- | --- |\n| min | 12 |\n| full \\| debug | 48 |');
    expect(page.markdown).toContain('> Fast enough.');
    expect(page.markdown).toContain('```js\nconst a = 1;\nif (a) {\n  run();\n}\n```');
    expect(page.markdown).toContain(`An image: ![the logo](${new URL('/logo.png', base).href}), and a form the text leaves out:`);
    expect(page.markdown.trimEnd().endsWith('## Appendix\n\nLast words.')).toBe(true);
    for (const absent of ['nobody sees', 'Invisible', 'Hidden by attribute', 'Related', '© the authors', 'typed', 'Send', 'Blog'])
      expect(page.markdown).not.toContain(absent);

    // Scoped: a selector, or a ref from the latest snapshot.
    expect((await client.text({ targetId, selector: '#appendix' })).markdown).toBe('## Appendix\n\nLast words.');
    const { text } = await client.snapshot({ targetId });
    const link = refOf(String(text), 'link "the upload bug"');
    expect((await client.text({ targetId, ref: link })).markdown).toBe(`[the upload bug](${new URL('/issues/7', base).href})`);
    await client.closeTab(targetId);
  });

  it("a field's value is quoted and exact in the outline, cut when long, and read whole by its ref", async () => {
    const client = env.client(profile);
    const exact = 'Risus donec mi, odio accumsan tellus enim, ';
    const long = 'Lorem ipsum dolor sit amet. '.repeat(20);
    const html = `<label>Note <textarea id="note"></textarea></label><label>Essay <textarea id="essay"></textarea></label>
      <script>note.value = ${JSON.stringify(exact)}; essay.value = ${JSON.stringify(long)};</script>`;
    const { targetId } = await client.openTab(env.fixtures.url(`echo?body=${encodeURIComponent(html)}`));
    const { text } = await client.snapshot({ targetId });
    expect(text).toContain(`textbox "Note" [value=${JSON.stringify(exact)}]`);
    expect(text).toContain(`textbox "Essay" [value=${JSON.stringify(long.slice(0, 100))}…+${long.length - 100} chars]`);
    // What the page compares is what text --ref gives back.
    expect((await client.text({ targetId, ref: refOf(text, 'textbox "Note"') })).markdown).toBe(exact);
    expect((await client.text({ targetId, ref: refOf(text, 'textbox "Essay"') })).markdown).toBe(long);
  });

  it('bad input is a 4xx naming it, and nothing else changes', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('article.html'));
    await expect(client.text({ targetId, selector: '#nowhere' })).rejects.toThrow(/No element matches "#nowhere"/);
    await expect(client.text({ targetId, selector: '[[' })).rejects.toThrow(/Invalid selector/);
    await expect(client.text({ targetId, ref: 'e99999' })).rejects.toThrow(/e99999/);
    const raw = await env.raw(`/text?profile=${profile}&targetId=${targetId}&maxChars=10`);
    expect(raw.status).toBe(400);
    expect((await raw.json()).error.message).toMatch(/maxChars/);
    expect((await client.text({ targetId })).markdown).toMatch(/^# Release notes/);
    await client.closeTab(targetId);
  });
});

describe("Python's os documentation as Markdown", () => {
  it('is cut at maxChars with a note naming what follows, and a section reads whole by its selector', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${docs.url}/library/os.html`);
    const page = await client.text({ targetId, maxChars: 6_000 });
    expect(page.truncated).toBe(true);
    expect(page.chars).toBeGreaterThan(100_000);
    expect(page.markdown.length).toBeLessThanOrEqual(6_000);
    expect(page.markdown).toMatch(/^# \[`os`\]\(http:\/\/127\.0\.0\.1:\d+\/library\/os\.html#module-os\) — Miscellaneous operating system interfaces\n/);
    expect(page.markdown).toMatch(
      /\n\[cut at maxChars=6000: \d+ more characters \(\d+ lines\) not shown; next: .+\. For more: a larger maxChars, or scope to a ref or selector\]$/,
    );
    // Sphinx's sidebar and search are around the main content, not in it.
    expect(page.markdown).not.toMatch(/Quick search/);
    const section = await client.text({ targetId, selector: '#process-parameters', maxChars: 200_000 });
    expect(section.truncated).toBe(false);
    expect(section.markdown).toMatch(/^## Process Parameters/);
    // Sphinx's definition lists: the name as a term, its text under it, code in links kept as code.
    expect(section.markdown).toContain('**os.environ**\n\n: A [mapping](');
    expect(section.markdown).toMatch(/\[`os\.environ`\]\(http:\/\/127\.0\.0\.1:\d+\/library\/os\.html#os\.environ\)/);
    await client.closeTab(targetId);
  });
});
