import type { ToolboxApi } from '../api/toolbox-api.js';

/** One request of the typed client: method, path, body, query. */
export type Call = <T>(method: string, path: string, body?: object, query?: Readonly<Record<string, unknown>>) => Promise<T>;

/** The toolbox over HTTP (`BrowserClient.toolbox`): each method is one route of api/toolbox-routes.ts. */
export function toolboxClient(call: Call): ToolboxApi {
  return {
    emulation: (query = {}) => call('GET', '/emulation', undefined, query),
    emulate: (request) => call('POST', '/emulation', request),
    resetEmulation: (query = {}) => call('DELETE', '/emulation', undefined, query),
    routes: () => call('GET', '/routes'),
    addRoute: (request) => call('POST', '/routes', request),
    removeRoute: (id) => call('DELETE', `/routes/${encodeURIComponent(id)}`),
    initScripts: () => call('GET', '/init-scripts'),
    addInitScript: (request) => call('POST', '/init-scripts', request),
    removeInitScript: (id) => call('DELETE', `/init-scripts/${encodeURIComponent(id)}`),
    cookies: (query = {}) => call('GET', '/storage/cookies', undefined, query),
    setCookies: (request) => call('POST', '/storage/cookies', request),
    clearCookies: (query = {}) => call('DELETE', '/storage/cookies', undefined, query),
    storage: (query = {}) => call('GET', '/storage/items', undefined, query),
    setStorage: (request) => call('POST', '/storage/items', request),
    clearStorage: (query = {}) => call('DELETE', '/storage/items', undefined, query),
    storageState: (query = {}) => call('GET', '/storage/state', undefined, query),
    setStorageState: (request) => call('POST', '/storage/state', request),
  };
}
