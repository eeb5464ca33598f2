import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import type { BrowserClient } from '../client/browser-client.js';
import { ClawdError } from '../errors.js';
import { type McpSessionState, TOOLS, type ToolResult } from './tools.js';

/**
 * One MCP server (stdio or one HTTP session) over the control API. Tools
 * are in tools.ts; here they are registered and their failures turned into
 * tool errors that say what to do next.
 */
export function createMcpServer(client: BrowserClient, options: { exportDir: string }): McpServer {
  const server = new McpServer({ name: 'clawd-browser', version: PACKAGE_VERSION });
  const session: McpSessionState = { lastUrl: new Map(), exportDir: options.exportDir };
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input }, async (args: Record<string, unknown>) => {
      try {
        return (await tool.run(client, args, session)) as ToolResult & Record<string, unknown>;
      } catch (error) {
        return { content: [{ type: 'text' as const, text: `Error: ${remedy(error)}` }], isError: true };
      }
    });
  }
  return server;
}

/** The error's message, with the next step when the message does not already give one. */
export function remedy(error: unknown): string {
  if (!(error instanceof ClawdError)) return (error as Error)?.message ?? String(error);
  const message = error.message;
  switch (error.code) {
    case 'not_found':
      if (/tab|targetId/i.test(message) && !/browser_tabs/.test(message)) return `${message}. List tabs with browser_tabs.`;
      return message;
    case 'unavailable':
      return /clawd-browser (toolbar )?button|serve/.test(message) ? message : `${message}. Check browser_status.`;
    case 'timeout':
      return `${message}. The page may still be busy: take a snapshot to see where it is.`;
    default:
      return message;
  }
}
