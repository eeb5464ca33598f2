import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fenced } from '../api/page-content.js';
import { routineListing, routineRunLines, routineShown } from '../api/routine-words.js';
import type { BrowserClient } from '../client/browser-client.js';
import { BadRequestError } from '../errors.js';
import type { Print } from './print.js';

/** A person teaches (spec §23): `demonstration start|stop|list`, `routines`, `routine show|run|script|delete`, `notes`. */

/** `--param name=value`, repeated: the run's values (true and false for a box, as text; the server checks each). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function params(pairs: string[], fromEnv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new BadRequestError(`--param ${JSON.stringify(pair)}: give it as name=value`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  // A secret from the environment: never on the command line, where other users' `ps` and the shell's history see it.
  for (const pair of fromEnv) {
    const at = pair.indexOf('=');
    const variable = pair.slice(at + 1);
    if (at < 1 || process.env[variable] === undefined)
      throw new BadRequestError(`--param-env ${JSON.stringify(pair)}: give it as name=VARIABLE, a variable that is set`);
    out[pair.slice(0, at)] = process.env[variable]!;
  }
  return out;
}

export function addTeachCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const demonstration = program
    .command('demonstration')
    .description("a person shows a task once in a tab (their Chrome's shared tab, or the console's live view): it becomes a routine and a Playwright test");
  demonstration
    .command('start')
    .description('hear what the person does in the tab from now on')
    .option('--target <targetId>', 'the tab')
    .action(async (options: { target?: string }) => {
      const started = await client().teach.startDemonstration({ targetId: options.target });
      print(started, () => `hearing the person in tab ${started.targetId} (${started.url}); stop with: clawd-browser demonstration stop --name NAME`);
    });
  demonstration
    .command('stop')
    .description('stop: the steps as a routine (saved with --name) and a Playwright test')
    .option('--target <targetId>', 'the tab')
    .option('--name <name>', 'save it as the routine of this name')
    .option('--description <text>', 'what it does')
    .option('--out <file>', 'write its Playwright test here')
    .option('--discard', 'drop what was heard')
    .action(async (options: { target?: string; name?: string; description?: string; out?: string; discard?: boolean }) => {
      const made = await client().teach.stopDemonstration({
        targetId: options.target,
        name: options.name,
        description: options.description,
        discard: options.discard,
      });
      const path = options.out && made.script ? resolve(options.out) : undefined;
      if (path) writeFileSync(path, made.script!);
      // Its parameters and notes name the page's elements: fenced as the page's words.
      const said = [
        ...(made.routine ? [`parameters: ${made.routine.parameters.map((p) => p.name).join(', ') || 'none'}`] : []),
        ...made.notes.map((note) => `note: ${note}`),
      ];
      print({ ...made, ...(path ? { path } : {}) }, () =>
        [
          made.routine
            ? `${made.saved ? 'saved routine' : 'routine (not saved: give --name)'} ${made.routine.name}: ${made.routine.steps.length} steps`
            : 'discarded',
          ...(path ? [path] : []),
          ...(said.length ? [fenced(made.fence, said)] : []),
        ].join('\n'),
      );
    });
  demonstration
    .command('list')
    .description('the demonstrations going on, with their steps so far')
    .action(async () => {
      const { demonstrations, fence } = await client().teach.demonstrations();
      // Where each is and what was heard name the page's words: fenced.
      print(
        { demonstrations, fence },
        () =>
          demonstrations.map((d) => [`${d.targetId} since ${d.since}`, fenced(fence, [d.url, ...d.steps.map((step) => `  ${step}`)])].join('\n')).join('\n') ||
          '(none)',
      );
    });

  program
    .command('routines')
    .description('the routines this server keeps')
    .action(async () => {
      const { routines, fence } = await client().teach.routines();
      print({ routines, fence }, () => routineListing(routines, fence) || '(no routines)');
    });
  const routine = program.command('routine').description('one routine: show it, run it, write its test, delete it');
  routine.command('show <name>').action(async (name: string) => {
    const shown = await client().teach.routine(name);
    print(shown, () => routineShown(shown));
  });
  routine
    .command('run <name>')
    .description('run it on a tab of the profile, each step an act; it stops at the first step that fails')
    .option('--target <targetId>', 'the tab')
    .option('--param <name=value>', 'a parameter (repeat it)', collect, [])
    .option('--param-env <name=VARIABLE>', 'a parameter from an environment variable (for a secret)', collect, [])
    .option('--origin <origin>', "where a secret you give may be typed, for a routine another's key saved (repeat it)", collect, [])
    .action(async (name: string, options: { target?: string; param: string[]; paramEnv: string[]; origin: string[] }) => {
      const run = await client().teach.runRoutine(name, {
        targetId: options.target,
        params: params(options.param, options.paramEnv),
        ...(options.origin.length ? { origins: options.origin } : {}),
      });
      print(run, () => routineRunLines(run));
      if (!run.ok) process.exitCode = 1;
    });
  routine
    .command('script <name>')
    .description('write it as a Playwright test (a secret read from SECRET_<NAME> when the test runs)')
    .option('--out <file>', 'where (default: ./<name>.spec.ts)')
    .action(async (name: string, options: { out?: string }) => {
      const written = await client().teach.routineScript(name);
      const path = resolve(options.out ?? `${name}.spec.ts`);
      writeFileSync(path, written.script);
      print({ path, notes: written.notes }, () =>
        [
          path,
          ...(written.notes.length
            ? [
                fenced(
                  written.fence,
                  written.notes.map((note) => `note: ${note}`),
                ),
              ]
            : []),
        ].join('\n'),
      );
    });
  routine.command('delete <name>').action(async (name: string) => {
    const { deleted } = await client().teach.deleteRoutine(name);
    print({ deleted }, () => `deleted ${deleted.name}`);
  });

  program
    .command('notes')
    .description("the person's notes on a tab, with their elements' refs (--done ID marks one done)")
    .option('--target <targetId>', 'the tab')
    .option('--done <id>', 'mark this note done')
    .option('--all', 'notes marked done too')
    .action(async (options: { target?: string; done?: string; all?: boolean }) => {
      if (options.done) {
        const note = await client().teach.noteDone(options.done);
        return print(note, () => `note ${note.id} is done`);
      }
      const notes = await client().teach.notes({ targetId: options.target, all: options.all });
      print(notes, () => notes.fenced || '(no open notes on this tab)');
    });
}
