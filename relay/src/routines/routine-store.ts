import type { Routine } from '../api/teach-schemas.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { ownerName, OPERATOR, sameSpace } from './routine-owners.js';

/**
 * Where routines are kept: a port with two answers, picked when the server
 * starts. Without a store they are files of this server's home
 * (`routine-files.ts`); in a fleet they are rows of its PostgreSQL
 * (`store/postgres-routines.ts`), so a routine taught through one server
 * is listed and run through every other, with its owner. Each names its
 * owner, and routine-owners.ts says who may see and replace it; a save
 * never replaces another space's routine, checked where it is written, so
 * two servers saving one name at once cannot overwrite each other's.
 */
export interface RoutineStore {
  /** Every routine, by name. */
  list(): Promise<Routine[]>;
  /** The routine of this name, or undefined when there is none (an altered one is a 409). */
  find(name: string): Promise<Routine | undefined>;
  /** Saves it, replacing only a routine of the same owner's space: another's is a 409 (routineTaken). */
  save(routine: Routine): Promise<void>;
  /** Deletes it; none of that name is the 404 of noRoutine. */
  delete(name: string): Promise<Routine>;
}

/** The routine of this name, or the 404 for a name no routine has. */
export async function routineNamed(store: RoutineStore, name: string): Promise<Routine> {
  const routine = await store.find(name);
  if (!routine) throw noRoutine(name);
  return routine;
}

/** The one answer for a name no routine has (or none the caller may see: routines/routine-owners.ts). */
export function noRoutine(name: string): NotFoundError {
  return new NotFoundError(`No routine named ${JSON.stringify(name)}`, { next: 'list-routines' });
}

/** A save that met another space's routine of the name, after the service's own check (a save elsewhere in between). */
export function routineTaken(routine: Routine, existing: Routine): ConflictError {
  return new ConflictError(
    `Routine ${JSON.stringify(routine.name)} is ${ownerName(existing.owner, OPERATOR)}'s: it was saved meanwhile, and a save never replaces another's; save this one under a new name`,
    { routine: routine.name },
  );
}

/** Whether saving `routine` over `existing` keeps to the rule: none there, or the same space's. */
export function mayOverwrite(routine: Routine, existing: Routine | undefined): boolean {
  return existing === undefined || sameSpace(existing.owner, routine.owner);
}
