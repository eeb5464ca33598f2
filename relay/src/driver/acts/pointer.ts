import type { Frame } from 'playwright-core';
import { actTargetLocator, findActTarget, refOfLocated } from '../../snapshot/snapshot-engine.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * The mouse of a tab, as a person moves it: where it is (kept per tab, for
 * a button pressed or released where it already is), moves made of as many
 * mousemove events as asked (pages that follow the pointer, sortable lists
 * and drag-and-drop, see each one), and what is under a point (for the act's
 * answer, and for a film's pointer). Every move is drawn in a film of the
 * tab. Coordinates are CSS pixels of the viewport, as a screenshot of it and
 * an element's box give them.
 */

export interface Point {
  x: number;
  y: number;
}

const cursors = new WeakMap<DriverTab, Point>();

/** Where the mouse is on the tab (the top-left corner before it first moves). */
export function cursorOf(tab: DriverTab): Point {
  return cursors.get(tab) ?? { x: 0, y: 0 };
}

/** The mouse went to `point` by other means (computer use's own steps). */
export function cursorMoved(tab: DriverTab, point: Point): void {
  cursors.set(tab, point);
}

/**
 * How many mousemove events a move of this length is sent as, unless asked:
 * about one per 8 pixels, as a person's hand at a steady pace gives a page,
 * at least 10 and at most 80. A jQuery UI sortable list moves an item one
 * place per event, so a long drag in a few events stops short.
 */
export function stepsFor(from: Point, to: Point): number {
  return Math.min(80, Math.max(10, Math.round(Math.hypot(to.x - from.x, to.y - from.y) / 8)));
}

/** Moves the mouse to `to` in `steps` events, checking `signal` between them (a long drag stops when its caller goes). */
export async function moveMouse(tab: DriverTab, to: Point, steps = 1, signal?: AbortSignal): Promise<void> {
  const from = cursorOf(tab);
  // In chunks: each chunk is Playwright's own interpolation from where the mouse is.
  const chunk = 10;
  for (let done = 0; done < steps;) {
    signal?.throwIfAborted();
    const next = Math.min(steps, done + chunk);
    const at = { x: from.x + ((to.x - from.x) * next) / steps, y: from.y + ((to.y - from.y) * next) / steps };
    await tab.page.mouse.move(at.x, at.y, { steps: next - done });
    cursors.set(tab, at);
    done = next;
  }
  tab.markPointer('move', to);
}

/** What a person's press at a point lands on, named as the snapshot names it, with its ref (one the tab's next snapshots keep). */
export interface PointHit {
  role: string;
  name: string;
  ref?: string;
}

/**
 * The control at a point of the page (the element there, or the button,
 * link or other control it is part of), found in the snapshot engine's
 * isolated world, and its ref: how an act by coordinates says what it hit,
 * and watches that element's state as an act by ref does. Undefined when
 * nothing is there or it cannot be named.
 */
export async function hitAt(tab: DriverTab, point: Point): Promise<PointHit | undefined> {
  const frame: Frame = tab.page.mainFrame();
  try {
    const found = await findActTarget(frame, point);
    if (!found.found) return undefined;
    const locator = await actTargetLocator(frame);
    const [aria, ref] = await Promise.all([locator.ariaSnapshot({ timeout: 1_000 }).catch(() => ''), refOfLocated(frame, locator).catch(() => null)]);
    const first = /^- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(aria.split('\n')[0] ?? '');
    if (!first) return ref ? { role: 'generic', name: '', ref } : undefined;
    let name = first[2] ?? '';
    try {
      name = JSON.parse(`"${name}"`) as string;
    } catch {
      // As written.
    }
    return { role: first[1], name: name.length > 80 ? `${name.slice(0, 79)}…` : name, ...(ref ? { ref } : {}) };
  } catch {
    return undefined;
  }
}
