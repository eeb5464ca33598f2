import { z } from 'zod';
import { FenceSchema } from './fence-schema.js';
import { ActionResultSchema } from './responses.js';

/** What the vision routes answer (spec §16): a labelled screenshot, and a computer-use batch's outcome. */

const Box = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).describe("In the picture's pixels");

export const ScreenLabelSchema = z.object({
  label: z.string().describe("The number drawn: the ref without its e (12 is e12); a frame's ref whole (f1e3)"),
  ref: z.string().describe('The ref POST /act takes'),
  role: z.string(),
  name: z.string().optional(),
  box: Box,
});
export type ScreenLabel = z.infer<typeof ScreenLabelSchema>;

const Picture = {
  type: z.enum(['png', 'jpeg']),
  mimeType: z.string(),
  data: z.string().describe('Base64'),
  width: z.number().int(),
  height: z.number().int(),
};

export const LabelledScreenshotSchema = z.object({
  targetId: z.string(),
  url: z.string(),
  title: z.string(),
  ...Picture,
  scale: z.number().describe('Picture pixels per CSS pixel'),
  labels: z.array(ScreenLabelSchema),
  notShown: z.number().int().describe('Refs of the snapshot not on the picture (scrolled away, hidden)'),
  snapshot: z.string().optional().describe('The snapshot whose refs the labels are (with snapshot: true)'),
  fence: FenceSchema.optional(),
});
export type LabelledScreenshot = z.infer<typeof LabelledScreenshotSchema>;

export const ComputerResultSchema = z.object({
  targetId: z.string(),
  url: z.string().optional().describe('Absent when the batch closed the tab'),
  title: z.string().optional(),
  performed: z.number().int().describe('Actions run (all of them: a failure is an error naming the one that failed)'),
  display: z.object({ width: z.number().int(), height: z.number().int() }).describe('The screen the page fits in: the display asked for, else the viewport'),
  scale: z.number().describe('Picture pixels per CSS pixel'),
  cursor: z.object({ x: z.number(), y: z.number() }).describe("Where the mouse is, in the picture's pixels"),
  screenshot: z
    .object({ ...Picture, zoomed: z.array(z.number()).optional().describe('The region [x1, y1, x2, y2] shown, when the batch ended with zoom') })
    .optional()
    .describe("The screen after the batch, at the display's size (or smaller on one side when the proportions differ)"),
  changes: z
    .object({
      navigated: z.boolean(),
      from: z.string().optional(),
      events: z.array(z.string()).describe('Dialogs, downloads, refusals and tabs the batch opened'),
    })
    .optional(),
  confirmation: ActionResultSchema.shape.confirmation.describe(
    "The batch stopped at a press a confirm rule names (a click, a button, Enter or Space on what has focus): `performed` actions ran, the rest wait for a person's yes, and run, that press first, when they say it (GET /handoff/{id}?wait=60 then carries the batch's answer)",
  ),
  confirmed: ActionResultSchema.shape.confirmed,
  fence: FenceSchema.optional(),
});
export type ComputerResult = z.infer<typeof ComputerResultSchema>;
