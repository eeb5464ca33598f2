import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { anthropicSteps, openAiSteps, pointsOf } from '../../relay/src/vision/computer-steps.js';
import { openAiKey, xdotoolKeys } from '../../relay/src/vision/key-names.js';
import { drawLabels, imageSize } from '../../relay/src/vision/labelled-image.js';
import { checkOnScreen, screenScale, toPage, toScreen } from '../../relay/src/vision/screen-scale.js';

/** The pure parts of vision: the vendors' actions and keys as steps, the screen's scale, labels drawn on pixels. */

describe("keys, in each vendor's names", () => {
  it('OpenAI: capitals name keys, a letter is its key (the shift held decides its case)', () => {
    expect(['CTRL', 'SHIFT', 'ALT', 'CMD', 'ENTER', 'ESC', 'ARROWLEFT', 'PAGEDOWN', 'SPACE', 'F5', 'A', 'z', '7', '/'].map(openAiKey)).toEqual([
      'Control',
      'Shift',
      'Alt',
      'Meta',
      'Enter',
      'Escape',
      'ArrowLeft',
      'PageDown',
      'Space',
      'F5',
      'KeyA',
      'KeyZ',
      'Digit7',
      '/',
    ]);
    expect(() => openAiKey('HYPER')).toThrow('no key is named "HYPER"');
    expect(() => openAiKey('é')).toThrow('no key is named "é"');
  });

  it("Anthropic: xdotool's syntax, chords with +, several separated by spaces, an upper-case letter shifted", () => {
    expect(xdotoolKeys('ctrl+a')).toEqual([['Control', 'KeyA']]);
    expect(xdotoolKeys('Return')).toEqual([['Enter']]);
    expect(xdotoolKeys('ctrl+shift+Page_Down KP_5 BackSpace')).toEqual([['Control', 'Shift', 'PageDown'], ['Numpad5'], ['Backspace']]);
    expect(xdotoolKeys('A')).toEqual([['Shift', 'KeyA']]);
    expect(xdotoolKeys('ctrl+plus super+minus')).toEqual([
      ['Control', '+'],
      ['Meta', '-'],
    ]);
    expect(xdotoolKeys('ctrl++')).toEqual([['Control', '+']]);
    expect(() => xdotoolKeys('ctrl+Hyper_L')).toThrow('no key is named "Hyper_L"');
    expect(() => xdotoolKeys('   ')).toThrow();
  });
});

describe("the vendors' actions as steps", () => {
  it('OpenAI: each action, its buttons and held keys', () => {
    expect(
      openAiSteps([
        { type: 'click', x: 1, y: 2, button: 'wheel' },
        { type: 'double_click', x: 3, y: 4, keys: ['SHIFT'] },
        { type: 'scroll', x: 5, y: 6, scroll_x: 0, scroll_y: 120 },
        { type: 'keypress', keys: ['CTRL', 'A'] },
        {
          type: 'drag',
          path: [
            { x: 1, y: 1 },
            { x: 9, y: 9 },
          ],
        },
        { type: 'wait' },
      ]),
    ).toEqual([
      { kind: 'click', at: { x: 1, y: 2 }, button: 'middle', count: 1, hold: [] },
      { kind: 'click', at: { x: 3, y: 4 }, button: 'left', count: 2, hold: ['Shift'] },
      { kind: 'scroll', at: { x: 5, y: 6 }, deltaX: 0, deltaY: 120, unit: 'image', hold: [] },
      { kind: 'keys', chords: [['Control', 'KeyA']] },
      {
        kind: 'drag',
        path: [
          { x: 1, y: 1 },
          { x: 9, y: 9 },
        ],
        hold: [],
      },
      { kind: 'wait', ms: 1000 },
    ]);
    expect(() => openAiSteps([{ type: 'wait' }, { type: 'keypress', keys: ['CTRL', 'NOPE'] }])).toThrow(/^Invalid actions\.1\.keys\.1: no key is named "NOPE"/);
  });

  it('Anthropic: each action, what it needs and what it does not take', () => {
    expect(
      anthropicSteps([
        { action: 'left_click', coordinate: [10, 20], text: 'shift' },
        { action: 'triple_click', coordinate: [1, 2] },
        { action: 'left_click_drag', start_coordinate: [1, 2], coordinate: [3, 4] },
        { action: 'scroll', coordinate: [5, 5], scroll_direction: 'left', scroll_amount: 2 },
        { action: 'hold_key', text: 'shift', duration: 0.5 },
        { action: 'wait', duration: 2 },
        { action: 'left_mouse_down' },
        { action: 'cursor_position' },
      ]),
    ).toEqual([
      { kind: 'click', at: { x: 10, y: 20 }, button: 'left', count: 1, hold: ['Shift'] },
      { kind: 'click', at: { x: 1, y: 2 }, button: 'left', count: 3, hold: [] },
      {
        kind: 'drag',
        path: [
          { x: 1, y: 2 },
          { x: 3, y: 4 },
        ],
        hold: [],
      },
      { kind: 'scroll', at: { x: 5, y: 5 }, deltaX: -200, deltaY: 0, unit: 'css', hold: [] },
      { kind: 'hold', keys: ['Shift'], ms: 500 },
      { kind: 'wait', ms: 2000 },
      { kind: 'button', at: undefined, down: true },
      { kind: 'cursor' },
    ]);
    expect(() => anthropicSteps([{ action: 'scroll', coordinate: [1, 1], scroll_direction: 'up' }])).toThrow(
      'Invalid actions.0.scroll_amount: scroll needs scroll_amount',
    );
    expect(() => anthropicSteps([{ action: 'screenshot', coordinate: [1, 1] }])).toThrow('Invalid actions.0.coordinate: screenshot takes no other field');
    expect(() => pointsOf(anthropicSteps([{ action: 'zoom', region: [10, 10, 5, 20] }]))).toThrow(
      'Invalid actions.0.region: must be [x1, y1, x2, y2] with x2 > x1 and y2 > y1',
    );
  });
});

