import type { PageToolsApi } from '../api/page-tools-api.js';
import type { PageToolCall } from '../api/page-tools-responses.js';
import { answerAfterYes } from './after-yes.js';
import type { Call } from './toolbox-client.js';

/**
 * Page tools over HTTP (`BrowserClient.pageTools`): each method is one route of api/page-tools-routes.ts.
 * A call a confirm rule holds for a person's yes is waited for through its hand-off, as an act's is.
 */
export function pageToolsClient(call: Call): PageToolsApi {
  return {
    list: (query = {}) => call('GET', '/page-tools', undefined, query),
    call: async (request, options = {}) => {
      const answer = (await call('POST', '/page-tools/call', request, { person: options.person })) as PageToolCall;
      return answer.confirmation ? answerAfterYes<PageToolCall>(call, answer.confirmation, options.onConfirmation) : answer;
    },
  };
}
