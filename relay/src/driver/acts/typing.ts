import type { ElementHandle, Page } from 'playwright-core';
import { ConflictError } from '../../errors.js';
import { ACTION_TIMEOUT_MS } from '../../api/limits.js';
import { actionable } from './actionability.js';

/**
 * Where typed text goes, decided at once from what the element is:
 * - a *field* (an `<input>` that takes text, a `<textarea>`, a
 *   contenteditable): its value is replaced, as Playwright's `fill` does,
 *   or typed key by key with `slowly`;
 * - anything else that takes text from the keyboard (a code editor that
 *   edits through an EditContext, or a widget with a hidden input inside):
 *   it is focused, as a person's click would, and the text is typed as keys
 *   at its caret. `fill` would wait its whole timeout there to say it
 *   cannot. The element's text (and the page's) must change, or the agent
 *   is told the keys went nowhere.
 */
export type TypedAs = 'field' | 'keys';

/** Milliseconds between keys when typing `slowly`, for pages that react to each keystroke. */
const KEY_DELAY_MS = 40;

export async function typeText(page: Page, element: ElementHandle, ref: string, text: string, slowly: boolean | undefined): Promise<TypedAs> {
  await assertTypeable(element, ref);
  if (await isField(element)) {
    if (slowly) {
      await element.fill('', { timeout: ACTION_TIMEOUT_MS });
      await element.type(text, { delay: KEY_DELAY_MS, timeout: ACTION_TIMEOUT_MS });
    } else {
      await element.fill(text, { timeout: ACTION_TIMEOUT_MS });
    }
    return 'field';
  }
  const before = await textOf(element);
  await focusForKeys(element, ref);
  await page.keyboard.type(text, { delay: slowly ? KEY_DELAY_MS : 0 });
  if (text.length && (await textOf(element)) === before) {
    throw new ConflictError(
      `${ref} was focused and the text was typed as keys, but neither its text nor the page's changed: it does not take text from the keyboard. Type into a textbox that does; clicking ${ref} first may open one.`,
    );
  }
  return 'keys';
}

/**
 * Text goes only where it can: Playwright would wait its whole timeout for a
 * read-only field (Select2's `textbox [readonly]` is a label in a textbox's
 * role) to become editable. The agent is told at once, with what to do.
 */
export async function assertTypeable(element: ElementHandle, ref: string): Promise<void> {
  let editable: boolean;
  try {
    editable = await element.isEditable();
  } catch (error) {
    throw new ConflictError(`${ref} cannot be typed into: ${(error as Error).message.split('\n')[0].replace(/^elementHandle\.isEditable: /, '')}. Type into a textbox, searchbox or combobox that takes text; clicking ${ref} may open one.`);
  }
  if (!editable) throw new ConflictError(`${ref} is read-only or disabled, so it cannot be typed into. Clicking it may open a field that takes text; take a new snapshot after.`);
}

/** Whether `fill` can put text in the element (what Playwright's fill accepts, a label's control included). */
export function isField(element: ElementHandle): Promise<boolean> {
  // By tag name, not constructor: a page's polyfill (Polymer's platform.js) replaces HTMLInputElement and the rest.
  return element.evaluate((node) => {
    const el = node as HTMLElement & { control?: HTMLElement | null; type?: string };
    const control = el.tagName === 'LABEL' ? el.control : el;
    if (!control) return false;
    if (control.tagName === 'TEXTAREA') return true;
    if (control.tagName === 'INPUT') return !['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'range', 'color', 'hidden'].includes((control as HTMLInputElement).type);
    return control.isContentEditable === true;
  });
}

/**
 * Focuses the element as a person would before typing: focus() first (an
 * editor's input element often sits off-screen or is a pixel wide), then a
 * click when the focus did not land in it (a widget that moves it to an
 * input of its own on click).
 */
async function focusForKeys(element: ElementHandle, ref: string): Promise<void> {
  await element.focus();
  if (await holdsFocus(element)) return;
  await actionable(ref, element, (within) => element.click({ timeout: within }));
  if (!(await holdsFocus(element))) throw new ConflictError(`${ref} does not take the keyboard's focus, so nothing can be typed into it. Type into a textbox that does; take a new snapshot to find one.`);
}

/** The focused element, through open shadow roots, is the element or inside it. */
function holdsFocus(element: ElementHandle): Promise<boolean> {
  return element.evaluate((node) => {
    const el = node as Element;
    let active = el.ownerDocument.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active !== null && (active === el || el.contains(active) || el.shadowRoot?.contains(active) === true);
  });
}

/** What typing changes: the element's EditContext buffer (an editor's), its own text, and the document's text. */
function textOf(element: ElementHandle): Promise<string> {
  return element.evaluate((node) => {
    const el = node as HTMLElement & { editContext?: { text: string } | null };
    return [el.editContext?.text ?? '', el.textContent ?? '', el.ownerDocument.body?.textContent ?? ''].join('\u0000');
  });
}
