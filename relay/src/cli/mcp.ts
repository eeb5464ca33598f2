import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BrowserClient } from '../client/browser-client.js';
import { CLI_PATH, PACKAGE_VERSION } from '../config/package-root.js';
import { parseCaps } from '../mcp/capabilities.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { ensureRelay, type HostContext } from '../native-host/operations.js';

/**
 * `clawd-browser mcp`: the MCP tools over stdio, for an agent that launches
 * its tools as processes. It talks to the control API of this machine's
 * server and, when nothing answers, starts `serve` detached first (as the
 * native host does). That server outlives this process for a while and
 * exits by itself once nothing uses it (config idleStopMinutes); every tool
 * call checks that it answers and starts it again when it has gone. stdout
 * carries MCP messages only.
 *
 * A server that cannot start does not end this process: the client would
 * only see "connection closed". MCP is served all the same, every tool call
 * answers why the server could not start, and tries again (the user may
 * have fixed the cause meanwhile).
 */
export async function runMcpStdio(options: { home: string; profile?: string; url?: string; caps?: string; agent?: string }): Promise<void> {
  // A group that is none stops here, before an MCP client is told of any tool.
  const caps = parseCaps(options.caps);
  const context: HostContext = { home: options.home, version: PACKAGE_VERSION, cliPath: CLI_PATH, startTimeoutMs: 20_000 };
  let client: BrowserClient | undefined;
  let starting: Promise<void> | undefined;
  // One start at a time: calls that come while it runs wait for it.
  const start = () =>
    (starting ??= (async () => {
      try {
        // A server named by --url or CLAWD_URL is the user's to run: nothing is started for it.
        if (!options.url) await ensureRelay(context);
        // Made once the server answers: the client reads the token it wrote.
        // Each MCP connection is an agent of its own: its calls without targetId mean its own tabs.
        client ??= BrowserClient.local({ home: options.home, profile: options.profile, url: options.url, agent: options.agent ?? `mcp-${process.pid}` });
      } catch (error) {
        throw new Error(
          `The clawd-browser server could not start: ${(error as Error)?.message ?? String(error)}. Fix that, and the next tool call tries again.`,
          { cause: error },
        );
      }
    })().finally(() => (starting = undefined)));
  start().catch((error: Error) => process.stderr.write(`clawd-browser: ${error.message}\n`));
  const server = createMcpServer(() => client!, {
    exportDir: join(options.home, 'exports'),
    caps,
    // The server this process started may have exited since, unused: each call makes sure it answers (a loopback round trip).
    beforeCall: async () => {
      if (!client || !options.url) await start();
    },
  });
  await server.connect(new StdioServerTransport());
}
