import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readResult, summarize } from '../relay/src/browse/page-toolset.js';
import type { Ask, FunctionTool } from '../relay/src/browse/providers/provider.js';
import type { Toolset, ToolOutcome } from '../relay/src/browse/toolset.js';
import type { ToolResult } from '../relay/src/mcp/tools.js';

/**
 * Another MCP server's tools as a run's toolset (the evaluation runner's
 * Playwright MCP): the model is shown the server's own `tools/list`, and
 * each call goes to it as an MCP client's would. The loop, the provider
 * and the guardrails are the browse runtime's, so the comparison is of
 * the tools alone.
 */
export async function mcpToolset(client: Client): Promise<Toolset> {
  const { tools } = await client.listTools();
  const functions: FunctionTool[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.inputSchema as FunctionTool['parameters'],
  }));
  return {
    functions,
    async run(ask: Ask, signal: AbortSignal): Promise<ToolOutcome> {
      if (ask.kind !== 'function')
        return { id: ask.id, computer: true, tool: 'computer', summary: 'computer', text: 'No computer tool here.', failed: true, screenshots: 0 };
      const args = ask.input && typeof ask.input === 'object' ? (ask.input as Record<string, unknown>) : {};
      const result = (await client.callTool({ name: ask.name, arguments: args }, undefined, { signal }).catch((error: unknown) => ({
        content: [{ type: 'text', text: `Error: ${(error as Error).message}` }],
        isError: true,
      }))) as ToolResult;
      signal.throwIfAborted();
      const read = readResult(result);
      return { id: ask.id, computer: false, tool: ask.name, summary: summarize(ask.name, ask.input), ...read, screenshots: read.picture ? 1 : 0 };
    },
  };
}
