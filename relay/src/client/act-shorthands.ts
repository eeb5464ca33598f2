import type { ActOptions } from '../api/act-options.js';
import type { ActionResult } from '../api/responses.js';
import type { ActionOptions, ActionRequest } from '../api/schemas.js';

/**
 * The typed client's shorthands for `POST /act`, one per action kind: each
 * is `act()` with its kind and its main arguments named (BrowserClient).
 */
export abstract class ActShorthands {
  abstract act(action: ActionRequest, options?: ActOptions): Promise<ActionResult>;

  click(ref: string, options: Omit<ActionOptions<'click'>, 'ref' | 'x' | 'y'> = {}) {
    return this.act({ kind: 'click', ref, ...options });
  }
  clickAt(x: number, y: number, options: Omit<ActionOptions<'click'>, 'ref' | 'x' | 'y'> = {}) {
    return this.act({ kind: 'click', x, y, ...options });
  }
  type(ref: string, text: string, options: Omit<ActionOptions<'type'>, 'ref' | 'text'> = {}) {
    return this.act({ kind: 'type', ref, text, ...options });
  }
  press(key: string, options: Omit<ActionOptions<'press'>, 'key'> = {}) {
    return this.act({ kind: 'press', key, ...options });
  }
  hover(ref: string, options: Omit<ActionOptions<'hover'>, 'ref'> = {}) {
    return this.act({ kind: 'hover', ref, ...options });
  }
  drag(startRef: string, endRef: string, options: Pick<ActionOptions<'drag'>, 'targetId' | 'steps'> = {}) {
    return this.act({ kind: 'drag', startRef, endRef, ...options });
  }
  // Where a ref cannot serve (spec §26): points are CSS pixels of the viewport, as a screenshot of it shows them.
  /** A drag between two points of the page, in `steps` mousemove events (default: about one per 8 pixels). */
  dragAt(from: { x: number; y: number }, to: { x: number; y: number }, options: Pick<ActionOptions<'drag'>, 'targetId' | 'steps'> = {}) {
    return this.act({ kind: 'drag', x: from.x, y: from.y, endX: to.x, endY: to.y, ...options });
  }
  move(x: number, y: number, options: Omit<ActionOptions<'move'>, 'x' | 'y'> = {}) {
    return this.act({ kind: 'move', x, y, ...options });
  }
  /** A mouse button pressed (at x,y, or where the mouse is). */
  mouseDown(options: ActionOptions<'mousedown'> = {}) {
    return this.act({ kind: 'mousedown', ...options });
  }
  mouseUp(options: ActionOptions<'mouseup'> = {}) {
    return this.act({ kind: 'mouseup', ...options });
  }
  scroll(deltaX: number, deltaY: number, options: Omit<ActionOptions<'scroll'>, 'deltaX' | 'deltaY'> = {}) {
    return this.act({ kind: 'scroll', deltaX, deltaY, ...options });
  }
  /** Text selected as a person drags across it: `text` where the page shows it first (in the element of `ref`, with one), or all of `ref`'s text. */
  selectText(options: Pick<ActionOptions<'select-text'>, 'text' | 'ref' | 'targetId'>) {
    return this.act({ kind: 'select-text', ...options });
  }
  /** Text selected by a drag between two points. */
  selectTextAt(from: { x: number; y: number }, to: { x: number; y: number }, options: Pick<ActionOptions<'select-text'>, 'targetId'> = {}) {
    return this.act({ kind: 'select-text', x: from.x, y: from.y, endX: to.x, endY: to.y, ...options });
  }
  select(ref: string, values: string[], options: Omit<ActionOptions<'select'>, 'ref' | 'values'> = {}) {
    return this.act({ kind: 'select', ref, values, ...options });
  }
  fill(fields: ActionOptions<'fill'>['fields'], options: Omit<ActionOptions<'fill'>, 'fields'> = {}) {
    return this.act({ kind: 'fill', fields, ...options });
  }
  wait(options: ActionOptions<'wait'>) {
    return this.act({ kind: 'wait', ...options });
  }
  resize(width: number, height: number, options: Omit<ActionOptions<'resize'>, 'width' | 'height'> = {}) {
    return this.act({ kind: 'resize', width, height, ...options });
  }
  evaluate(fn: string, options: Omit<ActionOptions<'evaluate'>, 'fn'> = {}) {
    return this.act({ kind: 'evaluate', fn, ...options });
  }
}
