import type { AnthropicAction, OpenAiAction } from '../api/vision-schemas.js';
import { BadRequestError } from '../errors.js';
import { openAiKey, UnknownKeyError, xdotoolChord, xdotoolKeys } from './key-names.js';

/**
 * The two vendors' computer actions, as one list of steps for one executor
 * (driver/screen/computer-use.ts). Points are pixels of the screenshot the model
 * saw; keys are Playwright's names. A whole batch is translated before
 * anything runs, so an action or a key that does not exist is a 400 that
 * names it (`actions.3.keys.1`) and the page is untouched.
 */

export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward';

export interface Point {
  x: number;
  y: number;
}

export type ComputerStep =
  | { kind: 'move'; to: Point; hold: string[] }
  | { kind: 'click'; at?: Point; button: MouseButton; count: number; hold: string[] }
  | { kind: 'button'; at?: Point; down: boolean }
  | { kind: 'drag'; path: Point[]; hold: string[] }
  /** Wheel deltas in screenshot pixels (`unit: image`) or CSS pixels (notches). */
  | { kind: 'scroll'; at?: Point; deltaX: number; deltaY: number; unit: 'image' | 'css'; hold: string[] }
  | { kind: 'type'; text: string }
  /** Chords pressed one after another; the keys of a chord together. */
  | { kind: 'keys'; chords: string[][] }
  | { kind: 'hold'; keys: string[]; ms: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'screenshot' }
  | { kind: 'cursor' }
  | { kind: 'zoom'; region: [number, number, number, number] };

/** OpenAI's `wait` says no duration: a second, as in OpenAI's reference loop. */
export const OPENAI_WAIT_MS = 1_000;
/** One notch of Anthropic's `scroll_amount`, in CSS pixels (Chrome's wheel step on Windows). */
export const SCROLL_NOTCH_CSS = 100;

function invalid(path: string, message: string): BadRequestError {
  return new BadRequestError(`Invalid actions${path}: ${message}`);
}

function keysAt(path: string, keys: string[] | undefined, map: (key: string) => string): string[] {
  return (keys ?? []).map((key, index) => {
    try {
      return map(key);
    } catch (error) {
      if (error instanceof UnknownKeyError)
        throw invalid(
          `${path}.keys.${index}`,
          `${error.message} in OpenAI's key names (CTRL, SHIFT, ALT, CMD, ENTER, ESC, TAB, SPACE, BACKSPACE, DELETE, ARROWUP…, PAGEUP, HOME, END, F1…F24, or one character)`,
        );
      throw error;
    }
  });
}

export function openAiSteps(actions: OpenAiAction[]): ComputerStep[] {
  return actions.map((action, index): ComputerStep => {
    const path = `.${index}`;
    const hold = 'keys' in action && action.type !== 'keypress' ? keysAt(path, action.keys, openAiKey) : [];
    switch (action.type) {
      case 'click':
        return { kind: 'click', at: { x: action.x, y: action.y }, button: action.button === 'wheel' ? 'middle' : action.button, count: 1, hold };
      case 'double_click':
        return { kind: 'click', at: { x: action.x, y: action.y }, button: 'left', count: 2, hold };
      case 'scroll':
        return { kind: 'scroll', at: { x: action.x, y: action.y }, deltaX: action.scroll_x, deltaY: action.scroll_y, unit: 'image', hold };
      case 'type':
        return { kind: 'type', text: action.text };
      case 'keypress':
        return { kind: 'keys', chords: [keysAt(path, action.keys, openAiKey)] };
      case 'drag':
        return { kind: 'drag', path: action.path, hold };
      case 'move':
        return { kind: 'move', to: { x: action.x, y: action.y }, hold };
      case 'wait':
        return { kind: 'wait', ms: OPENAI_WAIT_MS };
      case 'screenshot':
        return { kind: 'screenshot' };
    }
  });
}

/** Which of Anthropic's optional fields each action takes (`text` on a click: the modifiers held). */
const ANTHROPIC_FIELDS: Record<AnthropicAction['action'], Array<keyof AnthropicAction>> = {
  key: ['text'],
  hold_key: ['text', 'duration'],
  type: ['text'],
  cursor_position: [],
  mouse_move: ['coordinate', 'text'],
  left_mouse_down: ['coordinate'],
  left_mouse_up: ['coordinate'],
  left_click: ['coordinate', 'text'],
  left_click_drag: ['start_coordinate', 'coordinate', 'text'],
  right_click: ['coordinate', 'text'],
  middle_click: ['coordinate', 'text'],
  double_click: ['coordinate', 'text'],
  triple_click: ['coordinate', 'text'],
  scroll: ['coordinate', 'scroll_direction', 'scroll_amount', 'text'],
  wait: ['duration'],
  screenshot: [],
  zoom: ['region'],
};

