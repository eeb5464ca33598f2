import { describe, expect, it } from 'vitest';
import type { OutlineNode } from '../../relay/src/page-runtime/outline-node.js';
import { fitBudget as fitLines } from '../../relay/src/snapshot/budget.js';
import { diffOutlines as diffNodes } from '../../relay/src/snapshot/outline-diff.js';
import { FIND_LIMIT, findNodes, interactiveOnly as interactiveNodes, limitDepth as limitNodes, type Shaped } from '../../relay/src/snapshot/outline-filters.js';
import { renderOutline } from '../../relay/src/snapshot/outline-render.js';
import { entryOf as outlineEntry, outlineOf } from '../harness/outline-notation.js';

/**
 * Shaping on outlines alone (written as they read, tests/harness/outline-notation.ts); the
 * browser-side behaviour is in e2e/snapshot-shaping.test.ts.
 */

const render = (roots: OutlineNode[]) => renderOutline(roots).map((line) => line.text);
const withNotes = ({ roots, notes }: Shaped) => [...render(roots), ...notes];
const interactiveOnly = (lines: string[]) => render(interactiveNodes(outlineOf(lines)));
const findLines = (lines: string[], query: string) => withNotes(findNodes(outlineOf(lines), query));
const limitDepth = (lines: string[], depth: number) => withNotes(limitNodes(outlineOf(lines), depth));
const fitBudget = (lines: string[], maxChars: number) => fitLines(renderOutline(outlineOf(lines)), maxChars).map((line) => line.text);
const diffOutlines = (before: string[], after: string[]) => {
  const diff = diffNodes(outlineOf(before), outlineOf(after));
  return { ...diff, lines: diff.lines.map((line) => line.text) };
};

const OUTLINE = [
  '- banner:',
  '  - link "Home" [ref=e1]',
  '- main:',
  '  - heading "Intro" [level=1]',
  '  - text: "Words words"',
  '  - list:',
  '    - listitem:',
  '      - link "First" [ref=e2]',
  '  - heading "Empty section" [level=2]',
  '  - text: "No controls here"',
  '  - heading "Form" [level=2]',
  '  - form "Ask":',
  '    - textbox "Question" [ref=e3]',
  '    - combobox "Topic" [ref=e4]:',
  '      - option "A" [selected] [ref=e5]',
];

describe('the outline as nodes', () => {
  it('renders each node as the line it was read from', () => {
    expect(render(outlineOf(OUTLINE))).toEqual(OUTLINE);
  });
});

describe('interactiveOnly', () => {
  it('keeps refs under their landmarks, with the nearest heading before them, and keeps nesting among what is kept', () => {
    expect(interactiveOnly(OUTLINE)).toEqual([
      '- banner:',
      '  - link "Home" [ref=e1]',
      '- main:',
      '  - heading "Intro" [level=1]',
      '  - link "First" [ref=e2]',
      '  - heading "Form" [level=2]',
      '  - form "Ask":',
      '    - textbox "Question" [ref=e3]',
      '    - combobox "Topic" [ref=e4]:',
      '      - option "A" [selected] [ref=e5]',
    ]);
  });

  it('keeps what sits inside a heading under it (Swagger UI puts a link and a button in its tag headings)', () => {
    const outline = [
      '- main:',
      '  - heading "pets Everything about pets" [level=3] [ref=e9]:',
      '    - link "pets" [ref=e10]',
      '    - text: "Everything about pets"',
      '    - button "Collapse operation" [expanded] [ref=e11]',
      '  - button "GET /pets List pets" [ref=e13]',
    ];
    expect(interactiveOnly(outline)).toEqual([
      '- main:',
      '  - heading "pets Everything about pets" [level=3] [ref=e9]:',
      '    - link "pets" [ref=e10]',
      '    - button "Collapse operation" [expanded] [ref=e11]',
      '  - button "GET /pets List pets" [ref=e13]',
    ]);
  });
});

