import { z } from 'zod';
import { schemas } from './schemas.js';

/**
 * The browse runtime's contract (spec §24): a goal in, an answer out. One
 * call (`POST /browse`) runs the agent loop against a configured model
 * provider, with progress as server-sent events; `DELETE /browse/{run}`
 * cancels it. The same shapes serve the typed client, the CLI and MCP.
 */

const SessionId = z.string().regex(/^[0-9a-f]{12}$/, 'a task session id');

export const BrowseRequestSchema = z.strictObject({
  goal: z.string().trim().min(1).max(20_000).describe('What to do, and what to answer'),
  session: SessionId.optional().describe(
    "Continue in this task session (a run's `session`, or one POST /sessions opened): its browser as it is, and the model's conversation of the runs before",
  ),
  profile: z.string().min(1).max(100).optional().describe('Run on this profile instead (clawd, extension, a managed one); the ?profile= query says the same'),
  open: schemas.openSession
    .optional()
    .describe('Without session or profile a clean task session is opened for the run; these are its options (an operator session with a grant)'),
  runtime: z
    .enum(['tools', 'computer'])
    .optional()
    .describe("tools: the model reads snapshots and acts by ref; computer: it sees screenshots and acts by pixel. Default: the provider's, else tools"),
  provider: z.string().min(1).max(64).optional().describe('A provider named in config.json browse.providers (default: browse.defaultProvider)'),
  maxSteps: z.number().int().min(1).max(500).optional().describe('Model turns at most (config browse.maxSteps; at most browse.maxStepsLimit)'),
  stepTimeoutMs: z.number().int().min(1_000).max(900_000).optional().describe('The longest one step (a model turn and its acts) may take'),
  budget: z.strictObject({ tokens: z.number().int().min(1).optional().describe('Input and output tokens, as the provider counts them') }).optional(),
  startUrl: z
    .string()
    .min(1)
    .refine((value) => URL.canParse(value), 'must be an absolute URL')
    .optional()
    .describe('Load this first (a computer-use model cannot type an address)'),
  screenshot: z.boolean().optional().describe('Add a screenshot of the tab at the end'),
  close: z.boolean().optional().describe('End the task session when the run ends (no continuation)'),
});
export type BrowseRequest = z.input<typeof BrowseRequestSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** What stopped a run that did not end with the model's answer. */
export const STOP_REASONS = ['steps', 'step-timeout', 'budget', 'cancel', 'error'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const BrowseActionSchema = z.object({
  tool: z.string().describe('The tool the model called (browser_act, computer, navigate…)'),
  summary: z.string().describe('What it asked for, shortly (never what was typed)'),
  ok: z.boolean(),
  error: z.string().optional(),
});
export type BrowseAction = z.infer<typeof BrowseActionSchema>;

export const BrowseStartSchema = z.object({
  run: z.string(),
  provider: z.string(),
  model: z.string(),
  runtime: z.enum(['tools', 'computer']),
  profile: z.string(),
  session: z.string().optional(),
  targetId: z.string().optional(),
  maxSteps: z.number().int(),
  stepTimeoutMs: z.number().int(),
  budgetTokens: z.number().int().optional(),
});
export type BrowseStart = z.infer<typeof BrowseStartSchema>;

export const BrowseStepSchema = z.object({
  run: z.string(),
  step: z.number().int(),
  actions: z.array(BrowseActionSchema),
  said: z.string().optional().describe("The model's words this step, cut at 500 characters"),
  usage: UsageSchema.describe('This step'),
  total: UsageSchema.describe('The run so far'),
  screenshots: z.number().int().describe('Screenshots sent to the model so far'),
  durationMs: z.number().int(),
});
export type BrowseStep = z.infer<typeof BrowseStepSchema>;

export const BrowseResultSchema = z.object({
  run: z.string(),
  outcome: z
    .enum(['done', 'failed', 'stopped'])
    .describe(
      'done: the model answered and its last step worked; failed: its last step failed, or the provider did; stopped: a guardrail or a cancel ended it (stoppedBy)',
    ),
  stoppedBy: z.enum(STOP_REASONS).optional(),
  answer: z.string().describe("The model's final words (on a stop, its last words, if any)"),
  lastStepFailed: z.boolean(),
  error: z.string().optional(),
  steps: z.number().int(),
  usage: UsageSchema,
  screenshots: z.number().int(),
  durationMs: z.number().int(),
  provider: z.string(),
  model: z.string(),
  runtime: z.enum(['tools', 'computer']),
  profile: z.string(),
  session: z.string().optional().describe('The task session: pass it as `session` to continue'),
  sessionClosed: z.boolean().optional(),
  targetId: z.string().optional(),
  url: z.string().optional(),
  screenshot: z.object({ mimeType: z.string(), data: z.string() }).optional(),
});
export type BrowseResult = z.infer<typeof BrowseResultSchema>;

/** One server-sent event of `POST /browse` (its `event:` name is the kind). */
export type BrowseEvent = { kind: 'start'; data: BrowseStart } | { kind: 'step'; data: BrowseStep } | { kind: 'end'; data: BrowseResult };

export const BrowseRunSchema = z.object({
  run: z.string(),
  goal: z.string(),
  profile: z.string(),
  provider: z.string(),
  step: z.number().int(),
  startedAt: z.string(),
  cancelling: z.boolean(),
});

export interface BrowseOptions {
  /** Each event as it comes (start, every step, end). */
  onEvent?: (event: BrowseEvent) => void;
  /** Aborting it cancels the run (its model request and its act in flight). */
  signal?: AbortSignal;
}
