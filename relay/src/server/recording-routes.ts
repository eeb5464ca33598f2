import type { Request } from 'express';
import type { ControlService } from '../service/control-service.js';
import type { RecordingService } from '../service/recording-service.js';
import type { RouteBinder } from './route-binder.js';

/** What the record's routes need: the recordings (network log, HAR, trace), the service's script and action log, and who may see credentials. */
export interface RecordingParts {
  recordings: RecordingService;
  service: Pick<ControlService, 'script' | 'actions'>;
  /** Why this request may not see credential headers (it holds no token), or undefined when it may. */
  secretsRefusal: (request: Request) => string | undefined;
}

/** A record of what happened over HTTP (api/recording-routes.ts): the network log, HAR, traces, the recorded steps as a script, the action log. */
export function bindRecordingRoutes(routes: RouteBinder, { recordings, service, secretsRefusal }: RecordingParts): void {
  routes.json('POST /network/record', ({ query, body }) => recordings.networkRecord(query.profile, body));
  routes.json('GET /script', ({ query: { profile, ...rest } }) => service.script(profile, rest));
  routes.json('GET /network', ({ query: { profile, ...filters }, request }) => recordings.network(profile, filters, secretsRefusal(request)));
  routes.json('GET /network/body', ({ query: { profile, ...which } }) => recordings.networkBody(profile, which));
  routes.json('POST /network/har', ({ query, body, request }) => recordings.har(query.profile, body, secretsRefusal(request)));
  routes.json('POST /trace/start', ({ query }) => recordings.traceStart(query.profile));
  routes.json('POST /trace/stop', ({ query, body }) => recordings.traceStop(query.profile, body));
  routes.json('GET /actions', ({ query }) => service.actions(query));
}
