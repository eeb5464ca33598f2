import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BrowserClient } from '../client/browser-client.js';
import { CLI_PATH, PACKAGE_VERSION } from '../config/package-root.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { ensureRelay } from '../native-host/operations.js';

/**
 * `clawd-browser mcp`: the MCP tools over stdio, for an agent that launches
 * its tools as processes. It talks to the control API of this machine's
 * server and, when nothing answers, starts `serve` detached first (as the
 * native host does), so the server outlives the agent's session. stdout
 * carries MCP messages only.
 */
export async function runMcpStdio(options: { home: string; profile?: string }): Promise<void> {
  await ensureRelay({ home: options.home, version: PACKAGE_VERSION, cliPath: CLI_PATH, startTimeoutMs: 20_000 });
  const client = BrowserClient.local({ home: options.home, profile: options.profile });
  const server = createMcpServer(client, { exportDir: join(options.home, 'exports') });
  await server.connect(new StdioServerTransport());
}
