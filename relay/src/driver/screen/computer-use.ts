import type { Page } from 'playwright-core';
import { ClawdError } from '../../errors.js';
import { sleep } from '../../runtime/operation.js';
import type { ComputerStep, MouseButton, Point } from '../../vision/computer-steps.js';
import { type ScreenScale, toPage, toScreen } from '../../vision/screen-scale.js';
import type { DriverTab } from '../driver-tab.js';
import { cursorMoved, cursorOf } from '../acts/pointer.js';

/**
 * The one executor of computer-use steps (vision/computer-steps.ts: both
 * vendors' actions end here): mouse and keyboard input sent to the tab as a
 * person's, at the CSS points the screenshot's pixels show (screen-scale.ts).
 * Where the mouse is, is kept per tab (cursor_position asks, a click without
 * a coordinate clicks there).
 */

/** Intermediate moves of a drag between two points: pages that follow the pointer (canvases, drag-and-drop) see a path. */
const DRAG_STEPS = 10;

/** Where the mouse is on the tab, in CSS pixels of the layout viewport: one place for the acts and these steps (acts/pointer.ts). */
export { cursorOf };

export interface StepsRun {
  /** How many steps ran. */
  performed: number;
  /** The region of the last step, when it was a zoom: the answer's picture is of it. */
  zoom?: [number, number, number, number];
}

/**
 * Asked before a press that could act on a control (a click or a button down at a point of the page,
 * Enter or Space on what has focus): throws to stop the batch there (a confirm rule: confirm-service.ts),
 * a refusal, or AskFirst to pause it for a person's yes.
 */
export type BeforePress = (at: Point | 'focused' | 'focused-space') => Promise<void>;

/** Where a batch goes on from: its step, and within a key step its chord. */
export interface StepPlace {
  step: number;
  chord: number;
}

/**
 * Thrown by a BeforePress to pause the batch before a press that waits for a person's yes: nothing of
 * that press has happened; `at` (set on the way out) says where the batch goes on once they say it.
 */
export class AskFirst<T = unknown> extends Error {
  at: StepPlace = { step: 0, chord: 0 };
  constructor(readonly reason: T) {
    super('the press waits for a person');
  }
}

/**
 * Runs the steps in order, from `from` (a batch going on after a person's yes); a failure names the
 * step and how many ran before it. An AskFirst leaves as it is, with where it stopped.
 */
export async function runComputerSteps(
  tab: DriverTab,
  steps: ComputerStep[],
  screen: ScreenScale,
  signal?: AbortSignal,
  beforePress?: BeforePress,
  from: StepPlace = { step: 0, chord: 0 },
): Promise<StepsRun> {
  let zoom: StepsRun['zoom'];
  for (let index = from.step; index < steps.length; index++) {
    const step = steps[index];
    signal?.throwIfAborted();
    try {
      zoom = step.kind === 'zoom' ? step.region : undefined;
      await runStep(tab, step, screen, signal, beforePress, index === from.step ? from.chord : 0);
    } catch (error) {
      if (error instanceof AskFirst) {
        error.at = { step: index, chord: error.at.chord };
        throw error;
      }
      if (signal?.aborted) throw error;
      const message = `actions.${index} (${step.kind}) failed after ${index} of ${steps.length} ran: ${(error as Error).message}`;
      throw error instanceof ClawdError
        ? new ClawdError(error.code, message, { ...error.details, performed: index })
        : new ClawdError('internal', message, { performed: index });
    }
  }
  return { performed: steps.length, ...(zoom ? { zoom } : {}) };
}

async function runStep(
  tab: DriverTab,
  step: ComputerStep,
  screen: ScreenScale,
  signal?: AbortSignal,
  beforePress?: BeforePress,
  firstChord = 0,
): Promise<void> {
  const { page } = tab;
  const moveTo = async (point: Point | undefined, steps = 1) => {
    if (!point) return;
    const to = toPage(screen, point);
    await page.mouse.move(to.x, to.y, { steps });
    cursorMoved(tab, to);
    tab.markPointer('move', to);
  };
  switch (step.kind) {
    case 'move':
      return holding(page, step.hold, () => moveTo(step.to));
    case 'click':
      return holding(page, step.hold, async () => {
        await moveTo(step.at);
        await beforePress?.(cursorOf(tab));
        await clickHere(tab, step.button, step.count);
      });
    case 'button':
      await moveTo(step.at);
      if (step.down) await beforePress?.(cursorOf(tab));
      if (step.down) tab.markPointer('press', cursorOf(tab));
      return step.down ? page.mouse.down() : page.mouse.up();
    case 'drag':
      return holding(page, step.hold, async () => {
        await moveTo(step.path[0]);
        tab.markPointer('press', cursorOf(tab));
        await page.mouse.down();
        for (const point of step.path.slice(1)) await moveTo(point, DRAG_STEPS);
        await page.mouse.up();
      });
    case 'scroll':
      return holding(page, step.hold, async () => {
        await moveTo(step.at);
        const factor = step.unit === 'image' ? 1 / screen.scale : 1;
        await page.mouse.wheel(step.deltaX * factor, step.deltaY * factor);
        // The wheel scrolls on the compositor: two frames later the page shows it.
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))).catch(() => {});
      });
    case 'type':
      return page.keyboard.type(step.text);
    case 'keys':
      for (let index = firstChord; index < step.chords.length; index++) {
        const chord = step.chords[index];
        const key = chord[chord.length - 1];
        try {
          if (/^(Enter|NumpadEnter)$/.test(key)) await beforePress?.('focused');
          else if (/^(Space| )$/.test(key)) await beforePress?.('focused-space');
        } catch (error) {
          // The chords before it were pressed: the batch goes on from this one.
          if (error instanceof AskFirst) error.at = { step: 0, chord: index };
          throw error;
        }
        await holding(page, chord.slice(0, -1), () => page.keyboard.press(key));
      }
      return;
    case 'hold':
      return holding(page, step.keys, () => sleep(step.ms, signal));
    case 'wait':
      return sleep(step.ms, signal);
    case 'screenshot':
    case 'cursor':
    case 'zoom':
      // Answered with the batch: the picture after it, the cursor, the zoomed region.
      return;
  }
}

/** A click where the mouse is; back and forward (which Playwright's mouse lacks) go as CDP input. */
async function clickHere(tab: DriverTab, button: MouseButton, count: number): Promise<void> {
  tab.markPointer('press', cursorOf(tab));
  if (button !== 'back' && button !== 'forward') return tab.page.mouse.click(cursorOf(tab).x, cursorOf(tab).y, { button, clickCount: count });
  const session = await tab.cdp();
  const { x, y } = cursorOf(tab);
  for (const type of ['mousePressed', 'mouseReleased'] as const) await session.send('Input.dispatchMouseEvent', { type, x, y, button, clickCount: 1 });
}

/** Runs `work` with `keys` held down (modifiers), released in reverse order whatever happens. */
async function holding(page: Page, keys: string[], work: () => Promise<unknown>): Promise<void> {
  const down: string[] = [];
  try {
    for (const key of keys) {
      await page.keyboard.down(key);
      down.push(key);
    }
    await work();
  } finally {
    for (const key of down.reverse()) await page.keyboard.up(key).catch(() => {});
  }
}

/** Where the mouse is, in the picture's pixels (for cursor_position). */
export function cursorOnScreen(tab: DriverTab, screen: ScreenScale): Point {
  const { x, y } = toScreen(screen, cursorOf(tab));
  return { x: Math.round(x), y: Math.round(y) };
}
