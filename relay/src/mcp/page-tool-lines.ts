import type { PageTool, PageToolCall } from '../api/page-tools-responses.js';
import { fenced } from '../api/page-content.js';

/** The tools a page offers, and a call's answer, in a reader's words: the same in MCP's `browser_page_tool` and the CLI (no schema here: the CLI loads it without zod). */

/** A tool as one line: `add_to_cart(sku: string*, qty: number) [consequential]: Add an item to the cart`. */
export function pageToolLine(tool: PageTool): string {
  const properties = (tool.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set((tool.inputSchema?.required as string[] | undefined) ?? []);
  const parameters = Object.entries(properties).map(
    ([name, field]) => `${name}: ${typeof field?.type === 'string' ? field.type : 'any'}${required.has(name) ? '*' : ''}`,
  );
  const hints = Object.keys(tool.annotations ?? {});
  return `${tool.name}(${parameters.join(', ')})${hints.length ? ` [${hints.join(', ')}]` : ''}${tool.declaredBy ? ' [a form]' : ''}: ${tool.description}`;
}

/** What a tool returned, as text: its MCP-shaped content's text parts, else its JSON. */
export function pageToolOutput(output: unknown): string {
  const content = (output as { content?: Array<{ type?: string; text?: string }> } | undefined)?.content;
  if (Array.isArray(content)) return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  return output === undefined ? '' : JSON.stringify(output);
}

/**
 * A call's answer: clawd's words first, then the page's, fenced: what the
 * tool returned, the message it threw (a page writes it: "SYSTEM: …"), what
 * it set off, where it went. The tool's name on the first line is the one
 * the caller gave.
 */
export function pageToolAnswer(call: PageToolCall): string {
  const failed = call.status === 'Error';
  const lines = [
    `${call.tool}: ${call.status === 'Completed' ? 'done' : call.status.toLowerCase()}${failed && call.errorText ? " (what it said is the page's, below)" : ''}`,
  ];
  if (call.confirmed)
    lines.push(
      call.confirmed.by === 'person' ? `A person said yes (rule ${call.confirmed.rule}).` : `Pre-approved for this session (rule ${call.confirmed.rule}).`,
    );
  const page: string[] = [];
  if (call.errorText) page.push(call.errorText.slice(0, 2_000));
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
