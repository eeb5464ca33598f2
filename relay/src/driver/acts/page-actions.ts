import type { ElementHandle, Page } from 'playwright-core';
import { BadRequestError, ClawdError, ConflictError, TimeoutError } from '../../errors.js';
import { ACTION_TIMEOUT_MS, WAIT_DEFAULT_MS } from '../../api/limits.js';
import type { Action } from '../../api/schemas.js';
import { sleep } from '../../runtime/operation.js';
import { probe } from '../../snapshot/snapshot-engine.js';
import type { DriverTab } from '../driver-tab.js';
import { actionable } from './actionability.js';
import { checkedState, pointerTarget } from '../screen/pointer-target.js';
import { typeText } from './typing.js';
import { failureKind, firstLine } from '../browser-failure.js';
import { clickCount, performMouseAction } from './mouse-acts.js';
import { moveMouse } from './pointer.js';

/**
 * `POST /act` (spec §6): one action on a tab, by ref (from the tab's last
 * snapshot) or, for screenshot-driven agents, by coordinates. Returns what
 * the agent may want next; the page's own state is the proof of the effect.
 */

/**
 * One `POST /act` action. `signal` stops it: a wait stops looking at once;
 * a Playwright step already sent (a click waiting for its element) is raced,
 * and ends by its own timeout.
 */
export async function performAction(tab: DriverTab, action: Action, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const { page } = tab;
  const timeout = ACTION_TIMEOUT_MS;
  switch (action.kind) {
    case 'click': {
      if (action.ref === undefined) return performMouseAction(tab, action, signal);
      const options = { button: action.button, clickCount: clickCount(action), modifiers: action.modifiers };
      const element = await pointerTarget(await tab.element(action.ref));
      await tab.markElement('press', element);
      await actionable(action.ref, element, (within) => element.click({ ...options, timeout: within }));
      return {};
    }
    case 'type': {
      const element = await tab.element(action.ref);
      const typed = await typeText(page, element, action.ref, action.text, action.slowly);
      // Where the keys went (a terminal's own input, which a click focused), not the element: pressing on it would focus it again.
      if (action.submit) await (typed.typedAs === 'keys' ? page.keyboard.press('Enter') : element.press('Enter', { timeout }));
      // How it went in, when not as asked at once (typing.ts): said so the agent knows.
      return { ...typed };
    }
    case 'press':
      await page.keyboard.press(action.key);
      return {};
    case 'hover': {
      const element = await tab.element(action.ref);
      await tab.markElement('move', element);
      await actionable(action.ref, element, (within) => element.hover({ timeout: within }));
      return {};
    }
    case 'move':
    case 'mousedown':
    case 'mouseup':
    case 'drag':
    case 'select-text':
      return performMouseAction(tab, action, signal);
    case 'scroll':
      if (action.x !== undefined && action.y !== undefined) await moveMouse(tab, { x: action.x, y: action.y }, 1, signal);
      await page.mouse.wheel(action.deltaX, action.deltaY);
      return {};
    case 'select': {
      const element = await tab.element(action.ref);
      await assertSelectable(element, action.ref, action.values);
      return { selected: await element.selectOption(action.values, { timeout }) };
    }
    case 'fill':
      for (const field of action.fields) await fillField(page, await tab.element(field.ref), field.ref, field.value);
      return { filled: action.fields.length };
    case 'wait':
      await waitFor(page, action, signal);
      return {};
    case 'resize':
      await page.setViewportSize({ width: action.width, height: action.height });
      return { viewport: { width: action.width, height: action.height } };
    case 'close':
      await page.close();
      return { closed: true };
    case 'evaluate':
      return { result: (await evaluateSource(page, action.fn, action.ref === undefined ? undefined : await tab.element(action.ref))) ?? null };
  }
}

/**
 * An action's error without what the action typed: Playwright's messages and
 * call logs repeat the text of fill/type (`fill("hunter2")`), and errors are
 * logged and returned. Only the first line is kept (the call log is noise to
 * an agent), and every typed value in it is masked.
 */
export function withoutSecrets(error: unknown, action: Action): unknown {
  // Our own errors never quote what was typed, and keep their type and details.
  if (!(error instanceof Error) || error instanceof ClawdError) return error;
  const typed: string[] = [];
  if (action.kind === 'type') typed.push(action.text);
  if (action.kind === 'fill') for (const field of action.fields) if (typeof field.value === 'string') typed.push(field.value);
  let message = error.message.split('\n')[0];
  for (const text of typed.filter((value) => value.length > 0)) message = message.split(text).join('••••');
  if (!typed.length && message === error.message) return error;
  const clean = new (error.constructor as new (message: string) => Error)(message);
  clean.name = error.name;
  clean.stack = `${clean.name}: ${message}`;
  return clean;
}

