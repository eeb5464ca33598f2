import { collapse, flatText } from './words.js';

/**
 * The names an author gives an element (accname's sources before its
 * content): aria-labelledby, aria-label, its <label>s, alt text, a legend or
 * caption; and the last resorts after its content, a tooltip or a
 * placeholder. The walk (walk.ts) reads its content between the two
 * (content-names.ts).
 */

/** The name an author gave: aria, a <label>, alt text, a legend... ('' when none). */
export function givenName(el: Element, tag: string): string {
  const labelledBy = el.getAttribute('aria-labelledby');
  if (labelledBy) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const text = collapse(
      labelledBy
        .split(/\s+/)
        .map((id) => {
          const source = id && root.getElementById(id);
          return source ? flatText(source) : '';
        })
        .join(' '),
    );
    if (text) return text;
  }
  const ariaLabel = el.getAttribute('aria-label');
  if (ariaLabel && ariaLabel.trim()) return collapse(ariaLabel);

  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) {
    // A label's text without the text of the control it wraps (a <select>'s options, say).
    const text = collapse([...labels].map((label) => flatText(label, el)).join(' '));
    if (text) return text;
  }
  switch (tag) {
    case 'input': {
      const input = el as HTMLInputElement;
      if (input.type === 'submit') return collapse(input.value) || 'Submit';
      if (input.type === 'reset') return collapse(input.value) || 'Reset';
      if (input.type === 'button') return collapse(input.value);
      if (input.type === 'image') return collapse(input.alt || input.value) || 'Submit';
      return '';
    }
    case 'img':
    case 'area':
      return collapse(el.getAttribute('alt') ?? '');
    case 'fieldset':
      return collapse(el.querySelector(':scope > legend')?.textContent ?? '');
    case 'table':
      return collapse((el as HTMLTableElement).caption?.textContent ?? '');
    case 'option':
      return collapse((el as HTMLOptionElement).label || el.textContent || '');
    default:
      return '';
  }
}

/**
 * Last resort names: a tooltip, a placeholder. A tooltip names only what a person can hover
 * (`hoverable`, asked only when there is one): the title of a link with no box is text nobody sees.
 */
export function hintName(el: Element, tag: string, hoverable: () => boolean): string {
  const title = el.getAttribute('title');
  if (title && title.trim() && hoverable()) return collapse(title);
  // A placeholder names only what takes text: on a <select> (Tom Select's) it is not read.
  const placeholder = (tag === 'input' || tag === 'textarea' ? el.getAttribute('placeholder') : null) ?? el.getAttribute('aria-placeholder');
  if (placeholder && placeholder.trim()) return collapse(placeholder);
  if (tag === 'svg') return collapse(el.querySelector('title')?.textContent ?? '');
  return '';
}
