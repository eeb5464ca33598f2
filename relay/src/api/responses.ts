import { z } from 'zod';
import { FilmSchema, FilmStartedSchema } from './replay-schemas.js';
import { ChromeStatusSchema } from './chrome-schemas.js';
import { FenceSchema } from './fence-schema.js';

/**
 * What the control API answers about browsers, tabs and pages, as zod
 * schemas: the driver that produces an answer and the client that reads it
 * share the type inferred here, and the OpenAPI document (api/openapi.ts) is
 * generated from the same schemas, so the three cannot drift. Task sessions,
 * grants, the vault and the logs are in session-responses.ts.
 */

/** Every `POST /act` kind; api/schemas.ts checks its union against this list. */
export const ACTION_KINDS = [
  'click',
  'type',
  'press',
  'hover',
  'move',
  'mousedown',
  'mouseup',
  'drag',
  'select-text',
  'scroll',
  'select',
  'fill',
  'wait',
  'resize',
  'close',
  'evaluate',
] as const;

export const TabSchema = z.object({
  targetId: z.string(),
  url: z.string(),
  title: z.string(),
  type: z.literal('page'),
  fence: FenceSchema.optional(),
  agent: z.string().optional().describe('The agent whose tab it is (it opened it, or used it first); its requests without targetId mean it'),
});
export type Tab = z.infer<typeof TabSchema>;

/** A profile's tabs; a person's browser that lends none yet answers an empty list with what to do (a normal state, not an error). */
export const TabListSchema = z.object({
  tabs: z.array(TabSchema),
  hint: z.string().optional().describe("With no tabs in a person's browser (extension, chrome): how the person lends one"),
});
export type TabList = z.infer<typeof TabListSchema>;

const DriverKindSchema = z
  .enum(['clawd', 'extension', 'chrome', 'remote'])
  .describe(
    "How the browser is reached: launched by clawd-browser, the user's own through the extension, the user's own Chrome attached through its remote-debugging consent, or a cdpUrl elsewhere",
  );
export type DriverKind = z.infer<typeof DriverKindSchema>;

/** A profile as config.json and the registry describe it. */
export const ProfileSchema = z.object({
  name: z.string(),
  driver: DriverKindSchema,
  color: z.string(),
  builtIn: z.boolean(),
  cdpPort: z
    .number()
    .int()
    .optional()
    .describe(
      "Managed profiles under attachOnly: the port of the user's own browser (a browser clawd-browser launches listens on no port: it speaks over a pipe)",
    ),
  cdpUrl: z.string().optional().describe('Remote profiles: where their browser is. In listings and status: where a CDP client connects'),
  userDataDir: z.string().optional().describe('Managed profiles: $CLAWD_HOME/browser/<name>/user-data (a jailed one: /var/lib/clawd-browser/p-<id>/user-data)'),
  jail: z.boolean().optional().describe('Managed profiles with config jail: its browser runs in a jail of its own'),
});
export type Profile = z.infer<typeof ProfileSchema>;

/** `GET /profiles`: each profile, and whether its browser runs. */
export const ProfileSummarySchema = ProfileSchema.extend({ running: z.boolean().optional() });
export type ProfileSummary = z.infer<typeof ProfileSummarySchema>;

/** What a profile's browser endpoint reports about itself (part of Status). */
export const EndpointStateSchema = z.object({
  running: z.boolean().optional(),
  pid: z.number().int().optional(),
  extension: z.enum(['absent', 'connected', 'reconnecting']).optional(),
  attachedTabs: z.number().int().optional(),
  chrome: ChromeStatusSchema.optional().describe('The chrome profile: whether clawd-browser is attached to your browser, or waits for your answer, or why not'),
  node: z.string().optional().describe('A task session on a Selenium Grid: the node its browser runs on'),
});
export type EndpointState = z.infer<typeof EndpointStateSchema>;

/** `GET /`: the profile, and what its endpoint reports (a managed pid, the extension's state...). */
export const StatusSchema = EndpointStateSchema.extend({
  profile: z.string(),
  driver: DriverKindSchema,
  enabled: z.boolean(),
  color: z.string(),
  connected: z.boolean().optional(),
  cdpUrl: z.string().describe('Where a CDP client (Playwright connectOverCDP, Puppeteer connect) reaches this profile, with the token'),
});
export type Status = z.infer<typeof StatusSchema>;

