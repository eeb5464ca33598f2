import { z } from 'zod';
import { RoutineName } from '../api/teach-schemas.js';
import { BadRequestError } from '../errors.js';
import { defineTool, Profile, TargetId, text, type Tool, withProfile } from './tools.js';
import { routineListing, routineRunText, routineShown } from '../api/routine-words.js';

/**
 * What a person taught (spec §23), in the `routines` group: routines they
 * recorded by showing, run by name with parameters, and their notes on a
 * page (which also come with the next snapshot), marked done.
 */

const Params = z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())]));

export const TEACH_TOOLS: Tool[] = [
  defineTool({
    name: 'browser_routine',
    group: 'routines',
    description:
      'Routines a person recorded by showing: list, show one (its parameters), or run one by name with params on a tab; a run stops at the first step that fails.',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum(['list', 'show', 'run']),
      name: RoutineName.optional(),
      params: Params.optional().describe('run: a value per parameter; left out, its default'),
      origins: z.array(z.string()).optional().describe("run: where a secret you give may go, for another's routine"),
    }),
    readOnly: false,
    run: async (api, params) => {
      const teach = withProfile(api, params).teach;
      if (params.action === 'list') {
        const { routines, fence } = await teach.routines();
        if (!routines.length) return text('No routines yet: a person records one by showing (POST /demonstrations/start).');
        // Names, owners and origins are clawd's to say; what a routine does is the words of whoever saved it and of its pages.
        return text(routineListing(routines, fence));
      }
      if (!params.name) throw new BadRequestError(`browser_routine ${params.action} needs name`);
      if (params.action === 'show') return text(routineShown(await teach.routine(params.name)));
      const run = await teach.runRoutine(params.name, {
        targetId: params.targetId,
        params: params.params ?? {},
        ...(params.origins ? { origins: params.origins } : {}),
      });
      const answer = routineRunText(run);
      return run.ok ? text(answer) : { ...text(answer), isError: true };
    },
  }),
  defineTool({
    name: 'browser_notes',
    group: 'routines',
    description: "The person's notes on a tab's elements (with refs), or mark one done.",
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      done: z
        .string()
        .regex(/^n\d+$/)
        .optional()
        .describe('a note id to mark done'),
    }),
    readOnly: false,
    run: async (api, params) => {
      const teach = withProfile(api, params).teach;
      if (params.done) {
        const note = await teach.noteDone(params.done);
        return text(`Note ${note.id} is done.`);
      }
      const notes = await teach.notes({ targetId: params.targetId });
      return text(notes.fenced || 'No open notes from the person on this tab.');
    },
  }),
];
