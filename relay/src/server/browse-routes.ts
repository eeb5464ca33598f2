import type { BrowseEvent } from '../api/browse-schemas.js';
import type { BrowseRuns } from '../browse/browse-runs.js';
import type { ActionLog } from '../runtime/action-log.js';
import { CallerGoneError } from '../runtime/operation.js';
import type { ControlServices } from '../service/control-assembly.js';
import { inProcessApi } from '../service/in-process-api.js';
import type { CredentialService } from '../service/credential-service.js';
import { asHttpFailure } from './http-errors.js';
import type { RouteBinder } from './route-binder.js';

/**
 * The browse runtime over HTTP (spec §24). `POST /browse` answers with the
 * run's result as JSON, or, asked for `text/event-stream`, as server-sent
 * events: `start` (the run's id, for `DELETE /browse/{run}`), a `step` per
 * step, and `end` with the result. A failure before the run starts (a bad
 * provider, the cap) is an HTTP error as any; one after it has started
 * streaming is an `error` event. A caller that hangs up cancels the run.
 */

const KEEPALIVE_MS = 15_000;

/** What the runs need of this server: its service (the in-process browser API), its sessions, its log. */
export interface BrowseParts {
  services: ControlServices;
  credentials: CredentialService;
  /** Whether this server holds task session `id`. */
  has: (id: string) => boolean;
  actionLog: ActionLog;
  exportDir: string;
}

export function bindBrowseRoutes(routes: RouteBinder, parts: BrowseParts): void {
  const { services, credentials } = parts;
  // The runtime (its loop, providers and their SDKs) is loaded with the first run: a server nobody browses does not hold it.
  let made: Promise<BrowseRuns> | undefined;
  const runs = () =>
    (made ??= import('../browse/browse-runs.js').then(
      ({ BrowseRuns }) =>
        new BrowseRuns({
          config: () => services.manager.registry.config().browse,
          api: (profile, signal) => inProcessApi(services, profile, signal),
          openSession: async (request, signal) => {
            const opened = await credentials.openSession(request, signal);
            return { id: opened.id, profile: opened.profile };
          },
          hasSession: parts.has,
          closeSession: async (id) => void (await credentials.closeSession(id)),
          log: parts.actionLog,
          exportDir: parts.exportDir,
        }),
    ));
  // The service answers BrowserApi.browse (MCP's browser_browse in process) through the same runs.
  services.browseWith(async (request, scope, how) => (await runs()).run(request, scope, how));

  routes.media('POST /browse', async ({ query, body, request, signal }, response) => {
    const scope = { profile: query.profile };
    if (request.accepts(['application/json', 'text/event-stream']) !== 'text/event-stream') {
      response.json(await (await runs()).run(body, scope, { signal }));
      return;
    }
    let keepalive: NodeJS.Timeout | undefined;
    const send = (event: BrowseEvent | { kind: 'error'; data: unknown }) => {
      if (response.destroyed) return;
      if (!response.headersSent) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
        keepalive = setInterval(() => response.write(': keep-alive\n\n'), KEEPALIVE_MS);
        keepalive.unref();
      }
      response.write(`event: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`);
    };
    try {
      await (await runs()).run(body, scope, { signal, onEvent: send });
    } catch (error) {
      if (!response.headersSent || error instanceof CallerGoneError) throw error;
      send({ kind: 'error', data: asHttpFailure(error).error.toBody() });
    } finally {
      clearInterval(keepalive);
    }
    response.end();
  });
  routes.json('GET /browse', async () => (await runs()).list());
  routes.json('DELETE /browse/:run', async ({ params }) => (await runs()).cancel(params.run));
}