const REQUIRED: Partial<Record<AnthropicAction['action'], Array<keyof AnthropicAction>>> = {
  key: ['text'],
  hold_key: ['text', 'duration'],
  type: ['text'],
  mouse_move: ['coordinate'],
  left_click_drag: ['start_coordinate', 'coordinate'],
  scroll: ['scroll_direction', 'scroll_amount'],
  wait: ['duration'],
  zoom: ['region'],
};

function point(coordinate: [number, number] | undefined): Point | undefined {
  return coordinate && { x: coordinate[0], y: coordinate[1] };
}

export function anthropicSteps(actions: AnthropicAction[]): ComputerStep[] {
  return actions.map((action, index): ComputerStep => {
    const path = `.${index}`;
    const allowed = ANTHROPIC_FIELDS[action.action];
    for (const field of Object.keys(action) as Array<keyof AnthropicAction>) {
      if (field !== 'action' && action[field] !== undefined && !allowed.includes(field))
        throw invalid(`${path}.${field}`, `${action.action} takes ${allowed.length ? allowed.join(', ') : 'no other field'}`);
    }
    for (const field of REQUIRED[action.action] ?? []) if (action[field] === undefined) throw invalid(`${path}.${field}`, `${action.action} needs ${field}`);
    const keyed = <T>(what: () => T): T => {
      try {
        return what();
      } catch (error) {
        if (error instanceof UnknownKeyError)
          throw invalid(
            `${path}.text`,
            `${error.message} in xdotool's key names (ctrl, shift, alt, super, Return, Tab, Escape, BackSpace, Delete, Up, Page_Down, Home, F1…F24, KP_0…, minus, slash…, or one character)`,
          );
        throw error;
      }
    };
    // On a click, scroll or move, `text` names the modifier keys held through it.
    const hold =
      action.action === 'key' || action.action === 'hold_key' || action.action === 'type' || action.text === undefined
        ? []
        : keyed(() => xdotoolChord(action.text!));
    const at = point(action.coordinate);
    switch (action.action) {
      case 'key':
        return { kind: 'keys', chords: keyed(() => xdotoolKeys(action.text!)) };
      case 'hold_key':
        return { kind: 'hold', keys: keyed(() => xdotoolChord(action.text!)), ms: action.duration! * 1000 };
      case 'type':
        return { kind: 'type', text: action.text! };
      case 'cursor_position':
        return { kind: 'cursor' };
      case 'mouse_move':
        return { kind: 'move', to: at!, hold };
      case 'left_mouse_down':
      case 'left_mouse_up':
        return { kind: 'button', at, down: action.action === 'left_mouse_down' };
      case 'left_click':
      case 'right_click':
      case 'middle_click':
        return { kind: 'click', at, button: action.action === 'left_click' ? 'left' : action.action === 'right_click' ? 'right' : 'middle', count: 1, hold };
      case 'double_click':
      case 'triple_click':
        return { kind: 'click', at, button: 'left', count: action.action === 'double_click' ? 2 : 3, hold };
      case 'left_click_drag':
        return { kind: 'drag', path: [point(action.start_coordinate)!, at!], hold };
      case 'scroll': {
        const notches = action.scroll_amount! * SCROLL_NOTCH_CSS;
        const direction = action.scroll_direction!;
        const deltaX = direction === 'left' ? -notches : direction === 'right' ? notches : 0;
        const deltaY = direction === 'up' ? -notches : direction === 'down' ? notches : 0;
        return { kind: 'scroll', at, deltaX, deltaY, unit: 'css', hold };
      }
      case 'wait':
        return { kind: 'wait', ms: action.duration! * 1000 };
      case 'screenshot':
        return { kind: 'screenshot' };
      case 'zoom':
        return { kind: 'zoom', region: action.region! };
    }
  });
}

/** Every point a batch names, with where it is in the request (to refuse one off the screenshot by name). */
export function pointsOf(steps: ComputerStep[]): Array<{ point: Point; path: string }> {
  const points: Array<{ point: Point; path: string }> = [];
  steps.forEach((step, index) => {
    if ((step.kind === 'click' || step.kind === 'scroll' || step.kind === 'button') && step.at) points.push({ point: step.at, path: `.${index}` });
    if (step.kind === 'move') points.push({ point: step.to, path: `.${index}` });
    if (step.kind === 'drag') step.path.forEach((point, at) => points.push({ point, path: `.${index}.path.${at}` }));
    if (step.kind === 'zoom') {
      const [x1, y1, x2, y2] = step.region;
      if (x2 <= x1 || y2 <= y1) throw invalid(`.${index}.region`, 'must be [x1, y1, x2, y2] with x2 > x1 and y2 > y1');
      points.push({ point: { x: x1, y: y1 }, path: `.${index}.region` }, { point: { x: x2, y: y2 }, path: `.${index}.region` });
    }
  });
  return points;
}
