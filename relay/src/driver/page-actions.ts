import type { ElementHandle, Page } from 'playwright-core';
import { BadRequestError } from '../errors.js';
import type { Action } from '../api/schemas.js';

/**
 * `POST /act` (spec §6): one action on a page, by ref (from the last
 * snapshot) or, for screenshot-driven agents, by coordinates. Returns what
 * the agent may want next; the page's own state is the proof of the effect.
 */

export type RefResolver = (ref: string) => Promise<ElementHandle>;

/** How long one Playwright step of an action (a click, a fill, a screenshot) may take. */
export const ACTION_TIMEOUT_MS = 30_000;
/** Steps for mouse drags, so pages see intermediate moves (drag-and-drop needs them). */
const DRAG_STEPS = 8;

export async function performAction(page: Page, action: Action, resolve: RefResolver): Promise<Record<string, unknown>> {
  const timeout = ACTION_TIMEOUT_MS;
  switch (action.kind) {
    case 'click': {
      const options = { button: action.button, clickCount: action.double ? 2 : 1, modifiers: action.modifiers };
      if (action.ref !== undefined) await (await resolve(action.ref)).click({ ...options, timeout });
      else await withModifiers(page, action.modifiers, () => page.mouse.click(action.x!, action.y!, options));
      return {};
    }
    case 'type': {
      const element = await resolve(action.ref);
      if (action.slowly) {
        // Key by key, for pages that react to each keystroke (autocomplete, validation).
        await element.fill('', { timeout });
        await element.type(action.text, { delay: 40, timeout });
      } else {
        await element.fill(action.text, { timeout });
      }
      if (action.submit) await element.press('Enter', { timeout });
      return {};
    }
    case 'press':
      await page.keyboard.press(action.key);
      return {};
    case 'hover':
      await (await resolve(action.ref)).hover({ timeout });
      return {};
    case 'move':
      await page.mouse.move(action.x, action.y);
      return {};
    case 'drag': {
      const [from, to] =
        action.startRef !== undefined
          ? [await centreOf(await resolve(action.startRef)), await centreOf(await resolve(action.endRef!))]
          : [{ x: action.x!, y: action.y! }, { x: action.endX!, y: action.endY! }];
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: DRAG_STEPS });
      await page.mouse.up();
      return {};
    }
    case 'scroll':
      if (action.x !== undefined && action.y !== undefined) await page.mouse.move(action.x, action.y);
      await page.mouse.wheel(action.deltaX, action.deltaY);
      return {};
    case 'select':
      return { selected: await (await resolve(action.ref)).selectOption(action.values, { timeout }) };
    case 'fill':
      for (const field of action.fields) await fillField(await resolve(field.ref), field.value);
      return { filled: action.fields.length };
    case 'wait':
      await waitFor(page, action);
      return {};
    case 'resize':
      await page.setViewportSize({ width: action.width, height: action.height });
      return { viewport: { width: action.width, height: action.height } };
    case 'close':
      await page.close();
      return { closed: true };
    case 'evaluate':
      return { result: (await evaluateSource(page, action.fn, action.ref === undefined ? undefined : await resolve(action.ref))) ?? null };
  }
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
    const message = (error as Error).message.split('\n')[0];
    if (/SyntaxError|is not a function/.test(message)) throw new BadRequestError(`fn is not a function's source: ${message}`);
    throw error;
  }
}

/** One form field, whatever kind of control it is. */
async function fillField(element: ElementHandle, value: string | boolean): Promise<void> {
  const kind = await element.evaluate((el) => (el instanceof HTMLInputElement ? el.type : (el as Element).tagName.toLowerCase()));
  if (kind === 'checkbox' || kind === 'radio') await element.setChecked(value === true || value === 'true', { timeout: ACTION_TIMEOUT_MS });
  else if (kind === 'select') await element.selectOption(String(value), { timeout: ACTION_TIMEOUT_MS });
  else await element.fill(String(value), { timeout: ACTION_TIMEOUT_MS });
}

async function waitFor(page: Page, action: Extract<Action, { kind: 'wait' }>): Promise<void> {
  const timeout = action.timeoutMs ?? ACTION_TIMEOUT_MS;
  if (action.timeMs !== undefined) await page.waitForTimeout(action.timeMs);
  if (action.selector !== undefined) await page.locator(action.selector).first().waitFor({ state: 'visible', timeout });
  if (action.text !== undefined) await page.getByText(action.text).first().waitFor({ state: 'visible', timeout });
  if (action.textGone !== undefined) await page.getByText(action.textGone).first().waitFor({ state: 'hidden', timeout });
}

async function centreOf(element: ElementHandle): Promise<{ x: number; y: number }> {
  await element.scrollIntoViewIfNeeded();
  const box = await element.boundingBox();
  if (!box) throw new Error('the element is not visible, so it cannot be dragged');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function withModifiers(page: Page, modifiers: string[] | undefined, act: () => Promise<void>): Promise<void> {
  for (const key of modifiers ?? []) await page.keyboard.down(key);
  try {
    await act();
  } finally {
    for (const key of [...(modifiers ?? [])].reverse()) await page.keyboard.up(key);
  }
}
