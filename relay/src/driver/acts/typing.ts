import type { ElementHandle, Page } from 'playwright-core';
import { ConflictError } from '../../errors.js';
import { ACTION_TIMEOUT_MS } from '../../api/limits.js';
import { actionable } from './actionability.js';
import { failureKind } from '../browser-failure.js';

/**
 * Where typed text goes, decided at once from what the element is:
 * - a *field* a person sees (an `<input>` that takes text, a `<textarea>`,
 *   a contenteditable): its value is replaced, as Playwright's `fill` does,
 *   or typed key by key with `slowly`. Then the value it shows is read: a
 *   page that takes only keys (a widget reading keydown, a date field given
 *   a date as it displays one, a mask) kept nothing of it, and the text is
 *   typed again key by key, as a person would (a page that took it and made
 *   something of it, a format or a cut, is left as it is and says so); the answer says so
 *   (`retyped`), and what the field shows when that is still not the text
 *   (`shows`). When neither way changed anything, the agent is told the
 *   text did not arrive;
 * - anything else that takes text from the keyboard (a code editor that
 *   edits through an EditContext, a terminal or widget reading keys through
 *   an input no one sees): it is focused, as a person's click would, and
 *   the text is typed as keys at its caret. The element's text (and the
 *   page's) must change, or the agent is told the keys went nowhere.
 */
export interface Typed {
  /** Typed as keys at the caret of something that is not a field a person sees (an editor, a terminal). */
  typedAs?: 'keys';
  /** Set at once, the field did not show the text; typed again key by key, it did (or `shows` says what it shows). */
  retyped?: true;
  /** What the field shows afterwards, when that is not the text typed (a mask, a date as the field keeps it, a length limit). */
  shows?: string;
}

/** Milliseconds between keys when typing `slowly` or again, for pages that react to each keystroke. */
const KEY_DELAY_MS = 40;

export async function typeText(page: Page, element: ElementHandle, ref: string, text: string, slowly: boolean | undefined): Promise<Typed> {
  await assertTypeable(element, ref);
  const field = await fieldOf(element);
  if (!field || !field.seen) {
    await typeKeys(page, element, ref, text, slowly);
    return { typedAs: 'keys' };
  }
  const before = await shownValue(element);
  if (slowly) {
    await element.fill('', { timeout: ACTION_TIMEOUT_MS });
    await element.type(text, { delay: KEY_DELAY_MS, timeout: ACTION_TIMEOUT_MS });
  } else {
    const filled = await element.fill(field.type === 'time' ? asTimeValue(text) : text, { timeout: ACTION_TIMEOUT_MS }).then(
      () => true,
      (error: Error) => {
        // A date or time field given the date as a person writes it: refused at once, typed as keys below.
        if (failureKind(error) === 'value-refused' && field.dated) return false;
        throw error;
      },
    );
    const first = filled ? await shownValue(element) : before;
    // Taken, as the text or as the page made it (a page that formats, cuts or transforms what it is given):
    // typing it again key by key would only make the page transform it again. Only a field that kept
    // nothing of it (a mask that takes keys alone, a widget that reset it) is typed again.
    const took = first !== before && first !== '';
    if (filled && (landed(first, text, before, field) || took)) return first !== text && !field.secret ? { shows: first } : {};
    await element.fill('', { timeout: ACTION_TIMEOUT_MS }).catch(() => {});
    // A date field's keys go to the part that has focus: a person clicks its first part (the month, or the day).
    if (field.dated) await element.click({ position: { x: 3, y: 6 }, timeout: ACTION_TIMEOUT_MS });
    else await element.focus();
    await page.keyboard.type(text, { delay: KEY_DELAY_MS });
  }
  const shows = await shownValue(element);
  const retyped = slowly ? {} : { retyped: true as const };
  if (landed(shows, text, before, field)) return { ...retyped, ...(shows !== text && !field.secret ? { shows } : {}) };
  if (shows === before || shows === '') {
    throw new ConflictError(
      `The text did not arrive in ${ref}: set at once and then typed key by key, the field still shows ${shows ? JSON.stringify(shows.slice(0, 200)) : 'nothing'}. It may take its text another way (a picker to click, a button that opens an editor); take a new snapshot to see.`,
    );
  }
  return { ...retyped, ...(field.secret ? {} : { shows: shows.slice(0, 2_000) }) };
}

/** What a field is, for typing: whether a person sees it (a keyboard's input hidden under a widget is not), keeps a date, holds a secret. */
interface FieldKind {
  seen: boolean;
  dated: boolean;
  secret: boolean;
  type: string;
}

/** A time as people write it ("2:30 PM", "2pm") in a time field's own form ("14:30"); anything else as it is. */
export function asTimeValue(text: string): string {
  const time = /^\s*(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?\s*m?\.?)?\s*$/i.exec(text);
  if (!time || !time[4]) return text;
  const hour = (Number(time[1]) % 12) + (/p/i.test(time[4]) ? 12 : 0);
  return `${String(hour).padStart(2, '0')}:${time[2] ?? '00'}${time[3] ? `:${time[3]}` : ''}`;
}