/**
 * `fn` is a function's source ("() => document.title", "(el) => el.value").
 * Playwright takes a string as an expression, so the function is called
 * explicitly. Both paths run through CDP, not the page's eval, so a strict
 * Content-Security-Policy does not stop them.
 */
async function evaluateSource(page: Page, source: string, element: ElementHandle | undefined): Promise<unknown> {
  try {
    if (!element) return await page.evaluate(`(${source})()`);
    const frame = (await element.ownerFrame()) ?? page.mainFrame();
    const fn = await frame.evaluateHandle(`(${source})`);
    try {
      return await fn.evaluate((f, el) => (f as unknown as (node: unknown) => unknown)(el), element);
    } finally {
      await fn.dispose();
    }
  } catch (error) {
    if (failureKind(error) === 'bad-script') throw new BadRequestError(`fn is not a function's source: ${firstLine((error as Error).message)}`);
    throw error;
  }
}

/** One form field, whatever kind of control it is. */
async function fillField(page: Page, element: ElementHandle, ref: string, value: string | boolean): Promise<void> {
  const kind = await element.evaluate((el) => (el instanceof HTMLInputElement ? el.type : (el as Element).tagName.toLowerCase()));
  if (kind === 'checkbox' || kind === 'radio') {
    const wanted = value === true || value === 'true';
    const target = await pointerTarget(element);
    if (target === element) await actionable(ref, element, (within) => element.setChecked(wanted, { timeout: within }));
    else if ((await checkedState(element)) !== wanted) {
      // Through its label, as a person ticks a styled checkbox; the input's own state is the proof.
      await actionable(ref, target, (within) => target.click({ timeout: within }));
      if ((await checkedState(element)) !== wanted)
        throw new ConflictError(
          `${ref} did not become ${wanted ? 'checked' : 'unchecked'} when its label was clicked. Take a new snapshot to see what the page did.`,
        );
    }
  } else if (kind === 'select') {
    await assertSelectable(element, ref, [String(value)]);
    await element.selectOption(String(value), { timeout: ACTION_TIMEOUT_MS });
  } else await typeText(page, element, ref, String(value), false);
}

/**
 * A native <select> has the options asked for, and is enabled: said at once,
 * with the options there are, where Playwright would wait 30 s for them.
 * Other elements (a custom combobox) go to Playwright, which says what it can.
 */
async function assertSelectable(element: ElementHandle, ref: string, values: string[]): Promise<void> {
  const state = await element.evaluate((el) =>
    el instanceof HTMLSelectElement
      ? { disabled: el.disabled, options: [...el.options].map((option) => ({ value: option.value, label: option.label.trim() })) }
      : undefined,
  );
  if (!state) return;
  if (state.disabled)
    throw new ConflictError(
      `${ref} is disabled, so nothing can be chosen in it now. The page may enable it once something else is done; take a new snapshot to see.`,
    );
  const missing = values.filter((wanted) => !state.options.some((option) => option.value === wanted || option.label === wanted));
  if (!missing.length) return;
  const shown = state.options.slice(0, 30).map((option) => JSON.stringify(option.label || option.value));
  const more = state.options.length > 30 ? `, and ${state.options.length - 30} more` : '';
  throw new ConflictError(
    `${ref} has no option ${missing.map((value) => JSON.stringify(value)).join(' or ')}. Its options (by label; values work too): ${shown.join(', ') || 'none'}${more}.`,
  );
}

/** How often a wait looks at the page. */
const WAIT_POLL_MS = 100;

/**
 * A wait is ours, not Playwright's: a look at the page (in its isolated
 * world) every WAIT_POLL_MS, so that an abort stops it between two looks and
 * nothing is left polling the page for a caller that has gone.
 */
async function waitFor(page: Page, action: Extract<Action, { kind: 'wait' }>, signal?: AbortSignal): Promise<void> {
  if (action.timeMs !== undefined) await sleep(action.timeMs, signal);
  const { text, textGone, selector } = action;
  if (text === undefined && textGone === undefined && selector === undefined) return;
  const timeout = action.timeoutMs ?? WAIT_DEFAULT_MS;
  const deadline = Date.now() + timeout;
  for (;;) {
    signal?.throwIfAborted();
    const found = await probe(page.mainFrame(), { text, textGone, selector }).catch(() => false);
    if (found === true) return;
    if (typeof found === 'object') throw new BadRequestError(`Invalid selector ${JSON.stringify(selector)}: ${found.error}`);
    if (Date.now() >= deadline) {
      const what = [
        text !== undefined && `text ${JSON.stringify(text)}`,
        textGone !== undefined && `text ${JSON.stringify(textGone)} to go`,
        selector !== undefined && `selector ${JSON.stringify(selector)}`,
      ]
        .filter(Boolean)
        .join(' and ');
      throw new TimeoutError(`Waited ${timeout} ms for ${what}; it did not happen`);
    }
    await sleep(WAIT_POLL_MS, signal);
  }
}
