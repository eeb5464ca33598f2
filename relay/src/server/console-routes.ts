import { UnauthorizedError } from '../errors.js';
import type { DashboardAuth } from './dashboard-auth.js';
import type { EventStreams } from './event-stream.js';
import { movingOnPage } from './one-time-logins.js';
import type { RouteBinder } from './route-binder.js';

/** What the console's routes need: its logins, its event streams, and this server's port (for a link when the request names no host). */
export interface ConsoleParts {
  dashboard: DashboardAuth;
  events: EventStreams;
  port: () => number;
}

/** The operator's console over HTTP (api/console-routes.ts): its one-time login link, the login itself, and its stream of audit entries. */
export function bindConsoleRoutes(routes: RouteBinder, { dashboard, events, port }: ConsoleParts): void {
  /** A one-time link into the dashboard, for `clawd-browser dashboard` (a token holder). */
  routes.json('POST /dashboard/link', ({ request }) => {
    const host = request.headers.host ?? `127.0.0.1:${port()}`;
    return { url: `http://${host}/dashboard/login?code=${dashboard.newCode()}`, expiresInSeconds: 60 };
  });
  routes.media('GET /dashboard/login', ({ query }, response) => {
    const login = dashboard.login(query.code ?? '');
    if (!login) throw new UnauthorizedError('This dashboard link is used or expired: run `clawd-browser dashboard` for a new one');
    // Its own page moves on to the console: a link opened from another site's page still carries the new cookie there.
    const page = movingOnPage(login.home);
    response
      .set({ 'set-cookie': login.cookie, ...page.headers })
      .type('html')
      .send(page.html);
  });
  /** Server-sent events for the operator's console: each audit entry as it is written (sessions, grants, the vault). */
  routes.media('GET /events', ({ request }, response) => {
    events.stream(request, response);
  });
}