describe('the screen a model sees', () => {
  const viewport = { pageX: 0, pageY: 500, offsetX: 0, offsetY: 0, clientWidth: 1000, clientHeight: 800 };
  it("fits the display, keeping the page's proportions, and maps pixels both ways", () => {
    const screen = screenScale(viewport, { width: 500, height: 500 });
    expect(screen).toMatchObject({ scale: 0.5, width: 500, height: 400 });
    expect(toPage(screen, { x: 100, y: 150 })).toEqual({ x: 200, y: 300 });
    expect(toScreen(screen, { x: 200, y: 300 })).toEqual({ x: 100, y: 150 });
    expect(() => checkOnScreen(screen, [{ point: { x: 10, y: 401 }, path: '.3' }])).toThrow('Invalid actions.3: (10, 401) is off the screen, which is 500×400');
    expect(screenScale(viewport)).toMatchObject({ scale: 1, width: 1000, height: 800 });
  });

  it('under pinch zoom, the visual viewport is what is seen, and its offset moves points', () => {
    const zoomed = screenScale({ ...viewport, offsetX: 100, offsetY: 50, clientWidth: 500, clientHeight: 400 }, { width: 1000, height: 800 });
    expect(zoomed.scale).toBe(2);
    expect(toPage(zoomed, { x: 200, y: 100 })).toEqual({ x: 200, y: 100 });
    expect(toPage(zoomed, { x: 0, y: 0 })).toEqual({ x: 100, y: 50 });
  });
});

describe('labels drawn on the picture', () => {
  it('outlines each box and writes its number in white on its colour, as PNG or JPEG, the size unchanged', () => {
    const blank = new PNG({ width: 700, height: 300 });
    blank.data.fill(255);
    const drawn = drawLabels(PNG.sync.write(blank), [{ text: '12', x: 100, y: 100, width: 200, height: 50 }], { type: 'png' });
    const image = PNG.sync.read(drawn.data);
    const pixel = (x: number, y: number) => [...image.data.subarray((y * 700 + x) * 4, (y * 700 + x) * 4 + 3)];
    expect(pixel(100, 125)).toEqual([230, 25, 75]);
    expect(pixel(299, 125)).toEqual([230, 25, 75]);
    expect(pixel(200, 125)).toEqual([255, 255, 255]);
    // The tag sits above the box; the "1" of "12" has white pixels in it.
    const tag = [...Array(18).keys()].flatMap((dy) => [...Array(26).keys()].map((dx) => pixel(100 + dx, 82 + dy).join()));
    expect(tag).toContain('230,25,75');
    expect(tag).toContain('255,255,255');
    expect(imageSize(drawn.data)).toEqual({ width: 700, height: 300 });
    const jpeg = drawLabels(PNG.sync.write(blank), [], { type: 'jpeg', quality: 70 });
    expect(imageSize(jpeg.data)).toEqual({ width: 700, height: 300 });
  });
});
