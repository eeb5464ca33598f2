import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../relay/src/api/browser-api.js';
import { KEPT_FOR_TOKEN, MAX_SESSIONS, MAX_SESSIONS_PER_KEY, McpHttpSessions } from '../../relay/src/mcp/http-sessions.js';
import { asHttpFailure, sendError } from '../../relay/src/server/http-errors.js';

/**
 * `/mcp`'s sessions are bounded per credential (real MCP SDK clients over
 * real HTTP; the credential a request came with is what the control API's
 * door would have found, here a header of the test's): one task session's
 * key holds a few, all keys together leave room for the token, and a task
 * session's go when it ends. No tool is called: the browser API is never
 * reached.
 */

let server: Server;
let port = 0;
const sessions = new McpHttpSessions(() => ({}) as BrowserApi, '/nonexistent');

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
      const scope = request.headers['x-test-scope'] as string | undefined;
      sessions.handle(request, response, body, scope).catch((error: unknown) => sendError(response, asHttpFailure(error).error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await sessions.close();
  await new Promise((resolve) => server.close(resolve));
});

async function connect(scope?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: scope ? { 'x-test-scope': scope } : {} },
  });
  const client = new Client({ name: 'bounded', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

describe('MCP sessions over HTTP, per credential', () => {
  it('a key holds a few; keys together leave the token its room; the token may fill the rest', async () => {
    for (let index = 0; index < MAX_SESSIONS_PER_KEY; index++) await connect('key-a');
    await expect(connect('key-a')).rejects.toThrow(`This task session's key holds ${MAX_SESSIONS_PER_KEY} MCP sessions already, its most`);
    const keysMay = MAX_SESSIONS - KEPT_FOR_TOKEN;
    // Other sessions' keys, a full set each.
    while (sessions.count < keysMay) await connect(`key-${Math.floor(sessions.count / MAX_SESSIONS_PER_KEY)}`);
    await expect(connect('key-fresh')).rejects.toThrow(`Task sessions' keys hold ${keysMay} MCP sessions, all they may`);
    const tokens = [];
    while (sessions.count < MAX_SESSIONS) tokens.push(await connect());
    await expect(connect()).rejects.toThrow(`Too many MCP sessions (${MAX_SESSIONS})`);
    expect(tokens).toHaveLength(KEPT_FOR_TOKEN);
    for (const { transport } of tokens) await transport.terminateSession();
  });

  it("a task session's end ends its key's sessions, and frees their room", async () => {
    const before = sessions.count;
    sessions.closeScope('key-a');
    await expect.poll(() => sessions.count).toBe(before - MAX_SESSIONS_PER_KEY);
    await connect('key-a');
  });
});
