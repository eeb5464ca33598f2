import type { BrowserApi, RecordRequest } from '../api/browser-api.js';
import type { RecordingAnswer } from '../api/responses.js';
import { BadRequestError } from '../errors.js';

/** `browser_record`'s one call: its action, over the profile's recordings (api/recordings-api.ts), whichever side of HTTP they are. */
export async function recordCall(api: Pick<BrowserApi, 'recordings'>, request: RecordRequest): Promise<RecordingAnswer> {
  const { recordings } = api;
  switch (request.action) {
    case 'network-start':
    case 'network-stop':
      return recordings.networkRecord(request.action === 'network-start', request.targetId);
    case 'network':
      return recordings.network({ targetId: request.targetId, url: request.url, status: request.status, type: request.type, limit: request.limit });
    case 'body':
    case 'request-body': {
      if (request.id === undefined) throw new BadRequestError(`${request.action} needs the id of a request in the network log`);
      const { targetId, ...body } = await recordings.networkBody(request.id, request.targetId, request.action === 'body' ? 'response' : 'request');
      return { targetId, body };
    }
    case 'har':
      return recordings.har({ targetId: request.targetId, all: request.all, keep: request.keep });
    case 'trace-start':
      return recordings.traceStart();
    case 'trace-stop':
      return recordings.traceStop({ keep: request.keep });
    case 'video-start':
      return { filming: await recordings.videoStart({ targetId: request.targetId, format: request.format }) };
    case 'video-stop':
      return { film: await recordings.videoStop({ keep: request.keep }) };
  }
}