/** `POST /start`, `POST /stop`: the profile and its endpoint's state after. */
export const LifecycleSchema = EndpointStateSchema.extend({ profile: z.string(), connected: z.boolean().optional() });

/** A screenshot or PDF. */
export const CaptureSchema = z.object({ targetId: z.string(), mimeType: z.string(), data: z.string().describe('Base64') });
export type Capture = z.infer<typeof CaptureSchema>;
export const ScreenshotSchema = CaptureSchema.extend({ type: z.enum(['png', 'jpeg']) });
export type Screenshot = z.infer<typeof ScreenshotSchema>;

export const ConsoleMessageSchema = z.object({
  level: z.string(),
  text: z.string(),
  timestamp: z.number(),
  url: z.string().optional(),
  line: z.number().optional(),
});
export type ConsoleMessage = z.infer<typeof ConsoleMessageSchema>;
export const ConsoleAnswerSchema = z.object({ targetId: z.string(), messages: z.array(ConsoleMessageSchema), fence: FenceSchema.optional() });

/** Text a person cannot see, left out of what an agent receives (page-runtime/page-sight.ts). */
const HiddenBlocks = z
  .number()
  .int()
  .optional()
  .describe(
    'Blocks of text a person cannot see (hidden, transparent, off-screen, covered…), left out; the text starts with a note saying so. Absent when none. hidden=true shows them, marked',
  );

/** Where the page's words begin in a text: said by how the answer was made, so no renderer guesses it from the lines (api/page-content.ts). */
const LeadingNotes = z
  .number()
  .int()
  .optional()
  .describe(
    "How many of text's first lines are clawd-browser's notes (the page tools offered, hidden text left out, a diff's counts); every line after them is the page's words, the notes at its end included (they name its sections). A text rendering fences those. Absent: none",
  );

export const AiSnapshotSchema = z.object({
  targetId: z.string(),
  format: z.literal('ai'),
  url: z.string(),
  title: z.string(),
  text: z.string().describe('The outline, with [ref=eN] on what can be acted on'),
  refCount: z.number().int(),
  truncated: z.boolean(),
  frames: z.number().int().describe('Frames whose content is in the outline, the main frame included'),
  pageTools: z.number().int().optional().describe('Tools the page offers agents (WebMCP): GET /page-tools lists them'),
  notes: z
    .string()
    .optional()
    .describe(
      "The person's open notes on this tab, with the refs of the elements they marked, their words between <person N> lines (GET /notes has them as data); shown after the outline",
    ),
  changes: z
    .object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int(), unchanged: z.number().int() })
    .optional()
    .describe('With diff: lines added, removed and unchanged since the previous snapshot (absent when there was none to compare)'),
  hidden: HiddenBlocks,
  leadingNotes: LeadingNotes,
  fence: FenceSchema.optional(),
});
export type AiSnapshotResponse = z.infer<typeof AiSnapshotSchema>;
export const AriaSnapshotSchema = z.object({
  targetId: z.string(),
  format: z.literal('aria'),
  nodes: z
    .array(z.unknown())
    .describe("Chromium's accessibility tree, without the nodes of what a person cannot see (with hidden=true: kept, each marked hidden: true)"),
  truncated: z.boolean(),
  hidden: HiddenBlocks,
  fence: FenceSchema.optional(),
});
export type AriaSnapshotResponse = z.infer<typeof AriaSnapshotSchema>;
/** `GET /snapshot`: format ai (the outline with refs) or aria (the raw accessibility tree). */
export const SnapshotSchema = z.discriminatedUnion('format', [AiSnapshotSchema, AriaSnapshotSchema]);
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** `GET /text`: a page's (or an element's) readable content as Markdown. */
export const PageTextSchema = z.object({
  targetId: z.string(),
  url: z.string(),
  title: z.string(),
  markdown: z.string().describe('Headings, paragraphs, links with their URLs, lists, tables, quotes and code; cut at maxChars with a note'),
  chars: z.number().int().describe('Characters of the whole text, before any cut'),
  truncated: z.boolean(),
  hidden: HiddenBlocks,
  fence: FenceSchema.optional(),
});
export type PageTextResponse = z.infer<typeof PageTextSchema>;

