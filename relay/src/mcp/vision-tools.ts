import { z } from 'zod';
import type { ComputerResult } from '../api/vision-responses.js';
import { ANTHROPIC_ACTIONS } from '../api/vision-schemas.js';
import { fenced } from '../api/page-content.js';
import { defineTool, Profile, TargetId, type Tool, type ToolResult, waitingForYes, withProfile } from './tools.js';
import { labelLine } from './vision-lines.js';

/**
 * The vision group (capabilities.ts), for agents that look: a labelled
 * screenshot (each ref a numbered box), and computer use by coordinates in
 * the shape of Anthropic's computer tool, which every model that has seen
 * it emits as is. Both answer with the picture itself; the text beside it
 * is short. Over HTTP both vendors' shapes are taken (`POST /computer/openai`,
 * `/computer/anthropic`); here one keeps the definition small.
 */

/** Inputs stay in the subset every MCP client maps: pairs are lists of numbers (the API checks their length). */
const Numbers = z.array(z.number());
const Display = z
  .object({ width: z.number().int(), height: z.number().int() })
  .optional()
  .describe('the screen size the model was told; default: the viewport');

function picture(answer: { data: string; mimeType: string }, lines: string[]): ToolResult {
  return {
    content: [
      { type: 'image', data: answer.data, mimeType: answer.mimeType },
      { type: 'text', text: lines.join('\n') },
    ],
  };
}

/** What a computer batch did, in a few lines for a reader (the picture goes beside them). */
export function batchOutcome(result: ComputerResult): string[] {
  const lines = [
    `${result.performed} done; cursor at ${result.cursor.x},${result.cursor.y}; screen ${result.screenshot?.width ?? result.display.width}×${result.screenshot?.height ?? result.display.height}`,
  ];
  // Where the page went and what it said are its words: fenced.
  const page: string[] = [];
  if (result.confirmed)
    lines.push(
      result.confirmed.by === 'person'
        ? `A person said yes (rule ${result.confirmed.rule}).`
        : `Pre-approved for this session (rule ${result.confirmed.rule}).`,
    );
  if (result.url === undefined) lines.push('The tab closed.');
  else if (result.changes?.navigated) {
    lines.push('Navigated:');
    page.push(`${result.url} ${JSON.stringify(result.title)}`);
  }
  for (const event of result.changes?.events ?? []) page.push(`- ${event}`);
  if (page.length) lines.push(fenced(result.fence, page));
  return lines;
}

export const VISION_TOOLS: Tool[] = [
  defineTool({
    name: 'browser_labelled_screenshot',
    description: "Screenshot with each ref drawn as a numbered box (12 is ref e12), and the labels' roles and names.",
    group: 'vision',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      fullPage: z.boolean().optional(),
      interactive: z.boolean().optional().describe('false: every ref, not only controls'),
      display: Display,
    }),
    readOnly: true,
    run: async (api, { profile, ...request }) => {
      const shot = await withProfile(api, { profile }).vision.labelledScreenshot({ ...request, type: 'jpeg', quality: 80 });
      const labels = shot.labels.length ? [fenced(shot.fence, shot.labels.map(labelLine))] : [];
      return picture(shot, [...labels, ...(shot.notShown ? [`(${shot.notShown} more off screen)`] : [])]);
    },
  }),
  defineTool({
    name: 'browser_computer',
    description: "Anthropic computer-tool actions (left_click, type, key 'ctrl+a', scroll…) at the last screenshot's pixels; answers with a new one.",
    group: 'vision',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      display: Display,
      actions: z.array(
        z.object({
          action: z.enum(ANTHROPIC_ACTIONS),
          coordinate: Numbers.optional(),
          start_coordinate: Numbers.optional(),
          text: z.string().optional(),
          duration: z.number().optional(),
          scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional(),
          scroll_amount: z.number().int().optional(),
          region: Numbers.optional(),
        }),
      ),
    }),
    readOnly: false,
    run: async (api, { profile, targetId, display, actions }, session, call) => {
      // A press a confirm rule names pauses the batch for a person's yes: the progress says where they are asked.
      const result = await withProfile(api, { profile }).vision.computerAnthropic(
        { targetId, display, actions: actions as never, type: 'jpeg', quality: 80, changes: true },
        { person: session.askPerson === true, onConfirmation: (asked) => void call.progress(waitingForYes(asked)) },
      );
      return result.screenshot ? picture(result.screenshot, batchOutcome(result)) : { content: [{ type: 'text', text: batchOutcome(result).join('\n') }] };
    },
  }),
];
