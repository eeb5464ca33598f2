import type { ControlService } from '../service/control-service.js';
import { dashboardPage } from '../pages/dashboard-page.js';
import { NOT_FRAMED } from './one-time-logins.js';
import type { RouteBinder } from './route-binder.js';

/**
 * A profile's browser and its tabs over HTTP (api/tab-routes.ts): status and
 * lifecycle, tabs, inspection, snapshots, actions and their hooks, each a
 * thin call of the service with the caller's signal. `GET /` asked for by a
 * browser (HTML) is the operator's dashboard instead of the status.
 */
export function bindTabRoutes(routes: RouteBinder, service: ControlService): void {
  routes.media('GET /', async ({ request, query }, response) => {
    // A browser asking for a page gets the dashboard; clients asking for JSON, the status.
    if (request.accepts(['json', 'html']) === 'html') {
      response
        .type('html')
        .set({ 'cache-control': 'no-store', ...NOT_FRAMED })
        .send(dashboardPage());
      return;
    }
    response.json(await service.status(query.profile));
  });
  routes.json('POST /start', ({ query, signal }) => service.start(query.profile, signal));
  routes.json('POST /stop', ({ query }) => service.stop(query.profile));

  routes.json('GET /tabs', async ({ query }) => service.tabList(query.profile));
  routes.json('POST /tabs/open', ({ query, body, signal }) => service.openTab(query.profile, body.url, signal));
  routes.json('POST /tabs/focus', ({ query, body, signal }) => service.focusTab(query.profile, body.targetId, signal));
  routes.json('DELETE /tabs/:targetId', async ({ query, params, signal }) => ({ closed: await service.closeTab(query.profile, params.targetId, signal) }));
  routes.json('POST /navigate', ({ query, body, signal }) => service.navigate(query.profile, body.url, body.targetId, signal));
  routes.json('POST /screenshot', ({ query, body, signal }) => service.screenshot(query.profile, body, signal));
  routes.json('POST /pdf', ({ query, body, signal }) => service.pdf(query.profile, body.targetId, signal));
  routes.json('GET /console', ({ query: { profile, ...options } }) => service.console(profile, options));
  routes.json('GET /downloads', ({ query }) => service.downloads(query.profile));

  routes.json('GET /snapshot', ({ query: { profile, ...options }, signal }) => service.snapshot(profile, options, signal));
  routes.json('GET /text', ({ query: { profile, ...options }, signal }) => service.text(profile, options, signal));
  routes.json('POST /act', ({ query, body, signal }) => service.act(query.profile, body, signal, { diffMaxChars: query.diff, person: query.person === true }));
  routes.json('POST /hooks/file-chooser', ({ query, body, signal }) => service.fileChooser(query.profile, body, signal));
  routes.json('POST /hooks/dialog', ({ query, body, signal }) => service.armDialog(query.profile, body, signal));
}
