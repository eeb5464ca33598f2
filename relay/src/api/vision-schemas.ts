import { z } from 'zod';

/**
 * For agents that look (spec §16): labelled screenshots, and computer-use
 * action batches in the two shapes hosted models emit (OpenAI's computer-use
 * actions, Anthropic's computer tool). Kept beside schemas.ts, which spreads
 * them into `schemas`, the one table the routes and the clients use.
 *
 * Coordinates are pixels of the screenshot the model was given, whose size
 * is the `display` the model was told. The actions are the vendors' own
 * objects, checked strictly: a field or an action neither vendor defines is
 * a 400 naming it, never silently dropped.
 */

const TargetId = z.string().min(1);
/** A pixel of the screenshot the model saw; models send integers, runtimes may send scaled floats. */
const Pixel = z.number().finite();
const Text = z.string().max(10_000, 'at most 10,000 characters per action');
/** The most actions in one batch: a model's turn, not a script. */
export const MAX_COMPUTER_ACTIONS = 100;

export const Display = z
  .strictObject({
    width: z.number().int().min(64).max(8192),
    height: z.number().int().min(64).max(8192),
  })
  .describe("the screen size the model was told: screenshots are scaled to fit it and its coordinates scaled back (default: the viewport's CSS size)");

const ImageType = z.enum(['png', 'jpeg']);
const Quality = z.number().int().min(0).max(100);

// ---- OpenAI's computer-use actions (the Responses API's computer_call `action` / `actions`)

const OpenAiKeys = z.array(z.string().min(1).max(40)).max(8);
const openAiPoint = { x: Pixel, y: Pixel };

export const OpenAiAction = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('click'),
    ...openAiPoint,
    button: z.enum(['left', 'right', 'wheel', 'back', 'forward']).default('left'),
    keys: OpenAiKeys.optional(),
  }),
  z.strictObject({ type: z.literal('double_click'), ...openAiPoint, keys: OpenAiKeys.optional() }),
  z.strictObject({ type: z.literal('scroll'), ...openAiPoint, scroll_x: Pixel, scroll_y: Pixel, keys: OpenAiKeys.optional() }),
  z.strictObject({ type: z.literal('type'), text: Text }),
  z.strictObject({ type: z.literal('keypress'), keys: OpenAiKeys.min(1) }),
  z.strictObject({ type: z.literal('drag'), path: z.array(z.strictObject(openAiPoint)).min(2).max(200), keys: OpenAiKeys.optional() }),
  z.strictObject({ type: z.literal('move'), ...openAiPoint, keys: OpenAiKeys.optional() }),
  z.strictObject({ type: z.literal('wait') }),
  z.strictObject({ type: z.literal('screenshot') }),
]);
export type OpenAiAction = z.output<typeof OpenAiAction>;

// ---- Anthropic's computer tool (computer_20250124 and computer_20251124): one flat object per action

export const ANTHROPIC_ACTIONS = [
  'key',
  'hold_key',
  'type',
  'cursor_position',
  'mouse_move',
  'left_mouse_down',
  'left_mouse_up',
  'left_click',
  'left_click_drag',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'scroll',
  'wait',
  'screenshot',
  'zoom',
] as const;

const Coordinate = z.tuple([Pixel, Pixel]);

export const AnthropicAction = z.strictObject({
  action: z.enum(ANTHROPIC_ACTIONS),
  coordinate: Coordinate.optional(),
  start_coordinate: Coordinate.optional(),
  text: Text.optional(),
  /** Seconds, for wait and hold_key. */
  duration: z.number().min(0).max(60).optional(),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  scroll_amount: z.number().int().min(0).max(100).optional(),
  /** zoom: [x1, y1, x2, y2], the part of the screen to see at full size. */
  region: z.tuple([Pixel, Pixel, Pixel, Pixel]).optional(),
});
export type AnthropicAction = z.output<typeof AnthropicAction>;

const computerRequest = {
  targetId: TargetId.optional(),
  display: Display.optional(),
  /** The fresh screenshot after the batch (on by default: that is what the model looks at next). */
  screenshot: z.boolean().default(true),
  type: ImageType.default('png'),
  quality: Quality.optional(),
  /** What the batch changed: navigation, dialogs, downloads, tabs it opened. */
  changes: z.boolean().default(false),
};

export const visionSchemas = {
  /** `POST /screenshot/labelled`: a screenshot with each ref of a fresh snapshot drawn as a numbered box. */
  labelledScreenshot: z.strictObject({
    targetId: TargetId.optional(),
    fullPage: z.boolean().default(false),
    /** Only what can be acted on (the default), or every ref of the snapshot. */
    interactive: z.boolean().default(true),
    display: Display.optional(),
    type: ImageType.default('png'),
    quality: Quality.optional(),
    /** The snapshot's text too, whose refs are the labels. */
    snapshot: z.boolean().default(false),
  }),
  computerOpenai: z.strictObject({ ...computerRequest, actions: z.array(OpenAiAction).max(MAX_COMPUTER_ACTIONS) }),
  computerAnthropic: z.strictObject({ ...computerRequest, actions: z.array(AnthropicAction).max(MAX_COMPUTER_ACTIONS) }),
};

export type ComputerRequest = z.output<typeof visionSchemas.computerOpenai> | z.output<typeof visionSchemas.computerAnthropic>;
export type ComputerDialect = 'openai' | 'anthropic';
