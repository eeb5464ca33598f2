import type { VisionApi } from '../api/vision-api.js';
import { answerAfterYes } from './after-yes.js';
import type { RouteCall } from './route-call.js';

/**
 * Vision over HTTP (`BrowserClient.vision`): each method is one route of api/vision-routes.ts. A batch a
 * confirm rule paused for a person's yes is waited for through its hand-off, and answers as it ends.
 */
export function visionClient(call: RouteCall): VisionApi {
  return {
    labelledScreenshot: (body = {}) => call('POST /screenshot/labelled', { body }),
    computerOpenai: async (body, options = {}) => {
      const answer = await call('POST /computer/openai', { body, query: { person: options.person } });
      return answer.confirmation ? answerAfterYes<typeof answer>(call, answer.confirmation, options.onConfirmation) : answer;
    },
    computerAnthropic: async (body, options = {}) => {
      const answer = await call('POST /computer/anthropic', { body, query: { person: options.person } });
      return answer.confirmation ? answerAfterYes<typeof answer>(call, answer.confirmation, options.onConfirmation) : answer;
    },
  };
}
