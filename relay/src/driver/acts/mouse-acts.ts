import type { ElementHandle } from 'playwright-core';
import { ConflictError } from '../../errors.js';
import type { Action } from '../../api/schemas.js';
import type { DriverTab } from '../driver-tab.js';
import { frameOfRef } from '../../snapshot/refs.js';
import { cursorOf, moveMouse, type Point, stepsFor } from './pointer.js';
import { selectTextBetween, selectTextIn } from './text-range.js';

/**
 * The acts a person does with the mouse where a ref cannot serve, or that a
 * ref's click does not cover (spec §26): a click at a point, a move in
 * steps, a button pressed and released on its own, a drag in steps (from a
 * ref or a point, to a ref or a point), and a text range selected. Each goes
 * to the page as a person's input (trusted events, the mouse's path in
 * between), is drawn in a film of the tab, and stops between its steps when
 * its caller goes.
 */

type MouseAction = Extract<Action, { kind: 'click' | 'move' | 'mousedown' | 'mouseup' | 'drag' | 'select-text' }>;

export async function performMouseAction(tab: DriverTab, action: MouseAction, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const { page } = tab;
  switch (action.kind) {
    case 'click': {
      const at = { x: action.x!, y: action.y! };
      await moveMouse(tab, at, 1, signal);
      tab.markPointer('press', at);
      await withModifiers(tab, action.modifiers, () => page.mouse.click(at.x, at.y, { button: action.button, clickCount: clickCount(action) }));
      return {};
    }
    case 'move':
      await moveMouse(tab, { x: action.x, y: action.y }, action.steps ?? 1, signal);
      return {};
    case 'mousedown':
    case 'mouseup': {
      if (action.x !== undefined && action.y !== undefined) await moveMouse(tab, { x: action.x, y: action.y }, 1, signal);
      const at = cursorOf(tab);
      if (action.kind === 'mousedown') {
        tab.markPointer('press', at);
        await page.mouse.down({ button: action.button });
      } else await page.mouse.up({ button: action.button });
      return { at };
    }
    case 'drag': {
      const from = action.startRef !== undefined ? await centreOf(await tab.element(action.startRef), action.startRef) : { x: action.x!, y: action.y! };
      const to = action.endRef !== undefined ? await centreOf(await tab.element(action.endRef), action.endRef) : { x: action.endX!, y: action.endY! };
      const steps = action.steps ?? stepsFor(from, to);
      await moveMouse(tab, from, 1, signal);
      tab.markPointer('press', from);
      await page.mouse.down();
      try {
        // A few pixels first, as a hand starts: what waits for a drag to begin (a threshold, HTML5 drag and drop) sees it begin.
        await moveMouse(tab, { x: from.x + Math.sign(to.x - from.x) * 3, y: from.y + Math.sign(to.y - from.y) * 3 }, 1, signal);
        await moveMouse(tab, to, steps, signal);
      } finally {
        await page.mouse.up();
      }
      return { from, to, steps };
    }
    case 'select-text': {
      if (action.ref !== undefined) {
        const element = await tab.element(action.ref);
        return {
          ...(await selectTextIn(
            tab,
            { element, frame: frameOfRef(tab.snapshots, action.ref) ?? tab.page.mainFrame(), ref: action.ref, label: action.ref },
            action.text,
            signal,
          )),
        };
      }
      // The text alone: wherever the page shows it first.
      if (action.text !== undefined)
        return { ...(await selectTextIn(tab, { element: await pageBody(tab), frame: tab.page.mainFrame(), label: 'the page' }, action.text, signal)) };
      return { ...(await selectTextBetween(tab, { x: action.x!, y: action.y! }, { x: action.endX!, y: action.endY! }, signal)) };
    }
  }
}

/** Clicks in a row a click asks for: `count`, or 2 for `double`. */
export function clickCount(action: Extract<Action, { kind: 'click' }>): number {
  return action.count ?? (action.double ? 2 : 1);
}

/** An element's middle, scrolled into view first, as a drag by ref starts and ends there. */
async function centreOf(element: ElementHandle, ref: string): Promise<Point> {
  await element.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {});
  const box = await element.boundingBox();
  if (!box) throw new ConflictError(`${ref} is not visible, so it cannot be dragged from or onto. Take a new snapshot to see what is shown.`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function withModifiers(tab: DriverTab, modifiers: string[] | undefined, act: () => Promise<void>): Promise<void> {
  for (const key of modifiers ?? []) await tab.page.keyboard.down(key);
  try {
    await act();
  } finally {
    for (const key of [...(modifiers ?? [])].reverse()) await tab.page.keyboard.up(key);
  }
}

/** Where an act by coordinates presses (a click, a button, a drag's start): what it hits is said in its answer. */
export function pointOf(tab: DriverTab, action: Action): Point | undefined {
  switch (action.kind) {
    case 'click':
      return action.ref === undefined ? { x: action.x!, y: action.y! } : undefined;
    case 'mousedown':
    case 'mouseup':
      return action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : cursorOf(tab);
    case 'drag':
      return action.startRef === undefined ? { x: action.x!, y: action.y! } : undefined;
    default:
      return undefined;
  }
}

/** The points a text selection's drag went between, for the script to replay it. */
export function pathOf(result: Record<string, unknown>): { path: { from: Point; to: Point } } | undefined {
  const { from, to } = result as { from?: Point; to?: Point };
  return from && to ? { path: { from, to } } : undefined;
}

/** The page's body, where text named without a ref is looked for. */
async function pageBody(tab: DriverTab): Promise<ElementHandle> {
  const body = await tab.page.mainFrame().$('body');
  if (!body) throw new ConflictError('The page has no body to select text in yet. Wait for it to load, then try again.');
  return body;
}
