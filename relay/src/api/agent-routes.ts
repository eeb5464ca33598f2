import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';

/** For agents: MCP over Streamable HTTP and this API's own OpenAPI document; spread into api/routes.ts's table and bound by server/agent-routes.ts. */

export const AGENT_ROUTES = {
  'POST /mcp': {
    summary: 'MCP over Streamable HTTP: the same tools as `clawd-browser mcp` (GET and DELETE per the MCP transport too)',
    tag: 'Agents',
    body: z.unknown().describe('A JSON-RPC message (or a batch) of the Model Context Protocol'),
    answer: z.unknown().describe('A JSON-RPC answer, or an event stream of them'),
  },
  'GET /openapi.json': { summary: 'This document', tag: 'Agents', answer: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1') },
} satisfies Record<string, RouteSpec>;
