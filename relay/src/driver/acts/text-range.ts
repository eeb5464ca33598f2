import type { ElementHandle, Frame } from 'playwright-core';
import { ConflictError, NotFoundError } from '../../errors.js';
import { locateText, readSelection, selectTextByScript, type TextScope } from '../../snapshot/snapshot-engine.js';
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
 * that the page's mouse handlers did not see it. The text is found, read
 * and selected by script in the engine's world (page-runtime/text-range.ts),
 * where the page cannot rewrite the DOM's methods under it.
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

/** The element whose text is selected: its handle (to scroll to and focus), its frame, and its ref there (none: the frame's body). */
export interface TextTarget {
  element: ElementHandle;
  frame: Frame;
  ref?: string;
  /** How an error names it: the ref, or "the page". */
  label: string;
}

export async function selectTextIn(tab: DriverTab, target: TextTarget, text: string | undefined, signal?: AbortSignal): Promise<TextSelection> {
  const { element, frame, label } = target;
  const scope: TextScope = target.ref === undefined ? {} : { ref: target.ref };
  await element.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {});
  const located = await locateText(frame, scope, text ?? null);
  if ('error' in located) throw gone(label);
  if ('missing' in located) {
    const reads = located.missing ? `; it reads ${JSON.stringify(located.missing)}` : ' (it has no text)';
    throw new ConflictError(
      `${label} does not hold the text ${JSON.stringify(text ?? '')}${reads}. Give the text as the element shows it, or a ref of the element that holds it.`,
    );
  }
  if (located.field) {
    await element.focus();
    await selectTextByScript(frame, { ...scope, field: located.field });
    return { selection: (await selectionIn(frame, scope, label)).selection, selectedBy: 'field', occurrences: located.occurrences };
  }
  await dragSelect(tab, located.from, located.to, signal);
  const read = await selectionIn(frame, scope, label);
  const wanted = collapse(text ?? read.text);
  if (collapse(read.selection) === wanted || collapse(read.selection).includes(wanted))
    return { selection: read.selection, selectedBy: 'mouse', occurrences: located.occurrences, from: located.from, to: located.to };
  // The mouse did not make it (the page stops selection, or dragged something instead): the Selection API does.
  await selectTextByScript(frame, { ...scope, text: text ?? null });
  return { selection: (await selectionIn(frame, scope, label)).selection, selectedBy: 'script', occurrences: located.occurrences };
}

/** A selection dragged between two points of the page (the coordinates' way). */
export async function selectTextBetween(tab: DriverTab, from: Point, to: Point, signal?: AbortSignal): Promise<TextSelection> {
  await dragSelect(tab, from, to, signal);
  const read = await readSelection(tab.page.mainFrame(), {});
  return { selection: 'error' in read ? '' : read.selection, selectedBy: 'mouse', from, to };
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

async function selectionIn(frame: Frame, scope: TextScope, label: string): Promise<{ selection: string; text: string }> {
  const read = await readSelection(frame, scope);
  if ('error' in read) throw gone(label);
  return read;
}

function gone(label: string): NotFoundError {
  return new NotFoundError(`${label === 'the page' ? "The page's body" : `Ref ${label}`} is gone from the page: take a new snapshot`);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
