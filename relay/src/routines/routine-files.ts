import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Routine, ROUTINE_NAME, RoutineSchema } from '../api/teach-schemas.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { writeFileAtomically } from '../vault/vault-file.js';
import { mayOverwrite, noRoutine, type RoutineStore, routineTaken } from './routine-store.js';

/**
 * Routines as files of this server's home, `$CLAWD_HOME/routines/<name>.json`
 * (0600, written crash-safely): the answer without a fleet's store. A
 * routine holds no secret's value (its passwords and the secrets typed
 * while it was shown are parameters without one), so it is kept as plain
 * JSON, read back as its shape or refused as altered; a file from before
 * owners is the operator's.
 */
export class FileRoutineStore implements RoutineStore {
  constructor(private readonly dir: string) {}

  async list(): Promise<Routine[]> {
    if (!existsSync(this.dir)) return [];
    const names = readdirSync(this.dir).filter((file) => file.endsWith('.json') && ROUTINE_NAME.test(file.slice(0, -5)));
    return names
      .flatMap((file) => {
        try {
          return [this.read(file.slice(0, -5))].filter((routine): routine is Routine => routine !== undefined);
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async find(name: string): Promise<Routine | undefined> {
    return this.read(name);
  }

  async save(routine: Routine): Promise<void> {
    const existing = this.read(routine.name);
    if (!mayOverwrite(routine, existing)) throw routineTaken(routine, existing!);
    writeFileAtomically(this.pathOf(routine.name), `${JSON.stringify(routine, null, 2)}\n`);
  }

  async delete(name: string): Promise<Routine> {
    const routine = this.read(name);
    if (!routine) throw noRoutine(name);
    rmSync(this.pathOf(name), { force: true });
    return routine;
  }

  private read(name: string): Routine | undefined {
    const path = this.pathOf(name);
    if (!existsSync(path)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      throw new ConflictError(`The routine file ${path} is not JSON: it was altered or damaged`);
    }
    const checked = RoutineSchema.safeParse(parsed);
    if (!checked.success || checked.data.name !== name) throw new ConflictError(`The routine file ${path} does not have a routine's shape: it was altered`);
    return checked.data;
  }

  private pathOf(name: string): string {
    if (!ROUTINE_NAME.test(name)) throw new NotFoundError(`No routine named ${JSON.stringify(name)}: a routine's name is lowercase letters, digits, . _ -`);
    return join(this.dir, `${name}.json`);
  }
}