export const ActionResultSchema = z
  .looseObject({
    targetId: z.string(),
    kind: z.enum(ACTION_KINDS),
    url: z.string().optional().describe('After the action (absent when it closed the tab)'),
    title: z.string().optional(),
    navigated: z.boolean().optional().describe('True when the action took the tab to another URL (url says where)'),
    events: z.array(z.string()).optional().describe("Dialogs answered, downloads started and tabs opened since the tab's previous action"),
    changed: z
      .boolean()
      .optional()
      .describe("Whether anything observable happened: a navigation, an event, the target's state, the page's DOM. False says the page did not react"),
    state: z
      .record(z.string(), z.union([z.string(), z.boolean(), z.null()]))
      .optional()
      .describe("The target's state that the action changed, as it is now (checked, value, expanded, selected, pressed, open)"),
    hint: z.string().optional().describe('With changed: false, what that likely means and what to try; with a change, what it did not reach'),
    typedAs: z
      .literal('keys')
      .optional()
      .describe('A type into an element that is not a field a person sees (a code editor, a terminal): the text went in as keys at its caret'),
    retyped: z.literal(true).optional().describe('A type whose text the field did not show once set at once: it was typed again key by key, as a person types'),
    shows: z
      .string()
      .optional()
      .describe('What the field shows after a type, when that is not the text typed (a mask, a date as the field keeps it, a length limit)'),
    retitled: z.literal(true).optional().describe("The page's title changed, the URL staying"),
    hit: z
      .object({ role: z.string(), name: z.string(), ref: z.string().optional().describe('Its ref, which later acts and snapshots keep') })
      .optional()
      .describe('An act by coordinates: the control at the point it pressed, as the snapshot names it'),
    selection: z.string().optional().describe("select-text: the text selected now, as the page's getSelection() says it"),
    selectedBy: z
      .enum(['mouse', 'field', 'script'])
      .optional()
      .describe(
        "select-text: a person's drag of the mouse made the selection; a text field's own selection; or the page's Selection API, the mouse having failed (the page's mouse handlers did not see it)",
      ),
    diff: z.string().optional().describe("Asked for with ?diff=N: the page's diff since the previous snapshot, when the action did not navigate"),
    diffLeadingNotes: LeadingNotes.describe(
      "How many of diff's first lines are clawd-browser's notes; every line after them is the page's words (a text rendering fences those). Absent: none",
    ),
    confirmation: z
      .object({
        id: z.string().describe("The hand-off: GET /handoff/{id}?wait=60 waits for the answer, and then carries the act's"),
        rule: z.string().describe('The confirm rule of config.json that names the act'),
        act: z.string(),
        state: z.literal('waiting'),
        askedIn: z
          .array(z.enum(['console', 'extension', 'webhook']))
          .describe(
            "Where the person says yes: the operator's console (always), their own Chrome (a shared tab's, through the extension), the webhook's channel. No link comes to the agent: a yes never goes through one it holds",
          ),
        expiresAt: z.string(),
      })
      .optional()
      .describe(
        "The act is one a confirm rule names: it has not run, and runs when a person says yes where they are asked (askedIn; with ?person=true, in the operator's console)",
      ),
    confirmed: z
      .object({ rule: z.string(), by: z.enum(['person', 'pre-approval']), handoff: z.string().optional() })
      .optional()
      .describe("The act a confirm rule names ran: a person said yes, or the token's holder pre-approved the rule for the session"),
    fence: FenceSchema.optional(),
  })
  .describe("One action's answer; what the action itself reports (an evaluate's result, a drag's points...) comes with it");
export type ActionResult = z.infer<typeof ActionResultSchema>;

/** A download, wherever the browser put it. */
export const DownloadRecordSchema = z.object({
  targetId: z.string().optional(),
  url: z.string(),
  path: z.string().optional().describe('Where the file is (or will be) on this machine'),
  state: z.enum(['in_progress', 'complete', 'failed']),
  error: z.string().optional(),
});
export type DownloadRecord = z.infer<typeof DownloadRecordSchema>;

