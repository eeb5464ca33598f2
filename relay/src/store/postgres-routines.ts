import { type Routine, RoutineSchema } from '../api/teach-schemas.js';
import { ConflictError } from '../errors.js';
import { spaceOf } from '../routines/routine-owners.js';
import { noRoutine, type RoutineStore, routineTaken } from '../routines/routine-store.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * Routines in the fleet's store (spec §18): a row per name, the routine as
 * it was saved and its owner's space beside it, so one taught through any
 * server is listed and run through every other, with its owner's rules. A
 * save replaces a row only of the same space, in the one statement that
 * writes it: two servers saving one name at once never overwrite each
 * other's. A row read back is checked as a routine's shape (an altered one
 * is a 409, as an altered file is).
 */
export class PostgresRoutines implements RoutineStore {
  constructor(private readonly store: PostgresStore) {}

  async list(): Promise<Routine[]> {
    const { rows } = await this.store.query<{ name: string; routine: unknown }>('SELECT name, routine FROM clawd_routines ORDER BY name');
    return rows.flatMap((row) => {
      const checked = RoutineSchema.safeParse(row.routine);
      return checked.success && checked.data.name === row.name ? [checked.data] : [];
    });
  }

  async find(name: string): Promise<Routine | undefined> {
    const { rows } = await this.store.query<{ routine: unknown }>('SELECT routine FROM clawd_routines WHERE name = $1', [name]);
    return rows[0] && this.checked(name, rows[0].routine);
  }

  async save(routine: Routine): Promise<void> {
    const { rowCount } = await this.store.query(
      `INSERT INTO clawd_routines (name, space, routine, server) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET routine = excluded.routine, saved_at = now(), server = excluded.server WHERE clawd_routines.space = excluded.space`,
      [routine.name, spaceOf(routine.owner), JSON.stringify(routine), this.store.server],
    );
    if (rowCount) return;
    const existing = await this.find(routine.name);
    throw existing
      ? routineTaken(routine, existing)
      : new ConflictError(`Routine ${JSON.stringify(routine.name)} was not saved: the store refused it; try again`);
  }

  async delete(name: string): Promise<Routine> {
    const routine = await this.find(name);
    if (!routine) throw noRoutine(name);
    await this.store.query('DELETE FROM clawd_routines WHERE name = $1', [name]);
    return routine;
  }

  private checked(name: string, value: unknown): Routine {
    const checked = RoutineSchema.safeParse(value);
    if (!checked.success || checked.data.name !== name)
      throw new ConflictError(`The routine ${JSON.stringify(name)} in the store (${this.store.name}) does not have a routine's shape: it was altered`);
    return checked.data;
  }
}
