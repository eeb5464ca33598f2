import { z } from 'zod';
import type { BrowseResult } from '../api/browse-schemas.js';
import { defineTool, Profile, type ToolResult } from './tools.js';
import { runLine } from './browse-lines.js';

/**
 * `browser_browse` (the `browse` group): the caller's model spends one call
 * on a goal, and clawd-browser runs the loop against the model config names
 * (spec §24). The answer is the final answer only (and a screenshot when
 * asked), not the steps: they come as progress notifications while it runs.
 * Cancelling the call cancels the run.
 */

/** The answer, then how the run ended. */
export function describeBrowse(result: BrowseResult): string {
  return `${result.answer || '(no answer)'}\n\n${runLine(result)}`;
}

export const BROWSE_TOOL = defineTool({
  name: 'browser_browse',
  description: 'Give a goal; a browsing model does it in the browser and answers. Returns only its answer. session continues an earlier run.',
  group: 'browse',
  // Short on purpose (every word is sent on every turn); the server checks each field against BrowseRequestSchema.
  input: z.object({
    goal: z.string().min(1),
    session: z.string().optional().describe("an earlier run's session, to go on there"),
    profile: Profile,
    startUrl: z.string().optional(),
    runtime: z.enum(['tools', 'computer']).optional(),
    provider: z.string().optional(),
    maxSteps: z.number().int().optional(),
    screenshot: z.boolean().optional(),
    close: z.boolean().optional().describe('end the session after'),
  }),
  readOnly: false,
  run: async (api, { profile, ...request }, _session, call): Promise<ToolResult> => {
    const result = await api.browse(
      { ...request, ...(profile ? { profile } : {}) },
      {
        signal: call.signal,
        onEvent: (event) => {
          if (event.kind === 'start') void call.progress(`Browsing with ${event.data.provider} (${event.data.model}), at most ${event.data.maxSteps} steps.`);
          if (event.kind === 'step')
            void call.progress(
              `Step ${event.data.step}: ${event.data.actions.map((action) => `${action.summary}${action.ok ? '' : ' (failed)'}`).join('; ') || 'answered'}`,
            );
        },
      },
    );
    const content: ToolResult['content'] = [{ type: 'text', text: describeBrowse(result) }];
    if (result.screenshot) content.push({ type: 'image', data: result.screenshot.data, mimeType: result.screenshot.mimeType });
    return { content, ...(result.outcome === 'done' ? {} : { isError: result.outcome === 'failed' }) };
  },
});
