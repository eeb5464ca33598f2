import type { TeachApi } from '../api/teach-api.js';
import { schemas } from '../api/schemas.js';
import { OPERATOR, type RoutineCaller } from '../routines/routine-owners.js';
import type { DemonstrationLedger } from '../demonstrations/demonstration-ledger.js';
import type { NoteStore } from '../notes/note-store.js';
import type { RoutineStore } from '../routines/routine-store.js';
import { validated } from '../validation.js';
import type { DemonstrationService } from './demonstration-service.js';
import type { NotesService } from './notes-service.js';
import type { RoutineService } from './routine-service.js';

/** Where what people taught is kept: routines and notes (the home's files, or the fleet's store), and in a fleet what task sessions' demonstrations heard so far. */
export interface TeachingStores {
  routines: RoutineStore;
  notes: NoteStore;
  demonstrations?: DemonstrationLedger;
}

/**
 * A person teaching (spec §23), as the assembly (control-assembly.ts) builds it: their
 * demonstrations and the routines they make (demonstration-service.ts),
 * routines run by name (routine-service.ts), their notes on a page
 * (notes-service.ts), kept where the server was given to keep them (its
 * home's files, or the fleet's store); and the same for one profile as `BrowserApi.teach`,
 * in process, its arguments checked as the routes check them. Each call is
 * made as its caller: the operator, or a task session's key (whose
 * routines it sees and saves: routines/routine-owners.ts).
 */
export class Teaching {
  constructor(
    readonly demonstrations: DemonstrationService,
    readonly routines: RoutineService,
    readonly notes: NotesService,
    /** The tenant task session `id` was opened for, if any (whose routines its key saves: routines/routine-owners.ts). */
    private readonly tenantOf: (session: string) => string | undefined,
  ) {}

  /** The caller a request is made as: a task session's key (`session`, its id) saves as its tenant's, or its own; else the operator. */
  callerOf(session: string | undefined): RoutineCaller {
    if (session === undefined) return OPERATOR;
    const tenant = this.tenantOf(session);
    return { by: 'session', session, ...(tenant !== undefined ? { tenant } : {}) };
  }

  api(profile: string | undefined, signal?: AbortSignal, session?: string): TeachApi {
    const { demonstrations, routines, notes } = this;
    const caller = () => this.callerOf(session);
    return {
      startDemonstration: async (request = {}) => demonstrations.start(profile, validated(schemas.demonstrationStart, request, 'arguments'), caller()),
      demonstrations: async (query = {}) => demonstrations.list(profile, query.targetId),
      stopDemonstration: async (request = {}) => demonstrations.stop(profile, validated(schemas.demonstrationStop, request, 'arguments'), caller()),
      routines: () => demonstrations.routines(caller()),
      routine: (name) => demonstrations.routine(name, caller()),
      deleteRoutine: (name) => demonstrations.deleteRoutine(name, caller()),
      routineScript: (name) => demonstrations.script(name, caller()),
      runRoutine: (name, request = {}) => routines.run(profile, name, validated(schemas.routineRun, request, 'arguments'), signal, caller()),
      notes: (query = {}) => notes.list(profile, query),
      noteDone: (id) => notes.done(profile, validated(schemas.noteDone, { id }, 'arguments').id),
    };
  }
}
