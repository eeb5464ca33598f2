import type { Request } from 'express';
import type { RoutineCaller } from '../routines/routine-owners.js';
import type { Teaching } from '../service/teaching.js';
import type { RouteBinder } from './route-binder.js';

/**
 * A person teaches (spec §23) over HTTP: thin routes over the demonstration, routine and notes services.
 * Whose a request is (the operator's, or a task session's key's: `sessionOf`, the door's) decides what
 * routines it sees and may replace (routines/routine-owners.ts).
 */
export function bindTeachRoutes(routes: RouteBinder, teaching: Teaching, sessionOf: (request: Request) => string | undefined): void {
  const { demonstrations, routines, notes } = teaching;
  const caller = (request: Request): RoutineCaller => teaching.callerOf(sessionOf(request));
  routes.json('POST /demonstrations/start', ({ query, body, request }) => demonstrations.start(query.profile, body, caller(request)));
  routes.json('GET /demonstrations', ({ query }) => demonstrations.list(query.profile, query.targetId));
  routes.json('POST /demonstrations/stop', ({ query, body, request }) => demonstrations.stop(query.profile, body, caller(request)));
  routes.json('GET /routines', ({ request }) => demonstrations.routines(caller(request)));
  routes.json('GET /routines/:name', ({ params, request }) => demonstrations.routine(params.name, caller(request)));
  routes.json('DELETE /routines/:name', ({ params, request }) => demonstrations.deleteRoutine(params.name, caller(request)));
  routes.json('GET /routines/:name/script', ({ params, request }) => demonstrations.script(params.name, caller(request)));
  routes.json('POST /routines/:name/run', ({ query, params, body, signal, request }) =>
    routines.run(query.profile, params.name, body, signal, caller(request)),
  );
  routes.json('POST /notes/start', ({ query, body }) => notes.start(query.profile, body));
  routes.json('POST /notes', ({ query, body }) => notes.add(query.profile, body));
  routes.json('POST /notes/cancel', ({ query, body }) => notes.cancel(query.profile, body));
  routes.json('GET /notes', ({ query: { profile, targetId, all } }) => notes.list(profile, { targetId, all: all === 'true' }));
  routes.json('POST /notes/done', ({ query, body }) => notes.done(query.profile, body.id));
}
