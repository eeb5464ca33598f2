import type { TeachApi } from '../api/teach-api.js';
import type { Call } from './toolbox-client.js';

/** Demonstrations, routines and notes over HTTP (`BrowserClient.teach`): each method is one route of api/teach-routes.ts. */
export function teachClient(call: Call): TeachApi {
  const routine = (name: string) => `/routines/${encodeURIComponent(name)}`;
  return {
    startDemonstration: (request = {}) => call('POST', '/demonstrations/start', request),
    demonstrations: (query = {}) => call('GET', '/demonstrations', undefined, query),
    stopDemonstration: (request = {}) => call('POST', '/demonstrations/stop', request),
    routines: () => call('GET', '/routines'),
    routine: (name) => call('GET', routine(name)),
    deleteRoutine: (name) => call('DELETE', routine(name)),
    routineScript: (name) => call('GET', `${routine(name)}/script`),
    runRoutine: (name, request = {}) => call('POST', `${routine(name)}/run`, request),
    notes: (query = {}) => call('GET', '/notes', undefined, { targetId: query.targetId, ...(query.all ? { all: 'true' } : {}) }),
    noteDone: (id) => call('POST', '/notes/done', { id }),
  };
}
