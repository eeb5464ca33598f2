import { z } from 'zod';
import { FenceSchema } from './fence-schema.js';

/**
 * A person teaches by showing (spec §23): a demonstration in a tab becomes a
 * routine (a name, a description, parameters, steps) that agents run by
 * name, and a Playwright test; a person's notes on a page's elements reach
 * the agent with their refs. Requests here (schemas.ts spreads them into
 * `schemas`), and the answers.
 */

const TargetId = z.string().min(1);

export const ROUTINE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const RoutineName = z.string().regex(ROUTINE_NAME, "a routine's name: lowercase letters, digits, . _ - (at most 64), starting with a letter or digit");
export const PARAMETER_NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** How a step finds its element: the most stable handle a person would write (replay/locator-choice.ts). */
export const ElementLocatorSchema = z.strictObject({
  by: z.enum(['role', 'label', 'testid', 'text', 'css']),
  role: z.string().max(40).optional(),
  name: z.string().max(1000).optional(),
  exact: z.boolean().optional(),
  value: z.string().max(2000).optional().describe('The label, test id, text or CSS path'),
  frames: z
    .array(z.string().min(1).max(2000))
    .min(1)
    .max(16)
    .optional()
    .describe("The frames the element is inside, from the top: each the CSS selector of its <iframe> in its parent's document, as frameLocator takes it"),
});

const element = {
  element: ElementLocatorSchema,
  /** What a person reads for the element: `textbox "Email"`. */
  what: z.string().max(300),
};
const Param = z.string().regex(PARAMETER_NAME);

export const RoutineStepSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('goto'), url: z.string().max(8192) }),
  z.strictObject({ kind: z.literal('click'), ...element, button: z.enum(['left', 'right', 'middle']).optional() }),
  z.strictObject({
    kind: z.literal('type'),
    ...element,
    param: Param,
    submit: z.boolean().optional(),
    origin: z.string().max(2000).optional().describe('Where the owner typed it (scheme, host, port): a secret is typed there only'),
  }),
  z.strictObject({ kind: z.literal('select'), ...element, param: Param }),
  z.strictObject({ kind: z.literal('check'), ...element, param: Param }),
  z.strictObject({ kind: z.literal('upload'), ...element, param: Param }),
  z.strictObject({ kind: z.literal('press'), key: z.string().min(1).max(100) }),
]);
export type RoutineStep = z.infer<typeof RoutineStepSchema>;

export const RoutineParameterSchema = z.strictObject({
  name: z.string().regex(PARAMETER_NAME),
  /** text: typed; choice: an option's label; toggle: checked or not; files: paths in the upload folders; secret: never recorded. */
  kind: z.enum(['text', 'choice', 'toggle', 'files', 'secret']),
  description: z.string().max(300).describe('The field it goes into, as the person saw it'),
  default: z
    .union([z.string(), z.boolean(), z.array(z.string())])
    .optional()
    .describe('What the person gave; a secret and files have none'),
  secret: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional()
    .describe('For a secret: the vault secret a task session types for it ({{secret:NAME}}) when the run gives none'),
  oneTimeCode: z.literal(true).optional().describe('For a secret: a one-time code, typed from the vault seed `secret` names ({{totp:NAME}})'),
});
export type RoutineParameter = z.infer<typeof RoutineParameterSchema>;

/**
 * Who saved a routine, and so whose it is (its space): the operator (the
 * token, the console, the person's own Chrome), or a task session's key:
 * its tenant's when the session has one (that tenant's sessions share it),
 * else that session's. A save never replaces a routine of another space.
 */
export const RoutineOwnerSchema = z.discriminatedUnion('by', [
  z.strictObject({ by: z.literal('operator') }),
  z.strictObject({ by: z.literal('session'), session: z.string().regex(/^[0-9a-f]{1,64}$/), tenant: z.string().max(200).optional() }),
]);
export type RoutineOwner = z.infer<typeof RoutineOwnerSchema>;

export const RoutineSchema = z.strictObject({
  name: RoutineName,
  description: z.string().max(2000),
  createdAt: z.string(),
  recordedOn: z.strictObject({ profile: z.string(), url: z.string(), title: z.string() }),
  // A file saved before routines had owners is the operator's.
  owner: RoutineOwnerSchema.default({ by: 'operator' }).describe("Whose it is: the operator's, or a task session's (its tenant's, when it has one)"),
  parameters: z.array(RoutineParameterSchema),
  steps: z.array(RoutineStepSchema).max(500),
});
export type Routine = z.infer<typeof RoutineSchema>;

const Origins = z
  .array(z.string())
  .describe('The origins its steps act on (where it was recorded, where it goes, where each secret is typed): scheme, host and port');

const ParamValue = z.union([z.string().max(100_000), z.boolean(), z.array(z.string().max(4096)).max(20)]);

