import type { z } from 'zod';
import type { schemas } from '../../api/schemas.js';
import { BadRequestError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * `POST /screencast/input`: a person's click, scroll or keys from the live
 * view, sent to the tab as input events. Positions come as fractions of the
 * view, so they mean the same spot whatever size the viewer shows it at.
 * An agent's input (not a person's) is asked `beforePress` first, where it
 * would act on a control: a click's point, or what has focus for a key that
 * acts (Enter, Space) or typed text that holds one.
 */
export async function sendViewInput(
  tab: DriverTab,
  input: z.output<typeof schemas.viewInput>,
  beforePress?: (at: { x: number; y: number } | 'focused' | 'focused-space') => Promise<void>,
): Promise<void> {
  const { page } = tab;
  const size = page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
  const at = () => {
    if (input.x === undefined || input.y === undefined) throw new BadRequestError(`${input.type} needs x and y (fractions of the view)`);
    return { x: input.x * size.width, y: input.y * size.height };
  };
  switch (input.type) {
    case 'click': {
      const { x, y } = at();
      await beforePress?.({ x, y });
      tab.markPointer('press', { x, y });
      await page.mouse.click(x, y, { button: input.button });
      break;
    }
    case 'move': {
      const { x, y } = at();
      tab.markPointer('move', { x, y });
      await page.mouse.move(x, y);
      break;
    }
    case 'scroll':
      if (input.x !== undefined && input.y !== undefined) await page.mouse.move(at().x, at().y);
      await page.mouse.wheel(input.deltaX ?? 0, input.deltaY ?? 0);
      break;
    case 'type':
      if (/[\n\r]/.test(input.text ?? '')) await beforePress?.('focused');
      else if ((input.text ?? '').includes(' ')) await beforePress?.('focused-space');
      await page.keyboard.type(input.text ?? '');
      break;
    case 'press':
      if (!input.key) throw new BadRequestError('press needs key');
      if (/(^|\+)(Enter|NumpadEnter)$/.test(input.key)) await beforePress?.('focused');
      else if (/(^|\+)(Space| )$/.test(input.key)) await beforePress?.('focused-space');
      await page.keyboard.press(input.key);
      break;
  }
}
