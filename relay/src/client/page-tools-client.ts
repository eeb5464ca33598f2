import type { PageToolsApi } from '../api/page-tools-api.js';
import type { PageToolCall } from '../api/page-tools-responses.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import { errorFromBody } from '../errors.js';
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
      if (!answer.confirmation) return answer;
      options.onConfirmation?.(answer.confirmation);
      let handoff: HandoffAnswer;
      do handoff = (await call('GET', `/handoff/${encodeURIComponent(answer.confirmation.id)}`, undefined, { wait: 60 })) as HandoffAnswer;
      while (handoff.state === 'waiting');
      if (handoff.act) return handoff.act as PageToolCall;
      throw errorFromBody(409, { error: handoff.actError ?? { code: 'conflict', message: `Not done: the hand-off for a person's yes ended ${handoff.state}` } });
    },
  };
}
