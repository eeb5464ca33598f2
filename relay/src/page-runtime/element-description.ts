/**
 * What names an element besides its role and accessible name, for a locator
 * a person would write (driver/script-recorder.ts, replay/locator-choice.ts):
 * its test id, its label, its own text and a CSS path, each with how many
 * elements of the document it would match. Runs in the page, in an isolated
 * world: the snapshot engine's (`describe`, for a ref an agent acted on) and
 * the person's watch's (person-watch.ts, for what a person did, at the moment
 * they did it).
 *
 * The counts are taken as Playwright's locators match: a test id by
 * `data-testid`; a label whole, whitespace collapsed, from `<label>`s,
 * `aria-labelledby` and `aria-label`; text as the innermost elements whose
 * own text is it, whole.
 */

export interface ElementDescription {
  testId: string | null;
  testIdCount: number;
  label: string;
  labelCount: number;
  /** Its own text, when it is short (80 characters at most); '' otherwise. */
  text: string;
  textCount: number;
  /** A unique id ends it, else each step is the tag and its place among its like. */
  css: string;
}

/**
 * `counts: false` when the caller counts with Playwright itself (an agent's act, before it runs), or
 * needs none (a role and name that already match one element): counting walks the document.
 */
export function describeElement(element: Element, counts = true): ElementDescription {
  const collapse = (text: string | null | undefined): string =>
    String(text ?? '')
      .replace(/\s+/g, ' ')
      .trim();
  const labelOf = (el: Element): string => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy
        .split(/\s+/)
        .map((id) => collapse(document.getElementById(id)?.textContent))
        .filter(Boolean)
        .join(' ');
      if (text) return text;
    }
    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length) {
      // A label around its control names it by its own words, not the control's (a select's options).
      const without = (node: Node): string =>
        [...node.childNodes]
          .map((child) => (child === el ? '' : child.nodeType === 3 ? (child as Text).data : child.nodeType === 1 ? without(child) : ''))
          .join('');
      const text = collapse([...labels].map(without).join(' '));
      if (text) return text;
    }
    return collapse(el.getAttribute('aria-label'));
  };
  const labelled = 'input, select, textarea, button, meter, output, progress, [aria-label], [aria-labelledby]';

  const testId = element.getAttribute('data-testid');
  const testIdCount = testId === null || !counts ? 0 : document.querySelectorAll(`[data-testid="${CSS.escape(testId)}"]`).length;

  const label = labelOf(element);
  let labelCount = 0;
  if (label && counts) for (const other of document.querySelectorAll(labelled)) if (labelOf(other) === label) labelCount++;

  const own = collapse((element as HTMLElement).innerText || element.textContent);
  const text = own.length <= 80 ? own : '';
  let textCount = 0;
  if (text && counts && document.body) {
    // Innermost: an element whose text is it, with no child whose text is it too. Its raw text is a cheap
    // first look (no layout), so only the few elements that hold the words have their rendered text read.
    for (const other of document.body.getElementsByTagName('*')) {
      const raw = other.textContent ?? '';
      if (raw.length < text.length || !collapse(raw).includes(text)) continue;
      if (collapse((other as HTMLElement).innerText || raw) !== text) continue;
      if (![...other.children].some((child) => collapse((child as HTMLElement).innerText || child.textContent) === text)) textCount++;
    }
  }

  const steps: string[] = [];
  for (let node: Element | null = element; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
    if (node.id && document.querySelectorAll('#' + CSS.escape(node.id)).length === 1) {
      steps.unshift('#' + CSS.escape(node.id));
      break;
    }
    const tag = node.tagName.toLowerCase();
    const current: Element = node;
    const like = current.parentElement ? [...current.parentElement.children].filter((child) => child.tagName === current.tagName) : [current];
    steps.unshift(like.length > 1 ? `${tag}:nth-of-type(${like.indexOf(current) + 1})` : tag);
  }
  return { testId, testIdCount, label, labelCount, text, textCount, css: steps.join(' > ') };
}
