import type { Request } from 'express';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { LiveInput } from '../service/live-input.js';
import type { RouteBinder } from './route-binder.js';
import { streamScreencast } from './screencast-stream.js';

/** What the live view needs: the profiles' drivers (their screencasts), live input (service/live-input.ts), and whether a request is a person's (the door's). */
export interface LiveViewParts {
  manager: Pick<ProfileManager, 'driver'>;
  input: Pick<LiveInput, 'view'>;
  isPerson: (request: Request) => boolean;
}

/** A tab's live view over HTTP (api/live-view-routes.ts): its stream, one frame of it, and a person's input through it. */
export function bindLiveViewRoutes(routes: RouteBinder, { manager, input, isPerson }: LiveViewParts): void {
  /** A tab as multipart/x-mixed-replace JPEG (an <img> shows it); the screencast stops when the last viewer leaves. */
  routes.media('GET /screencast', async ({ query: { profile, targetId } }, response) => {
    await streamScreencast((await manager.driver(profile).screencast(targetId)).cast, response);
  });
  /**
   * One JPEG of a tab, for the dashboard's thumbnails: refreshed by reloading,
   * since each open stream would hold one of the browser's few connections
   * per host. Not an action (not logged).
   */
  routes.media('GET /screencast/frame', async ({ query: { profile, targetId } }, response) => {
    const jpeg = await manager.driver(profile).thumbnail(targetId);
    if (!jpeg) return void response.status(204).end();
    response.set('cache-control', 'no-store').type('image/jpeg').send(jpeg);
  });
  /** A person's input through the live view: logged as the person's. */
  // The console's person's input; the token's or a session key's is the agent's, held to the confirm rules.
  routes.json('POST /screencast/input', ({ query, body, signal, request }) => {
    const by = isPerson(request) ? ('person' as const) : ('agent' as const);
    return input.view(query.profile, body, signal, { by, actor: by });
  });
}
