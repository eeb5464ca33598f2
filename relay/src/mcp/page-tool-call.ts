import { z } from 'zod';
import type { PageTool, PageToolCall } from '../api/page-tools-responses.js';
import { defineTool, Profile, TargetId, text, waitingForYes, withProfile } from './tools.js';
import { fenced } from '../api/page-content.js';

/**
 * The tools a page offers agents (WebMCP), reached through one tool of
 * clawd's own: listed, or called by name. The page never names an MCP tool:
 * its tools stay inside this one's answers, as the page's words.
 */

/** A tool as one line: `add_to_cart(sku: string*, qty: number) [consequential]: Add an item to the cart`. */
export function pageToolLine(tool: PageTool): string {
  const properties = (tool.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set((tool.inputSchema?.required as string[] | undefined) ?? []);
  const parameters = Object.entries(properties).map(([name, field]) => `${name}: ${typeof field?.type === 'string' ? field.type : 'any'}${required.has(name) ? '*' : ''}`);
  const hints = Object.keys(tool.annotations ?? {});
  return `${tool.name}(${parameters.join(', ')})${hints.length ? ` [${hints.join(', ')}]` : ''}${tool.declaredBy ? ' [a form]' : ''}: ${tool.description}`;
}

/** What a tool returned, as text: its MCP-shaped content's text parts, else its JSON. */
export function pageToolOutput(output: unknown): string {
  const content = (output as { content?: Array<{ type?: string; text?: string }> } | undefined)?.content;
  if (Array.isArray(content)) return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  return output === undefined ? '' : JSON.stringify(output);
}

/** A call's answer: clawd's words first, then the page's (what the tool returned and said, where it went), fenced. */
export function pageToolAnswer(call: PageToolCall): string {
  const lines = [`${call.tool}: ${call.status === 'Completed' ? 'done' : call.status.toLowerCase()}${call.errorText ? ` (${call.errorText})` : ''}`];
  if (call.confirmed) lines.push(call.confirmed.by === 'person' ? `A person said yes (rule ${call.confirmed.rule}).` : `Pre-approved for this session (rule ${call.confirmed.rule}).`);
  const page: string[] = [];
  const output = pageToolOutput(call.output);
  if (output) page.push(output.slice(0, 4_000));
  for (const event of call.events ?? []) page.push(`- ${event}`);
  if (call.url === undefined) lines.push('The tab closed.');
  else if (call.navigated) {
    lines.push('Navigated; take a snapshot to see the page.');
    page.push(`${call.url} ${JSON.stringify(call.title)}`);
  } else if (call.changed === false) lines.push('Nothing on the page changed.');
  if (page.length) lines.push(fenced(call.fence, page));
  return lines.join('\n');
}

export const PAGE_TOOL = defineTool({
  name: 'browser_page_tool',
  description: "Tools the page offers (WebMCP): no name lists them; name and input call one.",
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
      const { tools, url, unavailable, fence } = await browser.pageTools.list({ targetId });
      return text(tools.length ? fenced(fence, tools.map(pageToolLine)) : (unavailable ?? `The page at ${url} offers no tools.`));
    }
    // A tool the page marks consequential may wait for a person's yes (confirm rules): the progress says where they are asked.
    const answered = await browser.pageTools.call(
      { targetId, name, input: input ?? {}, frameId },
      { person: session.askPerson === true, onConfirmation: (asked) => void call.progress(waitingForYes(asked)) },
    );
    return text(pageToolAnswer(answered));
  },
});
