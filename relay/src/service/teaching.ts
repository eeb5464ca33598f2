import { routineSummary, type TeachApi } from '../api/teach-api.js';
import { schemas } from '../api/schemas.js';
import type { RoutineStore } from '../routines/routine-store.js';
import { type ControlService, validated } from './control-service.js';
import { DemonstrationService } from './demonstration-service.js';
import { NotesService } from './notes-service.js';
import { RoutineService } from './routine-service.js';

/**
 * A person teaching (spec §23), as the control service holds it: their
 * demonstrations and the routines they make (demonstration-service.ts),
 * routines run by name (routine-service.ts), their notes on a page
 * (notes-service.ts); and the same for one profile as `BrowserApi.teach`,
 * in process, its arguments checked as the routes check them.
 */
export class Teaching {
  readonly demonstrations: DemonstrationService;
  readonly routines: RoutineService;
  readonly notes: NotesService;

  constructor(control: ControlService, store: RoutineStore) {
    this.demonstrations = new DemonstrationService(control, store);
    this.routines = new RoutineService(control, store);
    this.notes = new NotesService(control);
  }

  api(profile: string | undefined, signal?: AbortSignal): TeachApi {
    const { demonstrations, routines, notes } = this;
    return {
      startDemonstration: async (request = {}) => demonstrations.start(profile, validated(schemas.demonstrationStart, request, 'arguments')),
      demonstrations: async (query = {}) => ({ demonstrations: demonstrations.list(profile, query.targetId) }),
      stopDemonstration: async (request = {}) => demonstrations.stop(profile, validated(schemas.demonstrationStop, request, 'arguments')),
      routines: async () => ({ routines: demonstrations.routines().map(routineSummary) }),
      routine: async (name) => demonstrations.routine(name),
      deleteRoutine: async (name) => ({ deleted: demonstrations.deleteRoutine(name) }),
      routineScript: async (name) => demonstrations.script(name),
      runRoutine: (name, request = {}) => routines.run(profile, name, validated(schemas.routineRun, request, 'arguments'), signal),
      notes: (query = {}) => notes.list(profile, query),
      noteDone: async (id) => notes.done(profile, validated(schemas.noteDone, { id }, 'arguments').id),
    };
  }
}
