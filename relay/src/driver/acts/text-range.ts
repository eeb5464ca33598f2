import type { ElementHandle } from 'playwright-core';
import { ConflictError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';
import { cursorOf, moveMouse, type Point } from './pointer.js';

/**
 * Text selected as a person selects it: the mouse pressed just inside the
 * first letter, dragged to just inside the last, released. The browser makes
 * the selection itself, so the page's `selectstart`, `selectionchange` and
 * `mouseup` handlers (a "highlight" or "comment" button that appears over a
 * selection) see a person's. The text is found in the ref's element as a
 * person reads it (white space as it is shown), its first occurrence unless
 * more of the text is given; with coordinates, the drag is between the two
 * points. What is selected afterwards is read back and said; where the mouse
 * could not select it (`user-select: none`, a draggable element under the
 * text) it is selected through the page's Selection API, and the answer says
 * that the page's mouse handlers did not see it.
 */

export interface TextSelection {
  /** What is selected now, as the page's `getSelection()` says it. */
  selection: string;
  /** mouse: a person's drag made it; field: a text field's own selection; script: the Selection API, the mouse having failed. */
  selectedBy: 'mouse' | 'field' | 'script';
  /** The text was found this many times in the element (the first was selected). */
  occurrences?: number;
  /** Where the mouse pressed and released, for a script that replays it. */
  from?: Point;
  to?: Point;
}

/** Mouse events while the selection is dragged out: a few, as a hand's drag across words gives. */
const SELECT_STEPS = 6;

/** Where the text is in the element: the points inside its first and last letters, or how the element's text reads when it is not there. */
type Located = { from: Point; to: Point; occurrences: number; field?: undefined } | { field: { start: number; end: number }; occurrences: number } | { missing: string };

export async function selectTextIn(tab: DriverTab, element: ElementHandle, ref: string, text: string | undefined, signal?: AbortSignal): Promise<TextSelection> {
  await element.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {});
  const located = (await element.evaluate(locateText, text ?? null)) as Located;
  if ('missing' in located) {
    const reads = located.missing ? `; it reads ${JSON.stringify(located.missing)}` : ' (it has no text)';
    throw new ConflictError(`${ref} does not hold the text ${JSON.stringify(text ?? '')}${reads}. Give the text as the element shows it, or a ref of the element that holds it.`);
  }
  if (located.field) {
    await element.focus();
    await element.evaluate((el, range) => (el as HTMLInputElement).setSelectionRange(range.start, range.end), located.field);
    return { ...(await readSelection(element)), selectedBy: 'field', occurrences: located.occurrences };
  }
  await dragSelect(tab, located.from, located.to, signal);
  const read = await readSelection(element);
  const wanted = collapse(text ?? (await element.evaluate((el) => (el as HTMLElement).innerText ?? el.textContent ?? '')));
  if (collapse(read.selection) === wanted || collapse(read.selection).includes(wanted)) return { ...read, selectedBy: 'mouse', occurrences: located.occurrences, from: located.from, to: located.to };
  // The mouse did not make it (the page stops selection, or dragged something instead): the Selection API does.
  await element.evaluate(selectByScript, text ?? null);
  return { ...(await readSelection(element)), selectedBy: 'script', occurrences: located.occurrences };
}

/** A selection dragged between two points of the page (the coordinates' way). */
export async function selectTextBetween(tab: DriverTab, from: Point, to: Point, signal?: AbortSignal): Promise<TextSelection> {
  await dragSelect(tab, from, to, signal);
  const selection = await tab.page.evaluate(() => getSelection()?.toString() ?? '');
  return { selection, selectedBy: 'mouse', from, to };
}

async function dragSelect(tab: DriverTab, from: Point, to: Point, signal?: AbortSignal): Promise<void> {
  await moveMouse(tab, from, cursorOf(tab).x === from.x && cursorOf(tab).y === from.y ? 1 : 2, signal);
  tab.markPointer('press', from);
  await tab.page.mouse.down();
  try {
    await moveMouse(tab, to, SELECT_STEPS, signal);
  } finally {
    await tab.page.mouse.up();
  }
}

function readSelection(element: ElementHandle): Promise<{ selection: string }> {
  return element.evaluate((node) => {
    const el = node as Element;
    const field = el as HTMLInputElement;
    if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && typeof field.selectionStart === 'number')
      return { selection: field.value.slice(field.selectionStart, field.selectionEnd ?? field.selectionStart) };
    return { selection: el.ownerDocument.getSelection()?.toString() ?? '' };
  });
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * In the page (the ref's element, in the snapshot engine's isolated world):
 * the text's first occurrence, matched with white space collapsed as a
 * person reads it (then ignoring case), and the points just inside its
 * first and last letters; a field's own offsets.
 */
