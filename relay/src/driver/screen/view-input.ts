import type { z } from 'zod';
import type { schemas } from '../../api/schemas.js';
import { BadRequestError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * `POST /screencast/input`: a person's click, scroll or keys from the live
 * view, sent to the tab as input events. Positions come as fractions of the
 * view, so they mean the same spot whatever size the viewer shows it at.
 */
export async function sendViewInput(tab: DriverTab, input: z.output<typeof schemas.viewInput>): Promise<void> {
  const { page } = tab;
  const size = page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
  const at = () => {
    if (input.x === undefined || input.y === undefined) throw new BadRequestError(`${input.type} needs x and y (fractions of the view)`);
    return { x: input.x * size.width, y: input.y * size.height };
  };
  switch (input.type) {
    case 'click': {
      const { x, y } = at();
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
      await page.keyboard.type(input.text ?? '');
      break;
    case 'press':
      if (!input.key) throw new BadRequestError('press needs key');
      await page.keyboard.press(input.key);
      break;
  }
}
