import type { PageToolsApi } from '../api/page-tools-api.js';
import { answerAfterYes } from './after-yes.js';
import type { RouteCall } from './route-call.js';

/**
 * Page tools over HTTP (`BrowserClient.pageTools`): each method is one route of api/page-tools-routes.ts.
 * A call a confirm rule holds for a person's yes is waited for through its hand-off, as an act's is.
 */
export function pageToolsClient(call: RouteCall): PageToolsApi {
  return {
    list: (query = {}) => call('GET /page-tools', { query }),
    call: async (body, options = {}) => {
      const answer = await call('POST /page-tools/call', { body, query: { person: options.person } });
      return answer.confirmation ? answerAfterYes<typeof answer>(call, answer.confirmation, options.onConfirmation) : answer;
    },
  };
}
