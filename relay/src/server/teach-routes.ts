import { routineSummary } from '../api/teach-api.js';
import type { ControlService } from '../service/control-service.js';
import type { RouteBinder } from './route-binder.js';

/** A person teaches (spec §23) over HTTP: thin routes over the demonstration, routine and notes services. */
export function bindTeachRoutes(routes: RouteBinder, service: ControlService): void {
  const { demonstrations, routines, notes } = service.teaching;
  routes.json('POST /demonstrations/start', ({ query, body }) => demonstrations.start(query.profile, body));
  routes.json('GET /demonstrations', ({ query }) => ({ demonstrations: demonstrations.list(query.profile, query.targetId) }));
  routes.json('POST /demonstrations/stop', ({ query, body }) => demonstrations.stop(query.profile, body));
  routes.json('GET /routines', () => ({ routines: demonstrations.routines().map(routineSummary) }));
  routes.json('GET /routines/:name', ({ params }) => demonstrations.routine(params.name));
  routes.json('DELETE /routines/:name', ({ params }) => ({ deleted: demonstrations.deleteRoutine(params.name) }));
  routes.json('GET /routines/:name/script', ({ params }) => demonstrations.script(params.name));
  routes.json('POST /routines/:name/run', ({ query, params, body, signal }) => routines.run(query.profile, params.name, body, signal));
  routes.json('POST /notes/start', ({ query, body }) => notes.start(query.profile, body));
  routes.json('POST /notes', ({ query, body }) => notes.add(query.profile, body));
  routes.json('POST /notes/cancel', ({ query, body }) => notes.cancel(query.profile, body));
  routes.json('GET /notes', ({ query: { profile, targetId, all } }) => notes.list(profile, { targetId, all: all === 'true' }));
  routes.json('POST /notes/done', ({ query, body }) => notes.done(query.profile, body.id));
}
