import type { RecordingsApi } from '../api/recordings-api.js';
import { schemas } from '../api/schemas.js';
import { validated } from '../validation.js';
import type { ControlServices } from './control-assembly.js';

/** Why credential headers are not shown in process: MCP is not the token's holder's door. */
const REFUSAL = "Credential headers are shown only over HTTP, to the token's holder";

/** A profile's recordings in process (RecordingsApi): arguments checked as the HTTP routes check them; credential headers stay redacted. */
export function inProcessRecordings(services: Pick<ControlServices, 'recordings' | 'films'>, profile: string | undefined): RecordingsApi {
  const { recordings, films } = services;
  return {
    networkRecord: (on, targetId) => recordings.networkRecord(profile, validated(schemas.networkRecord, { on, targetId }, 'arguments')),
    network: (query = {}) => {
      const { profile: _ignored, ...filters } = validated(schemas.networkQuery, query, 'arguments');
      return recordings.network(profile, filters, REFUSAL);
    },
    networkBody: (id, targetId, part) => {
      const { profile: _ignored, ...which } = validated(schemas.networkBody, { id, targetId, part }, 'arguments');
      return recordings.networkBody(profile, which);
    },
    har: (request = {}) => recordings.har(profile, validated(schemas.har, request, 'arguments'), REFUSAL),
    traceStart: () => recordings.traceStart(profile),
    traceStop: (request = {}) => recordings.traceStop(profile, validated(schemas.traceStop, request, 'arguments')),
    videoStart: (request = {}) => films.start(profile, validated(schemas.videoStart, request, 'arguments')),
    videoStop: (request = {}) => films.stop(profile, validated(schemas.videoStop, request, 'arguments')),
  };
}
