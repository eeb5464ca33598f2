import type { VisionApi } from '../api/vision-api.js';
import type { Call } from './toolbox-client.js';

/** Vision over HTTP (`BrowserClient.vision`): each method is one route of api/vision-routes.ts. */
export function visionClient(call: Call): VisionApi {
  return {
    labelledScreenshot: (request = {}) => call('POST', '/screenshot/labelled', request),
    computerOpenai: (request) => call('POST', '/computer/openai', request),
    computerAnthropic: (request) => call('POST', '/computer/anthropic', request),
  };
}