/** The text landed: the field shows it (white space as shown); a date or time field shows a value of its own form, not the one it had. */
function landed(shows: string, text: string, before: string, field: FieldKind): boolean {
  if (shows === text || shows.replace(/\s+/g, ' ').trim() === text.replace(/\s+/g, ' ').trim()) return true;
  return field.dated && shows !== '' && (shows !== before || text === before);
}

/** A field's value as it holds it (an input's, or a contenteditable's text). */
function shownValue(element: ElementHandle): Promise<string> {
  return element.evaluate((node) => {
    const el = node as HTMLElement & { control?: HTMLElement | null };
    const control = (el.tagName === 'LABEL' ? el.control : el) as (HTMLInputElement & HTMLElement) | null;
    if (!control) return '';
    if (control.tagName === 'INPUT' || control.tagName === 'TEXTAREA') return control.value;
    return control.innerText ?? control.textContent ?? '';
  });
}

async function typeKeys(page: Page, element: ElementHandle, ref: string, text: string, slowly: boolean | undefined): Promise<void> {
  const before = await textOf(element);
  await focusForKeys(element, ref);
  await page.keyboard.type(text, { delay: slowly ? KEY_DELAY_MS : 0 });
  if (text.length && (await textOf(element)) === before) {
    throw new ConflictError(
      `${ref} was focused and the text was typed as keys, but neither its text nor the page's changed: it does not take text from the keyboard. Type into a textbox that does; clicking ${ref} first may open one.`,
    );
  }
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
    throw new ConflictError(
      `${ref} cannot be typed into: ${(error as Error).message.split('\n')[0].replace(/^elementHandle\.isEditable: /, '')}. Type into a textbox, searchbox or combobox that takes text; clicking ${ref} may open one.`,
    );
  }
  if (!editable)
    throw new ConflictError(
      `${ref} is read-only or disabled, so it cannot be typed into. Clicking it may open a field that takes text; take a new snapshot after.`,
    );
}

/**
 * The field `fill` can put text in (a label's control included), and whether a person sees it: an input
 * of no size, transparent, or off the page is a widget's keyboard (a terminal's), typed into as keys.
 */
async function fieldOf(element: ElementHandle): Promise<FieldKind | undefined> {
  // By tag name, not constructor: a page's polyfill (Polymer's platform.js) replaces HTMLInputElement and the rest.
  const kind = await element.evaluate((node) => {
    const el = node as HTMLElement & { control?: HTMLElement | null; type?: string };
    const control = el.tagName === 'LABEL' ? el.control : el;
    if (!control) return null;
    const type = control.tagName === 'INPUT' ? (control as HTMLInputElement).type : '';
    const isField =
      control.tagName === 'TEXTAREA' ||
      (control.tagName === 'INPUT'
        ? !['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'range', 'color', 'hidden'].includes(type)
        : control.isContentEditable === true);
    if (!isField) return null;
    const box = control.getBoundingClientRect();
    const style = getComputedStyle(control);
    // On the page, scrolled to or not (a field above or below the viewport is still one a person sees): in the document's coordinates.
    const root = document.documentElement;
    const onPage =
      box.right + scrollX > 0 &&
      box.bottom + scrollY > 0 &&
      box.left + scrollX < Math.max(root.scrollWidth, innerWidth) &&
      box.top + scrollY < Math.max(root.scrollHeight, innerHeight);
    const seen =
      box.width >= 4 &&
      box.height >= 4 &&
      Number(style.opacity) > 0.05 &&
      style.visibility !== 'hidden' &&
      onPage &&
      style.clipPath !== 'inset(50%)' &&
      style.clip !== 'rect(0px, 0px, 0px, 0px)';
    return { seen, dated: ['date', 'time', 'datetime-local', 'month', 'week'].includes(type), secret: type === 'password', type };
  });
  return kind ?? undefined;
}

/**
 * Focuses the element as a person would before typing: focus() first (an
 * editor's input element often sits off-screen or is a pixel wide), then a
 * click when the focus did not land in it (a widget that moves it to an
 * input of its own on click).
 */
async function focusForKeys(element: ElementHandle, ref: string): Promise<void> {
  await element.focus();
  // Focus on a widget's frame is not yet where its keys go (a terminal moves it to its own input when clicked).
  if ((await holdsFocus(element)) && (await focusTakesText(element))) return;
  await actionable(ref, element, (within) => element.click({ timeout: within }));
  if (!(await holdsFocus(element)))
    throw new ConflictError(
      `${ref} does not take the keyboard's focus, so nothing can be typed into it. Type into a textbox that does; take a new snapshot to find one.`,
    );
}

/** The focused element takes text itself: a field, a contenteditable, an editor's EditContext. */
function focusTakesText(element: ElementHandle): Promise<boolean> {
  return element.evaluate((node) => {
    let active = (node as Element).ownerDocument.activeElement as (HTMLElement & { editContext?: unknown }) | null;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement as HTMLElement;
    return !!active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA' || active.isContentEditable || !!active.editContext);
  });
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