export const teachSchemas = {
  /** `POST /demonstrations/start`: hear what a person does in this tab, until stopped. */
  demonstrationStart: z.strictObject({ targetId: TargetId.optional() }),
  /** `POST /demonstrations/stop`: the steps become a routine (saved when named) and a Playwright test. */
  demonstrationStop: z.strictObject({
    targetId: TargetId.optional(),
    name: RoutineName.optional().describe(
      "Save it as the routine of this name: a new name, or one of the caller's own routines (replaced); another's is a 409. Without a name nothing is saved",
    ),
    description: z.string().trim().max(2000).optional(),
    discard: z.boolean().optional().describe('Drop the steps: nothing is made'),
  }),
  demonstrationQuery: z.object({ profile: z.string().optional(), targetId: TargetId.optional() }),
  routineQuery: z.object({ profile: z.string().optional() }),
  /** `POST /routines/{name}/run`: the routine's steps on this profile's tab, each checked as acts are. */
  routineRun: z.strictObject({
    targetId: TargetId.optional().describe('The tab to run it in (the last used one by default); any tab may run any routine'),
    params: z
      .record(z.string(), ParamValue)
      .default({})
      .describe(
        'A value per parameter; those left out take their defaults. A secret takes its value, or {{secret:NAME}} in a task session whose grant names it',
      ),
    origins: z
      .array(z.string().max(2000))
      .max(50)
      .optional()
      .describe(
        "Where you agree a secret you give may be typed: a routine saved by another's key types a secret's value only when these name every origin it would be typed on (its answer and GET /routines/{name} say them)",
      ),
  }),
  /** `POST /notes/start`: the person's next clicks in this tab mark elements for a note, until it is sent. */
  noteStart: z.strictObject({ targetId: TargetId.optional() }),
  /** `POST /notes`: the note on the elements marked since /notes/start. */
  noteAdd: z.strictObject({ targetId: TargetId.optional(), text: z.string().trim().min(1).max(2000) }),
  noteCancel: z.strictObject({ targetId: TargetId.optional() }),
  notesQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    all: z.enum(['true', 'false']).optional().describe('Notes marked done too'),
  }),
  noteDone: z.strictObject({ id: z.string().regex(/^n\d+$/, "a note's id, like n3") }),
};

// ---- answers ----------------------------------------------------------------

export const DemonstrationSchema = z.object({
  targetId: z.string(),
  profile: z.string(),
  since: z.string(),
  url: z.string(),
  steps: z.array(z.string()).describe('Each step heard so far, as a person reads it'),
  startedBy: RoutineOwnerSchema.optional().describe('Who started it: only they (or the operator) stop it'),
  unheard: z
    .string()
    .optional()
    .describe('Set when no server hears it now (in a fleet, the server that heard it was lost): its steps are kept, and a stop makes them a routine'),
  fence: FenceSchema.optional(),
});
export type Demonstration = z.infer<typeof DemonstrationSchema>;

export const DemonstrationResultSchema = z.object({
  routine: RoutineSchema.optional().describe('What the demonstration made (absent when discarded)'),
  saved: z.boolean().describe('Saved under its name, to run later'),
  script: z.string().optional().describe('The Playwright test that replays it: save it as a .spec.ts, run npx playwright test'),
  notes: z.array(z.string()).describe('What was left out, and why'),
  fence: FenceSchema.optional(),
});
export type DemonstrationResult = z.infer<typeof DemonstrationResultSchema>;

/** `GET /routines/{name}`: the routine, where its steps go, and the fence of the page's words it holds (names, URLs, titles). */
export const RoutineAnswerSchema = RoutineSchema.extend({ origins: Origins, fence: FenceSchema.optional() });
export type RoutineAnswer = z.infer<typeof RoutineAnswerSchema>;

export const RoutineSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  createdAt: z.string(),
  url: z.string().describe('Where it was recorded'),
  owner: RoutineOwnerSchema,
  origins: Origins,
  parameters: z.array(z.string()).describe('Its parameters, secrets marked'),
  steps: z.number().int(),
});

export const RoutineRunStepSchema = z.object({
  step: z.number().int().describe('From 1'),
  what: z.string(),
  outcome: z.enum(['ok', 'failed']),
  changed: z.boolean().optional().describe('The page reacted (as an act says)'),
  url: z.string().optional(),
  error: z.string().optional(),
});

export const RoutineRunSchema = z.object({
  routine: z.string(),
  targetId: z.string().optional(),
  ok: z.boolean(),
  steps: z.array(RoutineRunStepSchema).describe('The steps run, the failed one last'),
  failed: z
    .object({ step: z.number().int(), what: z.string(), error: z.string(), url: z.string().optional() })
    .optional()
    .describe('Where it stopped, and why'),
  url: z.string().optional().describe('Where the tab is at the end'),
  owner: RoutineOwnerSchema.optional(),
  origins: Origins.optional(),
  fence: FenceSchema.optional(),
});
export type RoutineRun = z.infer<typeof RoutineRunSchema>;

export const NoteMarkSchema = z.object({
  what: z.string().describe('The element as the person marked it: `button "Pay"`'),
  ref: z.string().optional().describe('Its ref on the page now (absent when it is not on this page)'),
});

export const NoteSchema = z.object({
  id: z.string(),
  targetId: z.string(),
  url: z.string().describe('The page it was written on'),
  text: z.string().describe("The person's words"),
  marks: z.array(NoteMarkSchema),
  at: z.string(),
  done: z.boolean(),
  fence: FenceSchema.optional(),
});
export type Note = z.infer<typeof NoteSchema>;

export const NotesSchema = z.object({
  notes: z.array(NoteSchema),
  fenced: z
    .string()
    .describe(
      "The notes as an agent reads them: the refs, the marked elements as the page names them between <page N> lines, then the person's words between <person N> lines",
    ),
  marking: z.array(z.string()).optional().describe('Elements marked for the note being written now'),
  fence: FenceSchema.optional(),
});
export type Notes = z.infer<typeof NotesSchema>;
