import { FORM_CONTROLS, SKIPPED } from './roles.js';

/**
 * Words as the outline reads them: whitespace collapsed, clipped to what a
 * line shows, an element's text in the flat tree, and the text CSS draws.
 */

/** The longest name, value and option label a line shows; text runs are clipped at TEXT_MAX. */
export const NAME_MAX = 80;
export const TEXT_MAX = 200;
/** The longest start of a field's value a line shows (the rest is counted). */
export const VALUE_MAX = 100;
export const URL_MAX = 120;

/** Zero-width spaces and soft hyphens (Swagger UI breaks paths with them) are not heard: gone, as accname drops them. */
export const collapse = (text: string): string =>
  text
    .replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

export const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max - 1) + '…' : text);

/**
 * An element's text in the flat tree (a slot's assigned nodes, a host's shadow root), as the
 * accessibility tree reads a label: <x-checkbox>Subscribe</x-checkbox> names the checkbox
 * inside its shadow root through the slot. `skip` (a label's own control) is left out.
 */
export function flatText(node: Node, skip?: Element): string {
  if (node.nodeType === Node.TEXT_NODE) return (node as Text).data;
  if (node.nodeType !== Node.ELEMENT_NODE) return '';
  const el = node as Element;
  if (el === skip || SKIPPED.has(el.localName)) return '';
  if (skip && FORM_CONTROLS.has(el.localName)) return '';
  const assigned = el.localName === 'slot' ? (el as HTMLSlotElement).assignedNodes() : [];
  const children: ArrayLike<Node> = assigned.length ? assigned : (el.shadowRoot ?? el).childNodes;
  let text = '';
  for (let i = 0; i < children.length; i++) text += flatText(children[i], skip);
  return text;
}

/**
 * CSS generated text, which counts in a name from content as in the accessibility tree: Quill's
 * header picker is a button whose only text is `content: attr(data-label)` or "Normal".
 * Icon-font glyphs (private use area) say nothing and are left out.
 */
export function generatedText(el: Element, pseudo: '::before' | '::after'): string {
  const content = getComputedStyle(el, pseudo).content;
  if (!content || content === 'none' || content === 'normal') return '';
  let text = '';
  for (const [, quoted, attribute] of content.matchAll(/"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)\s*\)/g)) {
    text += quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (el.getAttribute(attribute) ?? '');
  }
  return text.replace(/[\ue000-\uf8ff]/g, '');
}
