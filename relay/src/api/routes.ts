import { TAB_ROUTES } from './tab-routes.js';
import { RECORDING_ROUTES } from './recording-routes.js';
import { LIVE_VIEW_ROUTES } from './live-view-routes.js';
import { HANDOFF_ROUTES } from './handoff-routes.js';
import { CONSOLE_ROUTES } from './console-routes.js';
import { FLEET_ROUTES } from './fleet-routes.js';
import { CHROME_ROUTES } from './chrome-routes.js';
import { VISION_ROUTES } from './vision-routes.js';
import { PAGE_TOOLS_ROUTES } from './page-tools-routes.js';
import { REPLAY_ROUTES } from './replay-routes.js';
import { TEACH_ROUTES } from './teach-routes.js';
import { BROWSE_ROUTES } from './browse-routes.js';
import { TOOLBOX_ROUTES } from './toolbox-routes.js';
import { SESSION_ROUTES } from './session-routes.js';
import { PROFILE_ROUTES } from './profile-routes.js';
import { AGENT_ROUTES } from './agent-routes.js';
import type { RouteSpec } from './route-spec.js';

/**
 * Every route of the control API: what it takes (query, body, path
 * parameters) and what it answers, by the schemas the server validates with.
 * The server binds its handlers through this table (server/route-binder.ts:
 * a handler's answer must have its route's answer type, and a route left
 * unbound stops the server at start), and the OpenAPI document is generated
 * from it (api/openapi.ts): one source for the code, the document and clients.
 */

export const ROUTES = {
  ...TAB_ROUTES,
  ...RECORDING_ROUTES,
  ...LIVE_VIEW_ROUTES,
  ...HANDOFF_ROUTES,
  ...CONSOLE_ROUTES,
  ...FLEET_ROUTES,
  ...CHROME_ROUTES,
  ...VISION_ROUTES,
  ...PAGE_TOOLS_ROUTES,
  ...REPLAY_ROUTES,
  ...TEACH_ROUTES,
  ...BROWSE_ROUTES,
  ...TOOLBOX_ROUTES,
  ...SESSION_ROUTES,
  ...PROFILE_ROUTES,
  ...AGENT_ROUTES,
} satisfies Record<string, RouteSpec>;

export type RouteKey = keyof typeof ROUTES;
