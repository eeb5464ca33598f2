import type { ContentText } from './content-names.js';
import { givenName } from './given-names.js';
import type { OutlineNode } from './outline-node.js';
import { FORM_CONTROLS } from './roles.js';
import { clip, NAME_MAX, URL_MAX } from './words.js';

/**
 * What an element holds and how it stands, as node fields (outline-node.ts):
 * its states (checked, expanded, disabled, focused…), its value, a link's
 * address, a drop-down's choices.
 */

/** A drop-down's choices shown on its line; the rest are counted. */
const CHOICES_SHOWN = 60;

export function readStates(el: Element, tag: string, role: string, node: OutlineNode, focused: Element | null): void {
  if (role === 'heading') {
    const level = el.getAttribute('aria-level') ?? (tag.length === 2 && tag[0] === 'h' ? tag[1] : '');
    if (level) node.level = level;
  }
  const ariaChecked = el.getAttribute('aria-checked');
  if (tag === 'input' && (role === 'checkbox' || role === 'radio')) {
    const input = el as HTMLInputElement;
    if (input.indeterminate) node.checked = 'mixed';
    else if (input.checked) node.checked = true;
  } else if (ariaChecked === 'true') node.checked = true;
  else if (ariaChecked === 'mixed') node.checked = 'mixed';
  if (el.getAttribute('aria-pressed') === 'true') node.pressed = true;
  if (el.getAttribute('aria-disabled') === 'true' || (FORM_CONTROLS.has(tag) || tag === 'button' || tag === 'fieldset' ? el.matches(':disabled') : false))
    node.disabled = true;
  const expanded = tag === 'summary' ? String((el.parentElement as HTMLDetailsElement | null)?.open ?? false) : el.getAttribute('aria-expanded');
  if (expanded === 'true') node.expanded = true;
  else if (expanded === 'false') node.expanded = false;
  if ((tag === 'option' && (el as HTMLOptionElement).selected) || el.getAttribute('aria-selected') === 'true') node.selected = true;
  if ((el as HTMLInputElement).required || el.getAttribute('aria-required') === 'true') node.required = true;
  if (((tag === 'input' || tag === 'textarea') && (el as HTMLInputElement).readOnly) || el.getAttribute('aria-readonly') === 'true') node.readonly = true;
  if (el === focused) node.focused = true;
}

/** What a field holds, a meter shows or a widget says it is at ('' for nothing); `editor`: the whole document is one. */
export function valueOf(el: Element, tag: string, role: string, editor: boolean, contentText: ContentText): string {
  if (tag === 'input') {
    const input = el as HTMLInputElement;
    if (input.type === 'checkbox' || input.type === 'radio' || role === 'button') {
      if (input.type === 'file' && input.files?.length) return [...input.files].map((file) => file.name).join(', ');
      return '';
    }
    // An agent needs to know a password was typed, never what it is.
    if (input.type === 'password') return input.value ? '•'.repeat(Math.min(input.value.length, 8)) : '';
    return input.value;
  }
  if (tag === 'textarea') return (el as HTMLTextAreaElement).value;
  if (tag === 'select') {
    const select = el as HTMLSelectElement;
    return select.multiple ? '' : (select.selectedOptions[0]?.label ?? '');
  }
  if (tag === 'progress' || tag === 'meter') {
    const meter = el as HTMLProgressElement;
    return meter.max ? `${Math.round((meter.value / meter.max) * 100)}%` : String(meter.value);
  }
  // What an editor shows: its scripts and hidden parts are not its text (the value is clipped anyway).
  // What is typed, without CSS-drawn text (Quill's placeholder is `::before { content: attr(data-placeholder) }`).
  if (role === 'textbox' && ((el as HTMLElement).isContentEditable || (el === document.body && editor))) return contentText(el, false);
  return el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? '';
}

/** A drop-down's choices by label, on its line: its options have no box to click, `select` takes a label. */
export function putChoices(select: HTMLSelectElement, node: OutlineNode): void {
  node.options = [...select.options].slice(0, CHOICES_SHOWN).map((option) => clip(givenName(option, 'option'), NAME_MAX));
  const more = select.options.length - CHOICES_SHOWN;
  if (more > 0) node.moreOptions = more;
}

/** What a page may write in an href that the address it means would not hold: a line break or another control. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Same-origin links as a path (shorter, and stable across hosts); others in full. The attribute is read
 * first: resolving every href (and reading location) is a measurable part of the walk on link-heavy pages.
 * A path that holds a control character is resolved, as the browser reads it (newlines dropped, the rest
 * escaped), so no href of the page's making breaks its line.
 */
export function urlOf(el: Element, origin: string): string {
  const written = el.getAttribute('href') ?? '';
  if (written[0] === '/' && written[1] !== '/' && !CONTROL.test(written)) return clip(written, URL_MAX);
  const href = (el as HTMLAnchorElement).href || written;
  const short = origin !== 'null' && href.startsWith(origin + '/') ? href.slice(origin.length) : href;
  return clip(short, URL_MAX);
}

/**
 * What a field holds, exactly, for `text` on its ref (undefined for anything that is not a field):
 * a text input's or a text area's value as typed, a select's chosen labels, a password as dots.
 */
export function fieldText(el: Element): string | undefined {
  if (el.localName === 'textarea') return (el as HTMLTextAreaElement).value;
  if (el.localName === 'select') return [...(el as HTMLSelectElement).selectedOptions].map((option) => option.label).join('\n');
  if (el.localName !== 'input') return undefined;
  const input = el as HTMLInputElement;
  if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(input.type)) return undefined;
  return input.type === 'password' ? '•'.repeat(Math.min(input.value.length, 8)) : input.value;
}
