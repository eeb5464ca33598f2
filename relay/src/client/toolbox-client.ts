import type { ToolboxApi } from '../api/toolbox-api.js';
import type { RouteCall } from './route-call.js';

/** The toolbox over HTTP (`BrowserClient.toolbox`): each method is one route of api/toolbox-routes.ts, called by its key. */
export function toolboxClient(call: RouteCall): ToolboxApi {
  return {
    emulation: (query = {}) => call('GET /emulation', { query }),
    emulate: (body) => call('POST /emulation', { body }),
    resetEmulation: (query = {}) => call('DELETE /emulation', { query }),
    routes: () => call('GET /routes'),
    addRoute: (body) => call('POST /routes', { body }),
    removeRoute: (id) => call('DELETE /routes/:id', { params: { id } }),
    initScripts: () => call('GET /init-scripts'),
    addInitScript: (body) => call('POST /init-scripts', { body }),
    removeInitScript: (id) => call('DELETE /init-scripts/:id', { params: { id } }),
    cookies: (query = {}) => call('GET /storage/cookies', { query }),
    setCookies: (body) => call('POST /storage/cookies', { body }),
    clearCookies: (query = {}) => call('DELETE /storage/cookies', { query }),
    storage: (query = {}) => call('GET /storage/items', { query }),
    setStorage: (body) => call('POST /storage/items', { body }),
    clearStorage: (query = {}) => call('DELETE /storage/items', { query }),
    storageState: (query = {}) => call('GET /storage/state', { query }),
    setStorageState: (body) => call('POST /storage/state', { body }),
  };
}
