import type { PageToolsService } from '../service/page-tools-service.js';
import type { RouteBinder } from './route-binder.js';

/** The tools pages offer agents (WebMCP) over HTTP (api/page-tools-routes.ts): the list, and a call. */
export function bindPageToolsRoutes(routes: RouteBinder, pageTools: PageToolsService): void {
  routes.json('GET /page-tools', ({ query: { profile, ...rest }, signal }) => pageTools.list(profile, rest, signal));
  routes.json('POST /page-tools/call', ({ query, body, signal }) => pageTools.call(query.profile, body, signal, { person: query.person === true }));
}
