import type { Routine, RoutineOwner, RoutineSummarySchema } from '../api/teach-schemas.js';
import { ROUTINE_NAME } from '../api/teach-schemas.js';
import type { z } from 'zod';
import { originOf } from '../api/web-address.js';

/**
 * Whose a routine is, and what that lets each credential do with it (spec
 * §27). A routine's space is its owner's: the operator's (the token, the
 * console, the person's own Chrome), a tenant's (every task session of that
 * tenant), or one tenantless session's.
 * - The token sees, runs and deletes every routine; a session's key sees
 *   and runs the operator's and its own space's, and no other's: another
 *   tenant's routines are not its to know of.
 * - A save never replaces another space's routine, whoever saves: a key
 *   cannot put its steps under the operator's name, and the token does not
 *   overwrite a key's work unseen (it deletes first).
 * - A routine says where its steps go: the origins it acts on.
 */

/** Who is asking: the operator (the token and all that stands for it), or a task session's key. */
export type RoutineCaller = RoutineOwner;

export const OPERATOR: RoutineCaller = { by: 'operator' };

/** An owner's space as one string: `operator`, `tenant:<name>` or `session:<id>` (the store keeps it beside each routine). */
export const spaceOf = (owner: RoutineOwner): string =>
  owner.by === 'operator' ? 'operator' : owner.tenant !== undefined ? `tenant:${owner.tenant}` : `session:${owner.session}`;

export function sameSpace(a: RoutineOwner, b: RoutineOwner): boolean {
  return spaceOf(a) === spaceOf(b);
}

/** A caller sees (lists, reads, runs) the operator's routines and its own space's; the operator sees all. */
export function visibleTo(routine: Routine, caller: RoutineCaller): boolean {
  return caller.by === 'operator' || routine.owner.by === 'operator' || sameSpace(routine.owner, caller);
}

/** A routine's owner as the caller may be told it: "the operator", "tenant acme", "session 1a2b…"; another tenant's is not a key's to learn. */
export function ownerName(owner: RoutineOwner, caller: RoutineCaller): string {
  if (owner.by === 'operator') return 'the operator';
  if (!sameSpace(owner, caller) && caller.by !== 'operator') return 'another session';
  return owner.tenant !== undefined ? `tenant ${owner.tenant} (session ${owner.session})` : `session ${owner.session}`;
}

/** A name for the caller's own routine when `name` is taken by another's: the name and the caller's space, free. */
export function nameOfOwn(name: string, caller: RoutineCaller, taken: (name: string) => boolean): string {
  const space = caller.by === 'operator' ? 'operator' : (caller.tenant ?? caller.session.slice(0, 8));
  const base = `${name}-${space.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}`.slice(0, 58).replace(/[-.]+$/, '');
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (ROUTINE_NAME.test(candidate) && !taken(candidate)) return candidate;
  }
}

/** The origins a routine's steps act on: where it was recorded, where each goto goes, where each secret is typed. */
export function routineOrigins(routine: Routine): string[] {
  const urls = [
    routine.recordedOn.url,
    ...routine.steps.flatMap((step) => (step.kind === 'goto' ? [step.url] : step.kind === 'type' && step.origin ? [step.origin] : [])),
  ];
  return [...new Set(urls.flatMap((url) => originOf(url) ?? []))];
}

/** A routine as GET /routines lists it. */
export function routineSummary(routine: Routine): z.infer<typeof RoutineSummarySchema> {
  return {
    name: routine.name,
    description: routine.description,
    createdAt: routine.createdAt,
    url: routine.recordedOn.url,
    owner: routine.owner,
    origins: routineOrigins(routine),
    parameters: routine.parameters.map((param) => (param.kind === 'secret' ? `${param.name} (secret)` : param.name)),
    steps: routine.steps.length,
  };
}
