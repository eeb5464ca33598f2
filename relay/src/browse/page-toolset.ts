import { callTool, listTools } from '../mcp/mcp-server.js';
import type { McpSessionState, ToolResult } from '../mcp/tools.js';
import type { FunctionAsk, FunctionTool } from './providers/provider.js';
import { type ApiForSignal, shownUrl, type Toolset, type ToolOutcome } from './toolset.js';

/**
 * The `tools` runtime's toolset: clawd's own page tools, the very
 * definitions MCP serves (mcp/tools.ts), called through the same path an
 * MCP client's call takes (callTool) on the same BrowserApi. So the model
 * gets what an agent over MCP gets: lean definitions, answers that say
 * what changed, errors that name the remedy, a refused URL's reason.
 * `profile` is left out of the definitions: a run acts on its own profile.
 */

/** The default list, less browser_status (a run's profile is given). */
const PAGE_TOOLS = ['browser_tabs', 'browser_navigate', 'browser_snapshot', 'browser_act', 'browser_screenshot'];

export function pageFunctions(): FunctionTool[] {
  return listTools()
    .filter((tool) => PAGE_TOOLS.includes(tool.name))
    .map((tool) => {
      const { properties = {}, ...schema } = tool.inputSchema as { properties?: Record<string, unknown> };
      const { profile: _bound, ...rest } = properties;
      return { name: tool.name, description: tool.description, parameters: { ...schema, type: 'object', properties: rest } };
    });
}

/** A tool's answer for a model: its text, its first picture, whether it failed. */
export function readResult(result: ToolResult): { text: string; picture?: { mimeType: string; data: string }; failed: boolean } {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const image = result.content.find((part) => part.type === 'image');
  return { text, ...(image && image.type === 'image' ? { picture: { mimeType: image.mimeType, data: image.data } } : {}), failed: result.isError === true };
}

/** What a call asked for, for the log and the progress: the tool and its kind, ref or URL, never typed text. */
export function summarize(name: string, input: unknown): string {
  const args = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const parts = [name.replace(/^browser_/, '')];
  for (const key of ['action', 'kind', 'ref', 'targetId'] as const)
    if (typeof args[key] === 'string') parts.push(key === 'targetId' ? `tab ${String(args[key]).slice(0, 8)}` : String(args[key]));
  if (args.url) parts.push(shownUrl(args.url));
  return parts.join(' ');
}

export class PageToolset implements Toolset {
  readonly functions = pageFunctions();
  private readonly memory: McpSessionState;

  constructor(
    private readonly apiFor: ApiForSignal,
    exportDir: string,
  ) {
    this.memory = { lastUrl: new Map(), exportDir, handoffs: new Map() };
  }

  async run(ask: FunctionAsk | { kind: 'computer'; id: string }, signal: AbortSignal): Promise<ToolOutcome> {
    if (ask.kind !== 'function')
      return {
        id: ask.id,
        computer: true,
        tool: 'computer',
        summary: 'computer',
        text: 'This run has no computer tool: use the browser_ tools.',
        failed: true,
        screenshots: 0,
      };
    const args = ask.input && typeof ask.input === 'object' ? { ...(ask.input as Record<string, unknown>) } : ask.input;
    if (args && typeof args === 'object') delete (args as Record<string, unknown>).profile;
    const result = await callTool(ask.name, args, this.apiFor(signal), this.memory, { signal, progress: async () => {} });
    signal.throwIfAborted();
    const read = readResult(result);
    return { id: ask.id, computer: false, tool: ask.name, summary: summarize(ask.name, ask.input), ...read, screenshots: read.picture ? 1 : 0 };
  }
}
