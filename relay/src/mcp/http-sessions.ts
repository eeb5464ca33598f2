import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserApi } from '../api/browser-api.js';
import { BadRequestError, NotFoundError, UnavailableError } from '../errors.js';
import { parseCaps } from './capabilities.js';
import { createMcpServer } from './mcp-server.js';

/** MCP sessions held at once over HTTP; an initialize beyond it is refused (503). */
export const MAX_SESSIONS = 32;
/** MCP sessions one task session's key may hold at once. */
export const MAX_SESSIONS_PER_KEY = 4;
/** Room the token keeps: task sessions' keys, all together, hold at most MAX_SESSIONS less this. */
export const KEPT_FOR_TOKEN = 8;
/** A session idle this long is closed. */
const IDLE_MS = 30 * 60_000;

/**
 * The MCP tools over Streamable HTTP (`/mcp` on the control server, behind
 * its token, Host and Origin checks). Each client's session keeps its own
 * MCP server and state; sessions are bounded in number and idle time, and
 * per credential: one task session's key holds a few, all keys together
 * leave room for the token, and a task session's go when it ends.
 */
export class McpHttpSessions {
  /** Each MCP session, and the task session its creator's key was scoped to (undefined: the main token). */
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; lastUsed: number; scope: string | undefined }>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    /**
     * The API a new MCP session calls: the whole of it, or one task session's
     * (its key's scope), for the agent it is (each MCP session one of its
     * own: its calls without targetId mean its own tabs).
     */
    private readonly api: (scope: string | undefined, agent: string) => BrowserApi,
    private readonly exportDir: string,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), 60_000);
    this.sweep.unref();
  }

  /** MCP sessions open now. */
  get count(): number {
    return this.sessions.size;
  }

  /** `capsQuery`: the request's `?caps=`, as its door read the query. */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown, scope?: string, capsQuery?: string): Promise<void> {
    const id = request.headers['mcp-session-id'];
    const found = typeof id === 'string' ? this.sessions.get(id) : undefined;
    // An MCP session serves the credential that made it: another key does not find it.
    const known = found && found.scope === scope ? found : undefined;
    if (known) {
      known.lastUsed = Date.now();
      return known.transport.handleRequest(request, response, body);
    }
    if (typeof id === 'string') throw new NotFoundError(`MCP session ${id} is unknown or expired: initialize a new one`);
    if (request.method !== 'POST' || !isInitializeRequest(body)) throw new BadRequestError('Start an MCP session with an initialize request (POST /mcp)');
    // Capability groups are chosen when the session starts: /mcp?caps=emulation,storage.
    const caps = parseCaps(capsQuery);
    this.admitOne(scope);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, { transport, lastUsed: Date.now(), scope });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await createMcpServer(this.api(scope, `mcp-${randomUUID().slice(0, 8)}`), { exportDir: this.exportDir, caps }).connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /** A task session ended: its key's MCP sessions end with it. */
  closeScope(scope: string): void {
    for (const { transport, scope: owner } of this.sessions.values()) if (owner === scope) void transport.close().catch(() => {});
  }

  /** Room for one more MCP session of `scope`'s credential, or the 503 that says which bound is reached. */
  private admitOne(scope: string | undefined): void {
    const held = [...this.sessions.values()];
    const close = 'close one (DELETE /mcp with its mcp-session-id) or wait for idle ones to expire';
    if (scope !== undefined) {
      if (held.filter((session) => session.scope === scope).length >= MAX_SESSIONS_PER_KEY)
        throw new UnavailableError(`This task session's key holds ${MAX_SESSIONS_PER_KEY} MCP sessions already, its most: ${close}`);
      if (held.filter((session) => session.scope !== undefined).length >= MAX_SESSIONS - KEPT_FOR_TOKEN)
        throw new UnavailableError(
          `Task sessions' keys hold ${MAX_SESSIONS - KEPT_FOR_TOKEN} MCP sessions, all they may (the rest is kept for the token): ${close}`,
        );
    }
    if (held.length >= MAX_SESSIONS) throw new UnavailableError(`Too many MCP sessions (${MAX_SESSIONS}): ${close}`);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.sessions.values()].map(({ transport }) => transport.close().catch(() => {})));
    this.sessions.clear();
  }

  private closeIdle(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const { transport, lastUsed } of this.sessions.values()) if (lastUsed < cutoff) void transport.close().catch(() => {});
  }
}
