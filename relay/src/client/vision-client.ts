import type { VisionApi } from '../api/vision-api.js';
import type { ComputerResult } from '../api/vision-responses.js';
import { answerAfterYes } from './after-yes.js';
import type { Call } from './toolbox-client.js';

/**
 * Vision over HTTP (`BrowserClient.vision`): each method is one route of api/vision-routes.ts. A batch a
 * confirm rule paused for a person's yes is waited for through its hand-off, and answers as it ends.
 */
export function visionClient(call: Call): VisionApi {
  const computer = async (path: string, request: object, options: { person?: boolean; onConfirmation?: Parameters<typeof answerAfterYes>[2] } = {}) => {
    const answer = (await call('POST', path, request, { person: options.person })) as ComputerResult;
    return answer.confirmation ? answerAfterYes<ComputerResult>(call, answer.confirmation, options.onConfirmation) : answer;
  };
  return {
    labelledScreenshot: (request = {}) => call('POST', '/screenshot/labelled', request),
    computerOpenai: (request, options) => computer('/computer/openai', request, options),
    computerAnthropic: (request, options) => computer('/computer/anthropic', request, options),
  };
}