describe('interactiveOnly on rows and links', () => {
  const todos = [
    '- main:',
    '  - list:',
    '    - listitem:',
    '      - checkbox [ref=e7]',
    '      - text: "Buy milk"',
    '    - listitem:',
    '      - checkbox [checked] [ref=e8]',
    '      - text: "Walk the dog"',
    '      - button "Delete" [ref=e9]',
    '  - link "Active" [url=http://x.test/#/active] [ref=e10]',
  ];

  it('says which row an unnamed control sits in, and drops link URLs', () => {
    expect(interactiveOnly(todos)).toEqual([
      '- main:',
      '  - checkbox [in="Buy milk"] [ref=e7]',
      '  - checkbox [checked] [in="Walk the dog"] [ref=e8]',
      '  - button "Delete" [ref=e9]',
      '  - link "Active" [ref=e10]',
    ]);
  });

  it("cuts a long row's text", () => {
    const long = 'word '.repeat(40).trim();
    const [line] = interactiveOnly(['- list:', '  - listitem:', '    - checkbox [ref=e1]', `    - text: "${long}"`]);
    expect(line).toMatch(/^- checkbox \[in="word( word)+…"\] \[ref=e1\]$/);
    expect(/in="([^"]*)"/.exec(line)![1].length).toBe(60);
  });
});

describe('findLines', () => {
  it('keeps each matching line under its landmarks and its row (not the unnamed list between), whatever the case', () => {
    expect(findLines(OUTLINE, 'first')).toEqual(['- main:', '  - listitem:', '    - link "First" [ref=e2]']);
  });

  it('brings the controls of the row a match is in; a control found by itself says its row', () => {
    const rows = [
      '- list:',
      '  - listitem:',
      '    - checkbox [ref=e7]',
      '    - text: "Buy milk"',
      '  - listitem:',
      '    - checkbox [ref=e8]',
      '    - text: "Walk the dog"',
    ];
    expect(findLines(rows, 'walk')).toEqual(['- listitem:', '  - checkbox [ref=e8]', '  - text: "Walk the dog"']);
    expect(findLines(rows, '/checkbox/')).toEqual([
      '- listitem:',
      '  - checkbox [in="Buy milk"] [ref=e7]',
      '- listitem:',
      '  - checkbox [in="Walk the dog"] [ref=e8]',
    ]);
  });

  it('takes a regular expression written /…/flags, and never matches a ref', () => {
    expect(findLines(OUTLINE, '/^\\s*- (textbox|combobox)/')).toEqual([
      '- main:',
      '  - form "Ask":',
      '    - textbox "Question" [ref=e3]',
      '    - combobox "Topic" [ref=e4]',
    ]);
    expect(findLines(OUTLINE, 'e3')).toEqual(['[find "e3": nothing on the page matches]']);
    expect(findLines(['- link "Home" [url=http://site.test/find-me] [ref=e1]'], 'find-me')).toEqual(['[find "find-me": nothing on the page matches]']);
  });

  it('skips unnamed wrappers on the path, and shows at most FIND_LIMIT matches with a note', () => {
    const many = ['- main:', '  - generic:', ...Array.from({ length: FIND_LIMIT + 5 }, (_, i) => `    - link "Item ${i}" [ref=e${i}]`)];
    const found = findLines(many, 'item');
    expect(found[0]).toBe('- main:');
    expect(found.filter((line) => line.includes('link'))).toHaveLength(FIND_LIMIT);
    expect(found.some((line) => line.includes('generic'))).toBe(false);
    expect(found.at(-1)).toBe(`[find "item": ${FIND_LIMIT + 5} matches, the first ${FIND_LIMIT} shown: narrow it]`);
  });
});

describe('limitDepth', () => {
  it('keeps the top levels and counts what it left out', () => {
    expect(limitDepth(OUTLINE, 1)).toEqual([
      '- banner:',
      '- main:',
      '[depth=1: 13 deeper lines not shown (5 with refs); raise depth, or scope to the ref of a section]',
    ]);
    expect(limitDepth(OUTLINE, 10)).toEqual(OUTLINE);
  });
});

