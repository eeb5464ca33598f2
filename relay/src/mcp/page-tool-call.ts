import { z } from 'zod';
import { defineTool, Profile, TargetId, text, waitingForYes, withProfile } from './tools.js';
import { fenced } from '../api/page-content.js';
import { pageToolAnswer, pageToolLine } from './page-tool-lines.js';

/**
 * The tools a page offers agents (WebMCP), reached through one tool of
 * clawd's own: listed, or called by name. The page never names an MCP tool:
 * its tools stay inside this one's answers, as the page's words.
 */

export const PAGE_TOOL = defineTool({
  name: 'browser_page_tool',
  description: 'Tools the page offers (WebMCP): no name lists them; name and input call one.',
  input: z.object({
    profile: Profile,
    targetId: TargetId,
    name: z.string().optional(),
    input: z.object({}).passthrough().optional(),
    frameId: z.string().optional(),
  }),
  readOnly: false,
  run: async (api, { profile, targetId, name, input, frameId }, session, call) => {
    const browser = withProfile(api, { profile });
    if (name === undefined) {
      // A tool's name and description are the page's words: fenced.
      const { tools, unavailable, fence } = await browser.pageTools.list({ targetId });
      // Where the page is, it says itself (history.replaceState): not on clawd's line.
      return text(tools.length ? fenced(fence, tools.map(pageToolLine)) : (unavailable ?? 'The page offers no tools.'));
    }
    // A tool the page marks consequential may wait for a person's yes (confirm rules): the progress says where they are asked.
    const answered = await browser.pageTools.call(
      { targetId, name, input: input ?? {}, frameId },
      { person: session.askPerson === true, onConfirmation: (asked) => void call.progress(waitingForYes(asked)) },
    );
    // A tool that failed is a failed call: the agent's host sees it as one.
    return { ...text(pageToolAnswer(answered)), ...(answered.status === 'Error' ? { isError: true } : {}) };
  },
});
