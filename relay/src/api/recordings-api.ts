import type { Film, FilmStarted } from './replay-schemas.js';
import type { NetworkBody, RecordingAnswer } from './responses.js';
import type { RequestOf } from './schemas.js';

/**
 * A profile's records of what happened, as an agent's tools use them: the
 * network log, a HAR of it, a Playwright trace, a film. Two
 * implementations, one contract: the typed client over HTTP
 * (client/browser-client.ts) and the services in process
 * (service/in-process-api.ts); MCP's `browser_record` is one call over it
 * (mcp/record-call.ts). Credential headers are the token's holder's over
 * HTTP only: neither shows them here.
 */
export interface RecordingsApi {
  /** Starts (on) or stops a tab's network log. */
  networkRecord(on: boolean, targetId?: string): Promise<RecordingAnswer>;
  /** A tab's network log, filtered. */
  network(query?: { targetId?: string; url?: string; status?: string; type?: string; limit?: number }): Promise<RecordingAnswer>;
  /** A response body as the browser still holds it, or (`part: 'request'`) the request's own. */
  networkBody(id: number, targetId?: string, part?: NetworkBody['part']): Promise<NetworkBody>;
  /** The tab's (or, with all, the profile's) network log as HAR 1.2. */
  har(request?: Omit<RequestOf<'har'>, 'secrets'>): Promise<RecordingAnswer>;
  traceStart(): Promise<RecordingAnswer>;
  traceStop(request?: RequestOf<'traceStop'>): Promise<RecordingAnswer>;
  /** Films one tab (targetId), or the whole profile. */
  videoStart(request?: Partial<RequestOf<'videoStart'>>): Promise<FilmStarted>;
  videoStop(request?: RequestOf<'videoStop'>): Promise<Film>;
}
