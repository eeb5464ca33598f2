import { fenced } from './page-content.js';
import type { RoutineSummary } from './teach-api.js';
import type { RoutineAnswer, RoutineOwner, RoutineRun } from './teach-schemas.js';

/**
 * Routines as a reader reads them (MCP's browser_routine, the CLI): what
 * clawd says of one on its own lines (its name, whose it is, the origins its
 * steps act on, how a run went), and everything else between the page's
 * fence lines. A routine is made of its pages' words (its elements' names,
 * its parameters named after them, the title and URL it was recorded on),
 * and of whoever saved it (its description; a task session's key may be
 * talked by a page into anything), so none of that stands beside clawd's
 * words. The fence is the answer's (`fence`), or one chosen here.
 */

/** Whose a routine is, as its answer says it (the names the server chose to tell this caller). */
export function ownerLine(owner: RoutineOwner): string {
  if (owner.by === 'operator') return "the operator's";
  return owner.tenant !== undefined ? `tenant ${owner.tenant}'s (saved by session ${owner.session})` : `session ${owner.session}'s`;
}

const where = (origins: string[]) => (origins.length ? `acts on ${origins.join(', ')}` : 'acts on no site of its own');

/** `GET /routines`: a line each of clawd's, then what each does, with its parameters, fenced. */
export function routineListing(routines: RoutineSummary[], fence: string | undefined): string {
  if (!routines.length) return '';
  return [
    ...routines.map((routine) => `${routine.name}: ${ownerLine(routine.owner)}, ${where(routine.origins)}`),
    'What each does and takes, in the words of whoever saved it and of its pages:',
    fenced(
      fence,
      routines.map((routine) => `${routine.name}: ${routine.description} (params: ${routine.parameters.join(', ') || 'none'})`),
    ),
  ].join('\n');
}

/** `GET /routines/{name}`: whose it is and where it acts, then its description, where it was recorded and its parameters, fenced. */
export function routineShown(routine: RoutineAnswer): string {
  const secrets = routine.parameters.filter((param) => param.kind === 'secret');
  const typedOn = secrets.length ? `; a secret is typed only where it was when shown` : '';
  const parameters = routine.parameters.map(
    (param) =>
      `- ${param.name} (${param.kind}${param.default !== undefined ? `, default ${JSON.stringify(param.default)}` : param.kind === 'secret' ? `, no value kept: give it, or {{${param.oneTimeCode ? 'totp' : 'secret'}:${param.secret}}} in a session granted it` : ''}): ${param.description}`,
  );
  return [
    `${routine.name}: ${ownerLine(routine.owner)}, ${where(routine.origins)}${typedOn}; ${routine.steps.length} steps`,
    fenced(routine.fence, [routine.description, `recorded on ${routine.recordedOn.url} ${JSON.stringify(routine.recordedOn.title)}`, 'params:', ...parameters]),
  ].join('\n');
}

/** One step of a run as a line (the page's words: what it acted on, where, what failed). */
export function runStepLine(step: RoutineRun['steps'][number]): string {
  return `${String(step.step).padStart(3)}. ${step.outcome === 'ok' ? 'ok    ' : 'FAILED'} ${step.what}${step.error ? `: ${step.error}` : ''}`;
}

/** `POST /routines/{name}/run`, for an agent: how it went, whose it was and where it acted; the steps' words and the tab's URL fenced. */
export function routineRunText(run: RoutineRun): string {
  const whose = run.owner ? ` (${ownerLine(run.owner)}, ${where(run.origins ?? [])})` : '';
  if (!run.ok && run.failed) {
    const at = run.failed.url ? [`the tab is at ${run.failed.url}`] : [];
    return [
      `Routine ${run.routine}${whose} stopped at step ${run.failed.step} of ${run.steps.length}:`,
      fenced(run.fence, [runStepLine(run.steps.at(-1)!), ...at]),
    ].join('\n');
  }
  return [
    `Routine ${run.routine}${whose} ran: ${run.steps.length} steps, all done. The tab (${run.targetId}) is at:`,
    fenced(run.fence, [run.url ?? '']),
    'Take a snapshot to see the page.',
  ].join('\n');
}

/** `POST /routines/{name}/run`, for a person at the CLI: every step, fenced, then how it went. */
export function routineRunLines(run: RoutineRun): string {
  const whose = run.owner ? ` (${ownerLine(run.owner)}, ${where(run.origins ?? [])})` : '';
  const last = run.ok ? run.url : run.failed?.url;
  return [
    fenced(run.fence, [...run.steps.map(runStepLine), ...(last ? [`the tab is at ${last}`] : [])]),
    run.ok ? `routine ${run.routine} ran${whose}` : `routine ${run.routine} stopped at step ${run.failed?.step}${whose}`,
  ].join('\n');
}
