import type { RecordRequest } from '../api/browser-api.js';
import type { RecordingAnswer } from '../api/responses.js';
import { schemas } from '../api/schemas.js';
import { validated } from '../validation.js';
import type { ControlServices } from './control-assembly.js';

/** browser_record's one call, in process (credential headers stay redacted: MCP is not the token's holder's door). */
export async function recordCall(services: Pick<ControlServices, 'recordings' | 'films'>, profile: string | undefined, request: RecordRequest): Promise<RecordingAnswer> {
  const refusal = 'Credential headers are shown only over HTTP, to the token\'s holder';
  switch (request.action) {
    case 'network-start':
    case 'network-stop':
      return services.recordings.networkRecord(profile, { targetId: request.targetId, on: request.action === 'network-start' });
    case 'network': {
      const { profile: _ignored, ...filters } = validated(schemas.networkQuery, { targetId: request.targetId, url: request.url, status: request.status, type: request.type, limit: request.limit }, 'arguments');
      return services.recordings.network(profile, filters, refusal);
    }
    case 'body':
    case 'request-body': {
      const { profile: _ignored, ...which } = validated(schemas.networkBody, { targetId: request.targetId, id: request.id, part: request.action === 'body' ? 'response' : 'request' }, 'arguments');
      const { targetId, ...body } = await services.recordings.networkBody(profile, which);
      return { targetId, body };
    }
    case 'har':
      return services.recordings.har(profile, validated(schemas.har, { targetId: request.targetId, all: request.all, keep: request.keep }, 'arguments'), refusal);
    case 'trace-start':
      return services.recordings.traceStart(profile);
    case 'trace-stop':
      return services.recordings.traceStop(profile, { keep: request.keep });
    case 'video-start':
      return { filming: await services.films.start(profile, validated(schemas.videoStart, { targetId: request.targetId, format: request.format }, 'arguments')) };
    case 'video-stop':
      return { film: await services.films.stop(profile, { keep: request.keep }) };
  }
}
