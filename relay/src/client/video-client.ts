import type { Film, FilmList, FilmStarted } from '../api/replay-schemas.js';
import type { RequestOf } from '../api/schemas.js';
import type { RouteCall } from './route-call.js';

/** Films over HTTP (`BrowserClient.video`): each method is one route of api/replay-routes.ts. */
export interface VideoClient {
  /** Films one tab (targetId), or the whole profile: the tab each request uses, one after another. */
  start(request?: Partial<RequestOf<'videoStart'>>): Promise<FilmStarted>;
  /** Makes the film (ffmpeg) and says where it is, with its chapters. */
  stop(request?: RequestOf<'videoStop'>): Promise<Film>;
  /** The profile's films, an ended task session's kept ones included. */
  list(): Promise<FilmList>;
}

export function videoClient(call: RouteCall): VideoClient {
  return {
    start: (body = {}) => call('POST /video/start', { body }),
    stop: (body = {}) => call('POST /video/stop', { body }),
    list: () => call('GET /videos'),
  };
}
