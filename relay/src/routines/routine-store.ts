import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Routine, ROUTINE_NAME, RoutineSchema } from '../api/teach-schemas.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { writeFileAtomically } from '../vault/vault-file.js';

/**
 * Routines as files of this server's home, `$CLAWD_HOME/routines/<name>.json`
 * (0600, written crash-safely); another server of a fleet has its own.
 * Each names its owner (a file from before owners is the operator's), and
 * routine-owners.ts says who may see and replace it. A routine holds no
 * secret's value (its passwords and the secrets typed while it was shown
 * are parameters without one), so it is kept as plain JSON, read back as
 * its shape or refused as altered.
 */
export class RoutineStore {
  constructor(private readonly dir: string) {}

  list(): Routine[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((file) => file.endsWith('.json') && ROUTINE_NAME.test(file.slice(0, -5)))
      .flatMap((file) => {
        try {
          return [this.get(file.slice(0, -5))];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Routine {
    const routine = this.find(name);
    if (!routine) throw noRoutine(name);
    return routine;
  }

  /** The routine of this name, or undefined when there is none (a damaged file is still a 409). */
  find(name: string): Routine | undefined {
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

  save(routine: Routine): void {
    writeFileAtomically(this.pathOf(routine.name), `${JSON.stringify(routine, null, 2)}\n`);
  }

  delete(name: string): Routine {
    const routine = this.get(name);
    rmSync(this.pathOf(name), { force: true });
    return routine;
  }

  private pathOf(name: string): string {
    if (!ROUTINE_NAME.test(name)) throw new NotFoundError(`No routine named ${JSON.stringify(name)}: a routine's name is lowercase letters, digits, . _ -`);
    return join(this.dir, `${name}.json`);
  }
}

/** The one answer for a name no routine has (or none the caller may see: routines/routine-owners.ts). */
export function noRoutine(name: string): NotFoundError {
  return new NotFoundError(`No routine named ${JSON.stringify(name)}`, { next: 'list-routines' });
}
