import type { TeachApi } from '../api/teach-api.js';
import type { RouteCall } from './route-call.js';

/** Demonstrations, routines and notes over HTTP (`BrowserClient.teach`): each method is one route of api/teach-routes.ts. */
export function teachClient(call: RouteCall): TeachApi {
  return {
    startDemonstration: (body = {}) => call('POST /demonstrations/start', { body }),
    demonstrations: (query = {}) => call('GET /demonstrations', { query }),
    stopDemonstration: (body = {}) => call('POST /demonstrations/stop', { body }),
    routines: () => call('GET /routines'),
    routine: (name) => call('GET /routines/:name', { params: { name } }),
    deleteRoutine: (name) => call('DELETE /routines/:name', { params: { name } }),
    routineScript: (name) => call('GET /routines/:name/script', { params: { name } }),
    runRoutine: (name, body = {}) => call('POST /routines/:name/run', { params: { name }, body }),
    notes: (query = {}) => call('GET /notes', { query: { targetId: query.targetId, ...(query.all ? { all: 'true' } : {}) } }),
    noteDone: (id) => call('POST /notes/done', { body: { id } }),
  };
}
