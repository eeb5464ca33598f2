import type { Request } from 'express';
import type { ToolboxService } from '../service/toolbox-service.js';
import type { RouteBinder } from './route-binder.js';

/**
 * The toolbox over HTTP (api/toolbox-routes.ts): emulation, network routes,
 * init scripts, cookies, storage and storage state. Cookies' values and a
 * storage state's are shown whole to the token's holder only (`isTokenHolder`, the door's).
 */
export function bindToolboxRoutes(routes: RouteBinder, toolbox: ToolboxService, isTokenHolder: (request: Request) => boolean): void {
  routes.json('GET /emulation', ({ query: { profile, ...rest } }) => toolbox.emulation(profile, rest));
  routes.json('POST /emulation', ({ query, body, signal }) => toolbox.emulate(query.profile, body, signal));
  routes.json('DELETE /emulation', ({ query: { profile, ...rest }, signal }) => toolbox.resetEmulation(profile, rest, signal));
  routes.json('GET /routes', ({ query }) => toolbox.routes(query.profile));
  routes.json('POST /routes', ({ query, body, signal }) => toolbox.addRoute(query.profile, body, signal));
  routes.json('DELETE /routes/:id', ({ query, params }) => toolbox.removeRoute(query.profile, params.id));
  routes.json('GET /init-scripts', ({ query }) => toolbox.initScripts(query.profile));
  routes.json('POST /init-scripts', ({ query, body, signal }) => toolbox.addInitScript(query.profile, body, signal));
  routes.json('DELETE /init-scripts/:id', ({ query, params }) => toolbox.removeInitScript(query.profile, params.id));
  routes.json('GET /storage/cookies', ({ query: { profile, ...filter }, request }) => toolbox.cookies(profile, filter, isTokenHolder(request)));
  routes.json('POST /storage/cookies', ({ query, body, signal }) => toolbox.setCookies(query.profile, body, signal));
  routes.json('DELETE /storage/cookies', ({ query: { profile, ...filter }, signal }) => toolbox.clearCookies(profile, filter, signal));
  routes.json('GET /storage/items', ({ query: { profile, ...rest }, signal }) => toolbox.storage(profile, rest, signal));
  routes.json('POST /storage/items', ({ query, body, signal }) => toolbox.setStorage(query.profile, body, signal));
  routes.json('DELETE /storage/items', ({ query: { profile, ...rest }, signal }) => toolbox.clearStorage(profile, rest, signal));
  routes.json('GET /storage/state', ({ query: { profile, ...rest }, request, signal }) => toolbox.storageState(profile, rest, isTokenHolder(request), signal));
  routes.json('POST /storage/state', ({ query, body, signal }) => toolbox.setStorageState(query.profile, body, signal));
}
