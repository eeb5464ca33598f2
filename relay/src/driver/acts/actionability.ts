import type { ElementHandle } from 'playwright-core';
import { ConflictError } from '../../errors.js';
import { type ActionBlocker, actionBlockers, failureKind, inputSent } from '../browser-failure.js';

/**
 * Acting on an element only when a person could (visible, enabled, still,
 * not covered), and saying which it is not when it cannot, within a second
 * rather than Playwright's 30. Never acts twice: a try whose input may
 * already have gone out is not repeated.
 */

/**
 * How long an element may take to become actionable (visible, enabled,
 * still, not covered) before the agent is told which of these it is not.
 * Playwright would wait its whole timeout; an agent is better served by the
 * reason at once, as a person would see it.
 */
const ACTIONABLE_WITHIN_MS = 1_000;
/** A second try for an element that was moving the whole first second. */
const UNSTABLE_RETRY_WITHIN_MS = 2_500;

/**
 * The action itself, given ACTIONABLE_WITHIN_MS for Playwright's own
 * actionability checks (visible, enabled, stable, receives the pointer at
 * its centre). When the time runs out, Playwright's call log says which
 * check failed and what covers the element, and the agent hears it instead
 * of waiting 30 s. The log also says whether the input had gone out: if it
 * had finished, only the wait after it timed out and the action stands; if
 * it was on its way, it may have landed, the agent is told so, and nothing
 * is retried (a bouncing arrow once went two slides on for one click).
 *
 * One call, one click: no separate check first. A trial *click* would press
 * and release the real mouse button, relying on a listener Playwright adds
 * only at the first pointer action in the document, after everything the
 * page registered as it loaded: a page listening on the window in the
 * capture phase (delegation, gesture and analytics libraries, polyfills that
 * re-dispatch events) got two clicks for one, and a checkbox it toggles came
 * back where it was. And separate checks doubled a click's time (its
 * stability check waits for animation frames, which the click repeats).
 */
export async function actionable<T>(ref: string, element: ElementHandle, act: (within: number) => Promise<T | undefined>): Promise<T | undefined> {
  for (const within of [ACTIONABLE_WITHIN_MS, UNSTABLE_RETRY_WITHIN_MS]) {
    // Each try starts at a still moment, so the click does not chase a moving element.
    await untilStill(element, UNSTABLE_RETRY_WITHIN_MS, within === ACTIONABLE_WITHIN_MS);
    try {
      return await act(within);
    } catch (error) {
      if (failureKind(error) !== 'timeout') throw error;
      const sent = inputSent(error);
      // The input went out and only the wait after it (for a navigation it scheduled: reveal.js
      // sets location.hash) ran out of time: the action happened.
      if (sent === 'done') return undefined;
      // Sent, but not known to be done: it may have landed, and trying again would act twice.
      if (sent === 'sending')
        throw new ConflictError(
          `${ref} was being acted on when the time for it ran out: the input may have landed. Take a new snapshot to see before trying again.`,
        );
      // Nothing was sent. An element that moves in bursts (reveal.js bounces its "next" arrow for
      // 100 s, still one second in two) is still now and then: one longer try catches it.
      const blockers = actionBlockers(error);
      if (within === UNSTABLE_RETRY_WITHIN_MS || !blockers.some(({ kind }) => kind === 'not-stable'))
        throw new ConflictError(`${ref} ${notActionableBecause(blockers[0])}`);
    }
  }
  return undefined;
}

/**
 * Resolves once the element's box is the same three animation frames running
 * (or the time is up). With `ifAnimated`, at once unless an animation runs on
 * the element or an ancestor (reveal.js's bouncing arrow): a still page costs
 * one round trip, not three frames.
 */
async function untilStill(element: ElementHandle, withinMs: number, ifAnimated: boolean): Promise<void> {
  await element
    .evaluate(
      (el, [within, onlyIfAnimated]) =>
        new Promise<void>((resolve) => {
          const animated = () =>
            document.getAnimations().some((animation) => {
              const target = (animation.effect as KeyframeEffect | null)?.target;
              return animation.playState === 'running' && !!target && target.contains(el as Element);
            });
          if (onlyIfAnimated && !animated()) return resolve();
          const started = performance.now();
          let last = '';
          let same = 0;
          const frame = () => {
            const box = (el as Element).getBoundingClientRect();
            const key = `${box.x},${box.y},${box.width},${box.height}`;
            same = key === last ? same + 1 : 0;
            last = key;
            if (same >= 2 || performance.now() - started > within) resolve();
            else requestAnimationFrame(frame);
          };
          requestAnimationFrame(frame);
        }),
      [withinMs, ifAnimated] as const,
    )
    .catch(() => {});
}

/** Why an element could not be acted on (what Playwright's call log said), in a person's words with what to do. */
export function notActionableBecause(blocker: ActionBlocker | undefined): string {
  switch (blocker?.kind) {
    case 'covered':
      return `is covered by ${blocker.by.slice(0, 200)}, which would get the click. Close or answer what covers it (a dialog, a banner, an overlay), or scroll, then take a new snapshot.`;
    case 'not-enabled':
      return 'is disabled, so it cannot be clicked now. The page may enable it once something else is done (a required field, a choice); take a new snapshot to see.';
    case 'not-visible':
      return 'is not visible (hidden, or of no size), so a person could not click it. Look for the visible control that stands for it (its label, a styled stand-in) in a new snapshot.';
    case 'not-stable':
      return 'is still moving (an animation), so a click would miss it. Wait a moment and try again.';
    case 'outside-viewport':
      return 'is outside the page, where it cannot be scrolled into view.';
    default:
      return `did not become ready to act on within ${ACTIONABLE_WITHIN_MS} ms. Take a new snapshot to see where the page is.`;
  }
}
