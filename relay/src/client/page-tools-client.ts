import type { PageToolsApi } from '../api/page-tools-api.js';
import type { Call } from './toolbox-client.js';

/** Page tools over HTTP (`BrowserClient.pageTools`): each method is one route of api/page-tools-routes.ts. */
export function pageToolsClient(call: Call): PageToolsApi {
  return {
    list: (query = {}) => call('GET', '/page-tools', undefined, query),
    call: (request) => call('POST', '/page-tools/call', request),
  };
}