describe('fitBudget', () => {
  it('returns what fits as it is', () => {
    expect(fitBudget(OUTLINE, 10_000)).toEqual(OUTLINE);
  });
  it('cuts at a line, stays within the budget, and names the next sections', () => {
    const long = Array.from({ length: 40 }, (_, i) => [`- heading "Part ${i}" [level=2]`, `- text: "${'x'.repeat(60)}"`]).flat();
    const fitted = fitBudget(long, 1000);
    expect(fitted.join('\n').length).toBeLessThanOrEqual(1000);
    expect(fitted.at(-1)).toMatch(/^\[cut at maxChars=1000: \d+ more lines \(0 with refs\) not shown; next: heading "Part \d+" \[level=2\] \| /);
    expect(long.slice(0, fitted.length - 1)).toEqual(fitted.slice(0, -1));
  });
  it('counts its note in the budget when the sections it names are long', () => {
    const long = Array.from({ length: 60 }, (_, i) => [
      `- heading "A section title that is rather long indeed, number ${i}" [level=2]`,
      `- link "item ${i} ${'y'.repeat(40)}" [ref=e${i}]`,
    ]).flat();
    for (const maxChars of [500, 800, 1_000, 2_000, 4_000]) {
      const fitted = fitBudget(long, maxChars);
      expect(fitted.join('\n').length, `maxChars ${maxChars}`).toBeLessThanOrEqual(maxChars);
      expect(fitted.at(-1)).toMatch(/^\[cut at maxChars=\d+: \d+ more lines \(\d+ with refs\) not shown; next: /);
    }
  });
});

describe('diffOutlines', () => {
  it('shows a changed element once, as it is now, under its nearest unchanged enclosing line', () => {
    const after = OUTLINE.map((line) => (line.includes('Question') ? '    - textbox "Question" [value=hi] [ref=e3]' : line));
    const diff = diffOutlines(OUTLINE, after);
    expect(diff.lines).toEqual(['    - form "Ask":', '~     - textbox "Question" [value="hi"] [ref=e3]']);
    expect(diff).toMatchObject({ added: 0, removed: 0, changed: 1, unchanged: OUTLINE.length - 1 });
  });
  it('does not count focus moving as a change', () => {
    const after = OUTLINE.map((line) => (line.includes('Question') ? '    - textbox "Question" [focused] [ref=e3]' : line));
    expect(diffOutlines(OUTLINE, after).lines).toEqual([]);
  });
  it('shows removed lines as they were', () => {
    const after = OUTLINE.filter((line) => !line.includes('Home'));
    expect(diffOutlines(OUTLINE, after).lines).toEqual(['  - banner:', '-   - link "Home" [ref=e1]']);
  });
  it('shows an inserted item alone', () => {
    const after = [...OUTLINE.slice(0, 8), '    - listitem:', '      - link "Second" [ref=e6]', ...OUTLINE.slice(8)];
    expect(diffOutlines(OUTLINE, after).lines).toEqual(['    - list:', '+     - listitem:', '+       - link "Second" [ref=e6]']);
  });
  it('finds nothing when nothing changed', () => {
    expect(diffOutlines(OUTLINE, OUTLINE)).toEqual({ lines: [], added: 0, removed: 0, changed: 0, unchanged: OUTLINE.length });
  });
});

describe('the cut note', () => {
  it('gives a landmark the page has once a selector handle by its role word', () => {
    const outline = [
      '- navigation "toc":',
      ...Array.from({ length: 40 }, (_, i) => `  - link "Entry ${i}" [ref=e${i + 1}]`),
      '- main:',
      '  - heading "Title" [level=1]',
      '  - text: "Body"',
    ];
    const note = fitBudget(outline, 600).at(-1)!;
    expect(note).toMatch(/next: .*\| main \[selector=main\]|next: main \[selector=main\]/);
    expect(note).not.toMatch(/heading "Title" \[level=1\] \[selector/);
  });
});

describe('outlineEntry', () => {
  it('reads a line as its role, name and ref; the ref is the last one, whatever the name holds', () => {
    expect(outlineEntry('    - button "Save [ref=e1]" [checked] [ref=e12]')).toEqual({ role: 'button', name: 'Save [ref=e1]', ref: 'e12' });
    expect(outlineEntry('- textbox "Say \\"hi\\"" [ref=f1e3]: hello')).toEqual({ role: 'textbox', name: 'Say "hi"', ref: 'f1e3' });
    expect(outlineEntry('  - navigation:')).toEqual({ role: 'navigation' });
    expect(outlineEntry('[truncated at limit=5 lines]')).toBeUndefined();
  });
});