/** `POST /hooks/file-chooser`: the files went in, or the hook is armed for the next chooser. */
export const FileChooserAnswerSchema = z.object({
  targetId: z.string(),
  uploaded: z.array(z.string()).optional(),
  armed: z.boolean().optional(),
  files: z.array(z.string()).optional(),
  timeoutMs: z.number().int().optional(),
});
export type FileChooserAnswer = z.infer<typeof FileChooserAnswerSchema>;

/** `POST /hooks/dialog`: the answer armed for the tab's next dialog. */
export const DialogArmedSchema = z.object({ targetId: z.string(), armed: z.boolean(), accept: z.boolean(), timeoutMs: z.number().int() });
export type DialogArmed = z.infer<typeof DialogArmedSchema>;

/** One request in a tab's network log (`GET /network`); credential headers redacted unless the token's holder asks. */
export const NetworkEntrySchema = z.object({
  id: z.number().int().describe("Counts up within the tab's log: GET /network/body?id="),
  url: z.string(),
  method: z.string(),
  resourceType: z.string().describe("Playwright's resource type: document, script, image, fetch, xhr, stylesheet, …"),
  status: z.number().int().optional(),
  statusText: z.string().optional(),
  mimeType: z.string().optional(),
  requestHeaders: z.record(z.string(), z.string()),
  responseHeaders: z.record(z.string(), z.string()).optional(),
  startedAt: z.string(),
  durationMs: z.number().optional(),
  size: z.number().int().optional().describe('Response body bytes, once finished'),
  requestBodySize: z.number().int().optional().describe('Request body bytes, when it sent one: GET /network/body?part=request gives it'),
  failure: z.string().optional(),
  routed: z.string().optional().describe('A network route answered it: "r3 fulfilled", "r3 aborted", "r3 continued"'),
});
export type NetworkEntry = z.infer<typeof NetworkEntrySchema>;

/** A body of a logged request, as the browser still holds it: base64, cut at 1 MiB (and said). */
export const NetworkBodySchema = z.object({
  targetId: z.string().optional().describe('GET /network/body: the tab whose log it is'),
  id: z.number().int(),
  part: z.enum(['response', 'request']),
  mimeType: z.string().optional(),
  base64: z.string(),
  size: z.number().int(),
  truncated: z.boolean(),
  fence: FenceSchema.optional().describe('Chosen against the body as text'),
});
export type NetworkBody = z.infer<typeof NetworkBodySchema>;

/** `GET /script`: recorded steps as a Playwright test. */
export const PlaywrightScriptSchema = z.object({
  language: z.literal('typescript'),
  runner: z.literal('@playwright/test'),
  steps: z.number().int().describe('Steps written out (tabs opened and closed, navigations, acts)'),
  script: z.string().describe('The test file: save it as a .spec.ts and run npx playwright test'),
  notes: z.array(z.string()).describe('What was not written out, and why'),
});
export type PlaywrightScript = z.infer<typeof PlaywrightScriptSchema>;

/** What `browser_record` (MCP) and the recording routes answer. */
export const RecordingAnswerSchema = z.object({
  targetId: z.string().optional(),
  network: z.object({ recording: z.boolean(), since: z.string().optional(), entries: z.array(NetworkEntrySchema).optional() }).optional(),
  path: z.string().optional().describe('A HAR or trace written under $CLAWD_HOME/recordings (0600)'),
  tracing: z.boolean().optional(),
  body: NetworkBodySchema.optional().describe('body, request-body (MCP): a body of one logged request'),
  bound: z.string().optional().describe('Set when the trace had stopped itself at its time bound before /trace/stop asked'),
  entries: z.number().int().optional().describe('POST /network/har: how many requests the HAR holds'),
  actionsPath: z.string().optional().describe('POST /trace/stop: the actions taken during the trace (JSON Lines)'),
  filming: FilmStartedSchema.optional().describe('video-start (MCP): the film begun'),
  film: FilmSchema.optional().describe('video-stop (MCP): the film made'),
  fence: FenceSchema.optional(),
});
export type RecordingAnswer = z.infer<typeof RecordingAnswerSchema>;

/** A person's input through the live view, as logged. */
export const ViewInputAnswerSchema = z.object({ targetId: z.string(), kind: z.string(), url: z.string() });
export type ViewInputAnswer = z.infer<typeof ViewInputAnswerSchema>;
