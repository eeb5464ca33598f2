import { openApiDocument } from '../api/openapi.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import type { McpHttpSessions } from '../mcp/http-sessions.js';
import type { ControlDoor } from './control-door.js';
import type { RouteBinder } from './route-binder.js';

/** What the agents' routes need: the MCP sessions (loaded with the first /mcp request) and the door's reading of who calls. */
export interface AgentParts {
  mcp: () => Promise<McpHttpSessions>;
  door: Pick<ControlDoor, 'sessionOf' | 'queryOf'>;
}

/** For agents over HTTP (api/agent-routes.ts): MCP over Streamable HTTP (every method its transport uses), and this API's OpenAPI document. */
export function bindAgentRoutes(routes: RouteBinder, { mcp, door }: AgentParts): void {
  routes.media(
    'POST /mcp',
    async ({ request }, response) => {
      await (await mcp()).handle(request, response, request.body, door.sessionOf(request), door.queryOf(request).caps);
    },
    { everyMethod: true },
  );
  routes.json('GET /openapi.json', () => openApiDocument(PACKAGE_VERSION));
}