function locateText(el: Element, wanted: string | null): unknown {
  const squash = (text: string) => text.replace(/\s+/g, ' ');
  const field = el as HTMLInputElement;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    const value = field.value;
    const target = wanted ?? value;
    let start = value.indexOf(target);
    if (start < 0) start = value.toLowerCase().indexOf(target.toLowerCase());
    if (start < 0 || !target) return { missing: squash(value).slice(0, 200) };
    return { field: { start, end: start + target.length }, occurrences: value.split(target).length - 1 };
  }
  // The element's text, one entry per shown character, white space runs counted once.
  const chars: Array<{ node: Text; offset: number }> = [];
  let shown = '';
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  // Blocks (list items, paragraphs) read apart, as a person sees them, even with no space between them in the markup.
  const blockOf = (node: Node): Element | null => {
    for (let at = node.parentElement; at; at = at.parentElement) if (!getComputedStyle(at).display.startsWith('inline')) return at;
    return null;
  };
  let block: Element | null | undefined;
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const parent = node.parentElement;
    if (parent && (!parent.checkVisibility() || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(parent.tagName))) continue;
    const data = node.data;
    if (!data.trim()) {
      if (!data.length) continue;
    } else {
      const its = blockOf(node);
      if (block !== undefined && its !== block && shown !== '' && !shown.endsWith(' ')) {
        shown += ' ';
        chars.push(chars[chars.length - 1]);
      }
      block = its;
    }
    for (let i = 0; i < data.length; i++) {
      const space = /\s/.test(data[i]);
      if (space && (shown.endsWith(' ') || shown === '')) continue;
      shown += space ? ' ' : data[i];
      chars.push({ node, offset: i });
    }
  }
  while (shown.endsWith(' ')) {
    shown = shown.slice(0, -1);
    chars.pop();
  }
  const needle = wanted === null ? shown : squash(wanted).trim();
  if (!needle) return { missing: shown.slice(0, 200) };
  let start = shown.indexOf(needle);
  let haystack = shown;
  let target = needle;
  if (start < 0) {
    haystack = shown.toLowerCase();
    target = needle.toLowerCase();
    start = haystack.indexOf(target);
  }
  if (start < 0) return { missing: shown.slice(0, 200) };
  const occurrences = haystack.split(target).length - 1;
  // A press inside what is selected would drag that text away: a selection left from before is let go first, as a person's click elsewhere would.
  const previous = el.ownerDocument.getSelection();
  if (previous && !previous.isCollapsed) previous.removeAllRanges();
  const letter = (index: number) => {
    const { node, offset } = chars[index];
    const range = el.ownerDocument.createRange();
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    const rects = [...range.getClientRects()].filter((rect) => rect.width > 0 && rect.height > 0);
    return rects[0] ?? range.getBoundingClientRect();
  };
  const first = letter(start);
  const last = letter(start + needle.length - 1);
  // Inside the first letter's left part (the caret lands before it) and the last letter's right part (after it).
  return {
    from: { x: first.left + Math.min(first.width * 0.3, 3), y: first.top + first.height / 2 },
    to: { x: last.right - Math.min(last.width * 0.3, 3), y: last.top + last.height / 2 },
    occurrences,
  };
}

/** In the page: the text's first occurrence selected through the Selection API (the mouse could not). */
function selectByScript(el: Element, wanted: string | null): void {
  const doc = el.ownerDocument;
  const selection = doc.getSelection();
  if (!selection) return;
  const range = doc.createRange();
  if (wanted === null) range.selectNodeContents(el);
  else {
    const nodes: Text[] = [];
    const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) nodes.push(node);
    const whole = nodes.map((node) => node.data).join('');
    const pattern = new RegExp(wanted.trim().split(/\s+/).map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'), 'i');
    const match = pattern.exec(whole);
    if (!match) return;
    const at = (index: number, end: boolean): [Text, number] => {
      let passed = 0;
      for (const node of nodes) {
        if (index < passed + node.data.length || (end && index === passed + node.data.length)) return [node, index - passed];
        passed += node.data.length;
      }
      const last = nodes[nodes.length - 1];
      return [last, last.data.length];
    };
    range.setStart(...at(match.index, false));
    range.setEnd(...at(match.index + match[0].length, true));
  }
  selection.removeAllRanges();
  selection.addRange(range);
}
