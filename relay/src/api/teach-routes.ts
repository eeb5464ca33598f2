import { z } from 'zod';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import { FenceSchema } from './fence-schema.js';
import { schemas } from './schemas.js';
import {
  DemonstrationResultSchema,
  DemonstrationSchema,
  NoteSchema,
  NotesSchema,
  RoutineAnswerSchema,
  RoutineRunSchema,
  RoutineSchema,
  RoutineSummarySchema,
} from './teach-schemas.js';

/** The teaching routes (spec §23), spread into api/routes.ts's table. */

const tag = 'Teaching' as const;
const name = { name: "The routine's name" };

export const TEACH_ROUTES = {
  'POST /demonstrations/start': {
    summary:
      'Start hearing what a person does in a tab (their own mouse and keyboard in a shared tab, or the live view), to make a routine and a Playwright test of it',
    tag,
    query: schemas.profileQuery,
    body: schemas.demonstrationStart,
    answer: DemonstrationSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /demonstrations': {
    summary: 'The demonstrations going on, with their steps so far',
    tag,
    query: schemas.demonstrationQuery,
    answer: z.object({ demonstrations: z.array(DemonstrationSchema), fence: FenceSchema.optional() }),
    errors: [404],
  },
  'POST /demonstrations/stop': {
    summary:
      "Stop a demonstration: its steps as a routine (saved when named: typed values become parameters, a password or a secret the server typed is never recorded) and a Playwright test. A name another's routine has is a 409: a save replaces only the caller's own",
    tag,
    query: schemas.profileQuery,
    body: schemas.demonstrationStop,
    answer: DemonstrationResultSchema,
    errors: [404, 409],
  },
  'GET /routines': {
    summary: "The routines this server keeps that the caller may see: the token all, a session's key the operator's and its own",
    tag,
    query: schemas.routineQuery,
    answer: z.object({ routines: z.array(RoutineSummarySchema), fence: FenceSchema.optional() }),
  },
  'GET /routines/:name': {
    summary: 'One routine: whose it is, where its steps go, its parameters and steps',
    tag,
    params: name,
    answer: RoutineAnswerSchema,
    errors: [404, 409],
  },
  'DELETE /routines/:name': {
    summary: 'Delete a routine',
    tag,
    params: name,
    answer: z.object({ deleted: RoutineSchema, fence: FenceSchema.optional() }),
    errors: [404],
  },
  'GET /routines/:name/script': {
    summary: 'A routine as a Playwright test, with its default values (a secret read from SECRET_<NAME> when it runs)',
    tag,
    params: name,
    answer: z.object({ script: z.string(), notes: z.array(z.string()), fence: FenceSchema.optional() }),
    errors: [404],
  },
  'POST /routines/:name/run': {
    summary:
      "Run a routine on a profile's tab with parameters: each step an act (guarded, logged, filmed as acts are), stopping at the first step that fails with where and why. A secret is typed only on the origin its owner typed it on; another's routine types a secret's value only on origins the run names",
    tag,
    query: schemas.profileQuery,
    params: name,
    body: schemas.routineRun,
    answer: RoutineRunSchema,
    errors: [...BROWSER_ERRORS, 403],
  },
  'POST /notes/start': {
    summary:
      'A person marks elements for a note: their next clicks in the tab mark the element they are on (and do nothing else) until the note is sent or cancelled',
    tag,
    query: schemas.profileQuery,
    body: schemas.noteStart,
    answer: z.object({ targetId: z.string(), marking: z.array(z.string()), fence: FenceSchema.optional() }),
    errors: BROWSER_ERRORS,
  },
  'POST /notes': {
    summary: "A person's note to the agent, on the elements marked since /notes/start",
    tag,
    query: schemas.profileQuery,
    body: schemas.noteAdd,
    answer: NoteSchema,
    status: 201,
    errors: BROWSER_ERRORS,
  },
  'POST /notes/cancel': {
    summary: 'Drop the note being written; clicks act on the page again',
    tag,
    query: schemas.profileQuery,
    body: schemas.noteCancel,
    answer: z.object({ targetId: z.string(), cancelled: z.boolean() }),
    errors: BROWSER_ERRORS,
  },
  'GET /notes': {
    summary: "The person's notes on a tab, each marked element with its ref now, fenced as the person's words",
    tag,
    query: schemas.notesQuery,
    answer: NotesSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /notes/done': {
    summary: 'Mark a note done: it is not shown again',
    tag,
    query: schemas.profileQuery,
    body: schemas.noteDone,
    answer: NoteSchema,
    errors: [404],
  },
} satisfies Record<string, RouteSpec>;
