import type { VisionService } from '../service/vision-service.js';
import type { RouteBinder } from './route-binder.js';

/** For agents that look, over HTTP (api/vision-routes.ts): labelled screenshots, and computer use in OpenAI's and Anthropic's shapes. */
export function bindVisionRoutes(routes: RouteBinder, vision: VisionService): void {
  routes.json('POST /screenshot/labelled', ({ query, body, signal }) => vision.labelledScreenshot(query.profile, body, signal));
  routes.json('POST /computer/openai', ({ query, body, signal }) => vision.computer(query.profile, 'openai', body, signal, { person: query.person === true }));
  routes.json('POST /computer/anthropic', ({ query, body, signal }) =>
    vision.computer(query.profile, 'anthropic', body, signal, { person: query.person === true }),
  );
}
