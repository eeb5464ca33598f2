/**
 * Text found and selected as a person reads it (driver/acts/text-range.ts
 * drags the mouse over it): in the engine's world, so the page's own
 * `getComputedStyle`, `getSelection` or `Range` cannot be rewritten under it.
 * The element is the op's root: a ref's, or the page's body.
 */

interface Point {
  x: number;
  y: number;
}

/** Where the text is in the element: the points inside its first and last letters, a field's own offsets, or how the element reads when it is not there. */
export type TextLocation =
  { from: Point; to: Point; occurrences: number; field?: undefined } | { field: { start: number; end: number }; occurrences: number } | { missing: string };

const SKIPPED = ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'];

const squash = (text: string) => text.replace(/\s+/g, ' ');
const isField = (el: Element): el is HTMLInputElement | HTMLTextAreaElement => el.tagName === 'INPUT' || el.tagName === 'TEXTAREA';

/** A field's own text: its value's offsets, matched as given (then ignoring case). */
function locateInField(field: HTMLInputElement | HTMLTextAreaElement, wanted: string | null): TextLocation {
  const value = field.value;
  const target = wanted ?? value;
  let start = value.indexOf(target);
  if (start < 0) start = value.toLowerCase().indexOf(target.toLowerCase());
  if (start < 0 || !target) return { missing: squash(value).slice(0, 200) };
  return { field: { start, end: start + target.length }, occurrences: value.split(target).length - 1 };
}

/** The element's text as it is shown, one entry per shown character, white space runs counted once, blocks read apart. */
function shownText(el: Element): { shown: string; chars: Array<{ node: Text; offset: number }> } {
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
    if (parent && (!parent.checkVisibility() || SKIPPED.includes(parent.tagName))) continue;
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
  return { shown, chars };
}

/**
 * The text's first occurrence in `el`, matched with white space collapsed as
 * a person reads it (then ignoring case), and the points just inside its
 * first and last letters; a field's own offsets. The whole text when
 * `wanted` is null.
 */
export function locateText(el: Element, wanted: string | null): TextLocation {
  if (isField(el)) return locateInField(el, wanted);
  const { shown, chars } = shownText(el);
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

/** The text's first occurrence selected through the Selection API (the mouse could not), or a field's range; the whole element's when `wanted` is null. */
export function selectByScript(el: Element, wanted: string | null): void {
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
    const pattern = new RegExp(
      wanted
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+'),
      'i',
    );
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

/** A field's range of its value selected, as the field keeps it. */
export function selectInField(el: Element, range: { start: number; end: number }): void {
  if (isField(el)) el.setSelectionRange(range.start, range.end);
}

/** What is selected now: a field's own selection, else the document's; with the element's shown text (what a whole selection holds). */
export function readSelection(el: Element): { selection: string; text: string } {
  const text = (el as HTMLElement).innerText ?? el.textContent ?? '';
  if (isField(el) && typeof el.selectionStart === 'number') return { selection: el.value.slice(el.selectionStart, el.selectionEnd ?? el.selectionStart), text };
  return { selection: el.ownerDocument.getSelection()?.toString() ?? '', text };
}
