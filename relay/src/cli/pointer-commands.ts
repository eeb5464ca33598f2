import { type Command, InvalidArgumentError } from 'commander';
import { actAnswer } from '../api/act-answer.js';
import type { BrowserClient } from '../client/browser-client.js';
import type { Print } from './print.js';

/**
 * What a person does with the mouse where no ref serves (spec §26): a click
 * at a point (from a screenshot, or an element's box), the mouse moved,
 * pressed and released on its own, a drag between points in steps, a text
 * range selected, a scroll. Points are CSS pixels of the viewport, as a
 * screenshot of it shows them. Each answers as every act does
 * (api/act-answer.ts).
 */

/** A coordinate, said as such when it is not one. */
function pixels(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number of CSS pixels');
  return n;
}

function count(value: string): number {
  if (!/^[123]$/.test(value.trim())) throw new InvalidArgumentError('must be 1, 2 or 3');
  return Number(value);
}

function steps(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new InvalidArgumentError('must be a whole number from 1 to 200');
  return n;
}

type Button = 'left' | 'right' | 'middle';

export function addPointerCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const withTarget = (command: Command) => command.option('--target <targetId>', 'the tab (default: the last used)');
  const answer = (result: Parameters<typeof actAnswer>[0]) => print(result, () => actAnswer(result));

  withTarget(
    program
      .command('click-at')
      .description('click at a point of the page (CSS pixels of the viewport, as a screenshot shows them)')
      .argument('<x>', 'from the left', pixels)
      .argument('<y>', 'from the top', pixels),
  )
    .option('--count <n>', '2 double-clicks (a word), 3 triple-clicks (a paragraph)', count)
    .option('--button <button>', 'left, right or middle')
    .action(async (x: number, y: number, options: { count?: number; button?: Button; target?: string }) =>
      answer(await client().clickAt(x, y, { count: options.count, button: options.button, targetId: options.target })),
    );
  withTarget(program.command('mousemove').description('move the mouse to a point').argument('<x>', '', pixels).argument('<y>', '', pixels))
    .option('--steps <n>', 'mousemove events on the way (default 1)', steps)
    .action(async (x: number, y: number, options: { steps?: number; target?: string }) =>
      answer(await client().move(x, y, { steps: options.steps, targetId: options.target })),
    );
  for (const [name, description] of [
    ['mousedown', 'press a mouse button (at x y, or where the mouse is) and hold it'],
    ['mouseup', 'release a mouse button (at x y, or where the mouse is)'],
  ] as const) {
    withTarget(program.command(name).description(description).argument('[x]', '', pixels).argument('[y]', '', pixels))
      .option('--button <button>', 'left, right or middle')
      .action(async (x: number | undefined, y: number | undefined, options: { button?: Button; target?: string }) => {
        if ((x === undefined) !== (y === undefined)) throw new InvalidArgumentError(`${name} takes x and y together, or neither`);
        const request = { ...(x !== undefined ? { x, y } : {}), button: options.button, targetId: options.target };
        answer(await (name === 'mousedown' ? client().mouseDown(request) : client().mouseUp(request)));
      });
  }
  withTarget(
    program
      .command('drag-at')
      .description('drag from one point to another, in steps as a hand moves')
      .argument('<x>', '', pixels)
      .argument('<y>', '', pixels)
      .argument('<endX>', '', pixels)
      .argument('<endY>', '', pixels),
  )
    .option('--steps <n>', 'mousemove events on the way (default: about one per 8 pixels)', steps)
    .action(async (x: number, y: number, endX: number, endY: number, options: { steps?: number; target?: string }) =>
      answer(await client().dragAt({ x, y }, { x: endX, y: endY }, { steps: options.steps, targetId: options.target })),
    );
  withTarget(
    program
      .command('select-text')
      .description("select text as a person drags across it: where the page shows it first (in --ref's element with one), or all of --ref's text")
      .argument('[text]'),
  )
    .option('--ref <ref>', 'in this element only')
    .action(async (text: string | undefined, options: { ref?: string; target?: string }) => {
      if (text === undefined && options.ref === undefined) throw new InvalidArgumentError('select-text needs the text to select, or --ref');
      answer(await client().selectText({ text, ref: options.ref, targetId: options.target }));
    });
  withTarget(
    program
      .command('select-text-at')
      .description('select the text between two points (a drag)')
      .argument('<x>', '', pixels)
      .argument('<y>', '', pixels)
      .argument('<endX>', '', pixels)
      .argument('<endY>', '', pixels),
  ).action(async (x: number, y: number, endX: number, endY: number, options: { target?: string }) =>
    answer(await client().selectTextAt({ x, y }, { x: endX, y: endY }, { targetId: options.target })),
  );
  withTarget(
    program
      .command('scroll')
      .description('turn the mouse wheel (over x y with --at)')
      .argument('<deltaX>', 'pixels right', pixels)
      .argument('<deltaY>', 'pixels down', pixels),
  )
    .option('--at <x,y>', 'over this point')
    .action(async (deltaX: number, deltaY: number, options: { at?: string; target?: string }) => {
      const at = options.at?.split(',').map((part) => pixels(part));
      if (at && at.length !== 2) throw new InvalidArgumentError('--at takes x,y');
      answer(await client().scroll(deltaX, deltaY, { ...(at ? { x: at[0], y: at[1] } : {}), targetId: options.target }));
    });
}
