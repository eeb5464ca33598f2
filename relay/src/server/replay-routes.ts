import type { FilmService } from '../service/film-service.js';
import type { RouteBinder } from './route-binder.js';

/** Films over HTTP (api/replay-routes.ts): start and stop one, the profile's films, and a film's bytes. */
export function bindReplayRoutes(routes: RouteBinder, films: FilmService): void {
  routes.json('POST /video/start', ({ query, body }) => films.start(query.profile, body));
  routes.json('POST /video/stop', ({ query, body }) => films.stop(query.profile, body));
  routes.json('GET /videos', ({ query }) => films.list(query.profile));
  /** A film's bytes, with ranges (send's own), so a player seeks without fetching the whole film. */
  routes.media('GET /videos/file', ({ query: { profile, name } }, response) => {
    response.set('cache-control', 'no-store').sendFile(films.file(profile, name), { dotfiles: 'deny' });
  });
}
