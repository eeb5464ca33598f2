import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Routine, ROUTINE_NAME, RoutineSchema } from '../api/teach-schemas.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { writeFileAtomically } from '../vault/vault-file.js';

/**
 * Routines as files of this server's home, `$CLAWD_HOME/routines/<name>.json`
 * (0600, written crash-safely): any profile or task session of this server
 * may run them; another server of a fleet has its own. A routine holds no
 * secret's value (its passwords are parameters without one), so it is kept
 * as plain JSON, read back as its shape or refused as altered.
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
    const path = this.pathOf(name);
    if (!existsSync(path)) throw new NotFoundError(`No routine named ${JSON.stringify(name)}`, { next: 'list-routines' });
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
