import { z } from 'zod';
import { RoutineName } from '../api/teach-schemas.js';
import { BadRequestError } from '../errors.js';
import { defineTool, Profile, TargetId, text, type Tool, withProfile } from './tools.js';

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
    description: "Routines a person recorded by showing: list, show one (its parameters), or run one by name with params on a tab; a run stops at the first step that fails.",
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      action: z.enum(['list', 'show', 'run']),
      name: RoutineName.optional(),
      params: Params.optional().describe('run: a value per parameter; left out, its default'),
    }),
    readOnly: false,
    run: async (api, params) => {
      const teach = withProfile(api, params).teach;
      if (params.action === 'list') {
        const { routines } = await teach.routines();
        return text(routines.length ? routines.map((r) => `${r.name}: ${r.description} (params: ${r.parameters.join(', ') || 'none'})`).join('\n') : 'No routines yet: a person records one by showing (POST /demonstrations/start).');
      }
      if (!params.name) throw new BadRequestError(`browser_routine ${params.action} needs name`);
      if (params.action === 'show') {
        const routine = await teach.routine(params.name);
        const lines = routine.parameters.map((p) => `- ${p.name} (${p.kind}${p.default !== undefined ? `, default ${JSON.stringify(p.default)}` : p.kind === 'secret' ? `, no value kept: give it, or {{secret:${p.secret}}} in a session granted it` : ''}): ${p.description}`);
        return text([`${routine.name}: ${routine.description}`, `recorded on ${routine.recordedOn.url}; ${routine.steps.length} steps`, 'params:', ...lines].join('\n'));
      }
      const run = await teach.runRoutine(params.name, { targetId: params.targetId, params: params.params ?? {} });
      if (!run.ok && run.failed) return { ...text(`Routine ${run.routine} stopped at step ${run.failed.step} of ${run.steps.length} (${run.failed.what}): ${run.failed.error}${run.failed.url ? `\nThe tab is at ${run.failed.url}` : ''}`), isError: true };
      return text(`Routine ${run.routine} ran: ${run.steps.length} steps, all done. The tab (${run.targetId}) is at ${run.url}. Take a snapshot to see the page.`);
    },
  }),
  defineTool({
    name: 'browser_notes',
    group: 'routines',
    description: "The person's notes on a tab's elements (with refs), or mark one done.",
    input: z.object({ profile: Profile, targetId: TargetId, done: z.string().regex(/^n\d+$/).optional().describe('a note id to mark done') }),
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
