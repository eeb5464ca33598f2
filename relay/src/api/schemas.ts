import { z } from 'zod';
import { MAX_WAIT_MS } from './limits.js';
import type { QueryInput } from './route-spec.js';
// A plain number, kept with the other limits so the CLI reads it without these schemas.
export { AGENT_SNAPSHOT_CHARS } from './limits.js';
import { ACTION_KINDS } from './responses.js';
import { AUDIT_EVENT_KINDS, SecretKindSchema } from './session-responses.js';
import { toolboxSchemas } from './toolbox-schemas.js';
import { visionSchemas } from './vision-schemas.js';
import { replaySchemas } from './replay-schemas.js';
import { pageToolsSchemas } from './page-tools-schemas.js';
import { teachSchemas } from './teach-schemas.js';
import { WebUrl } from './web-address.js';

/** A host as the URL policy matches it: `example.com`, `*.example.com`, `*`, `127.0.0.1`, `[::1]` (config.json's urlPolicy, a session's allowPrivate). */
export const HostPattern = z.string().regex(/^(\*|(\*\.)?[a-z0-9.-]+|\[[0-9a-f:.]+\])$/i, 'must be a host pattern like example.com, *.example.com or *');

/** A profile colour, in config.json and in `POST /profiles/create` alike. */
export const HexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #FF4500');

/** Request bodies and queries of the control API, validated at the boundary. */

const TargetId = z.string().min(1);
const Ref = z.string().regex(/^(f\d+)?e\d+$/, 'must be a ref from a snapshot, like e12 or f1e3');
const Coordinate = z.number().finite();
const InlineFile = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    .refine((name) => !/[/\\\0]/.test(name) && name !== '.' && name !== '..', 'must be a bare file name (no slashes, NUL, "." or "..")'),
  mimeType: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type like text/plain')
    .optional(),
  base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
});
export { MAX_WAIT_MS };
const Timeout = z.number().int().positive().max(MAX_WAIT_MS, `may not exceed ${MAX_WAIT_MS} ms (2 minutes)`);
const Modifier = z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']);
const Button = z.enum(['left', 'right', 'middle']);

const target = { targetId: TargetId.optional() };
const Tenant = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a tenant name: letters, digits, . _ - (at most 64)');
const Domain = z
  .string()
  .regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/i, 'must be a domain like example.com')
  .max(253)
  .transform((domain) => domain.replace(/^\./, '').toLowerCase());

const SecretName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be a secret name: letters, digits, _ . - (at most 64)');

/** `?flag`, `?flag=true` and `?flag=1` are true; `false` and `0` are false. */
const QueryFlag = z.enum(['', 'true', '1', 'false', '0']).transform((value) => value !== 'false' && value !== '0');

/** The caller says a person is at hand (runtime/consequential-acts.ts): an act a rule names may then ask them, in the console. */
const PersonFlag = z
  .union([z.boolean(), QueryFlag])
  .optional()
  .describe(
    "a person is at hand to answer in the operator's console when an act waits for their yes (a confirm rule names it; the caller gets no link: a yes never goes through the agent); without it, and with nobody else to ask, such an act is a 409",
  );

/** Text a person cannot see, shown marked (page-runtime/page-sight.ts): for a person debugging, never in MCP's tools. */
const HiddenFlag = z.union([z.boolean(), QueryFlag]).optional().describe('also the text a person cannot see, each block marked [hidden=why] (for debugging)');

/** How an `ai` snapshot is cut down for a token budget (snapshot/outline-filters.ts, budget.ts); query strings and MCP alike. */
export const SnapshotShaping = z.object({
  interactive: z.union([z.boolean(), QueryFlag]).optional().describe('only what can be acted on'),
  ref: Ref.optional().describe('only this element'),
  selector: z.string().min(1).max(1000).optional().describe('only the element this CSS selector matches'),
  find: z.string().min(1).max(500).optional().describe('only lines saying this (or /regex/), under their path'),
  depth: z.coerce.number().int().positive().max(100).optional(),
  maxChars: z.coerce.number().int().min(500).max(1_000_000).optional(),
  diff: z.union([z.boolean(), QueryFlag]).optional().describe('only changes since the last snapshot'),
});
const point = { x: Coordinate, y: Coordinate };
/** Intermediate mousemove events on the way (a sortable list moves an item one place per move); at most MAX_MOUSE_STEPS. */
export const MAX_MOUSE_STEPS = 200;
const Steps = z.number().int().min(1).max(MAX_MOUSE_STEPS);
/** Clicks in a row: 2 a double click (a word), 3 a triple click (a line or paragraph). */
const ClickCount = z.number().int().min(1).max(3);
const both = (a: unknown, b: unknown) => a !== undefined && b !== undefined;
const neither = (a: unknown, b: unknown) => a === undefined && b === undefined;

export const ActionSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('click'),
      ...target,
      ref: Ref.optional(),
      x: Coordinate.optional(),
      y: Coordinate.optional(),
      double: z.boolean().optional(),
      count: ClickCount.optional(),
      button: Button.optional(),
      modifiers: z.array(Modifier).optional(),
    })
    .refine((a) => a.ref !== undefined || both(a.x, a.y), 'click needs a ref, or x and y')
    .refine((a) => !(a.double && a.count !== undefined && a.count !== 2), 'give double or count, not both'),
  z.strictObject({ kind: z.literal('type'), ...target, ref: Ref, text: z.string(), submit: z.boolean().optional(), slowly: z.boolean().optional() }),
  z.strictObject({ kind: z.literal('press'), ...target, key: z.string().min(1) }),
  z.strictObject({ kind: z.literal('hover'), ...target, ref: Ref }),
  z.strictObject({ kind: z.literal('move'), ...target, ...point, steps: Steps.optional() }),
  // A button pressed or released where the mouse is (or at x,y, moved there first): a person's own press, hold and release.
  z
    .strictObject({ kind: z.literal('mousedown'), ...target, x: Coordinate.optional(), y: Coordinate.optional(), button: Button.optional() })
    .refine((a) => both(a.x, a.y) || neither(a.x, a.y), 'mousedown needs x and y together, or neither (where the mouse is)'),
  z
    .strictObject({ kind: z.literal('mouseup'), ...target, x: Coordinate.optional(), y: Coordinate.optional(), button: Button.optional() })
    .refine((a) => both(a.x, a.y) || neither(a.x, a.y), 'mouseup needs x and y together, or neither (where the mouse is)'),
  z
    .strictObject({
      kind: z.literal('drag'),
      ...target,
      startRef: Ref.optional(),
      endRef: Ref.optional(),
      x: Coordinate.optional(),
      y: Coordinate.optional(),
      endX: Coordinate.optional(),
      endY: Coordinate.optional(),
      steps: Steps.optional(),
    })
    .refine((a) => (a.startRef !== undefined) !== both(a.x, a.y), 'drag starts at startRef, or at x and y (one of them)')
    .refine((a) => (a.endRef !== undefined) !== both(a.endX, a.endY), 'drag ends at endRef, or at endX and endY (one of them)'),
  // Text selected as a person selects it (the mouse pressed at its first letter, dragged to its last): the text (in the page, or in ref's element), a ref's whole text, or between two points.
  z
    .strictObject({
      kind: z.literal('select-text'),
      ...target,
      ref: Ref.optional(),
      text: z.string().min(1).max(10_000).optional(),
      x: Coordinate.optional(),
      y: Coordinate.optional(),
      endX: Coordinate.optional(),
      endY: Coordinate.optional(),
    })
    .refine(
      (a) => (a.ref !== undefined || a.text !== undefined) !== [a.x, a.y, a.endX, a.endY].every((v) => v !== undefined),
      'select-text needs the text to select (in the page, or in the element of ref), or x, y, endX and endY',
    ),
  z.strictObject({
    kind: z.literal('scroll'),
    ...target,
    x: Coordinate.optional(),
    y: Coordinate.optional(),
    deltaX: Coordinate.default(0),
    deltaY: Coordinate.default(0),
  }),
  z.strictObject({ kind: z.literal('select'), ...target, ref: Ref, values: z.array(z.string()).min(1) }),
  z.strictObject({ kind: z.literal('fill'), ...target, fields: z.array(z.strictObject({ ref: Ref, value: z.union([z.string(), z.boolean()]) })).min(1) }),
  z
    .strictObject({
      kind: z.literal('wait'),
      ...target,
      text: z.string().min(1).optional(),
      textGone: z.string().min(1).optional(),
      selector: z.string().min(1).optional(),
      timeMs: z.number().int().nonnegative().max(MAX_WAIT_MS, `may not exceed ${MAX_WAIT_MS} ms (2 minutes)`).optional(),
      timeoutMs: Timeout.optional(),
    })
    .refine((a) => [a.text, a.textGone, a.selector, a.timeMs].some((v) => v !== undefined), 'wait needs text, textGone, selector or timeMs'),
  z.strictObject({ kind: z.literal('resize'), ...target, width: z.number().int().min(1).max(10_000), height: z.number().int().min(1).max(10_000) }),
  z.strictObject({ kind: z.literal('close'), ...target }),
  z.strictObject({ kind: z.literal('evaluate'), ...target, fn: z.string().min(1), ref: Ref.optional() }),
]);
export type Action = z.infer<typeof ActionSchema>;
/** The answers' list of kinds (api/responses.ts) is this union's: a kind added to one and not the other fails to compile. */
type SameKinds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameKinds: SameKinds<Action['kind'], (typeof ACTION_KINDS)[number]> = true;
void sameKinds;

/** A person's input through a live view (a click, a scroll, keys), the tab aside. */
const ViewInputFields = {
  type: z.enum(['click', 'move', 'scroll', 'type', 'press']),
  x: z.number().min(0).max(1).optional(),
  y: z.number().min(0).max(1).optional(),
  button: Button.optional(),
  deltaX: Coordinate.optional(),
  deltaY: Coordinate.optional(),
  text: z.string().max(10_000).optional(),
  key: z.string().min(1).max(100).optional(),
};

export const schemas = {
  open: z.strictObject({ url: WebUrl.default('about:blank') }),
  focus: z.strictObject({ targetId: TargetId }),
  navigate: z.strictObject({ url: WebUrl, targetId: TargetId.optional() }),
  screenshot: z.strictObject({
    targetId: TargetId.optional(),
    fullPage: z.boolean().optional(),
    ref: Ref.optional(),
    element: z.string().min(1).optional(),
    type: z.enum(['png', 'jpeg']).optional(),
    quality: z.number().int().min(0).max(100).optional(),
    /** css: one image pixel per CSS pixel (smaller on high-DPI screens); device (default): the screen's pixels. */
    scale: z.enum(['css', 'device']).optional(),
  }),
  pdf: z.strictObject({ targetId: TargetId.optional() }),
  createProfile: z
    .strictObject({
      name: z.string(),
      color: HexColor.optional(),
      /** A browser's DevTools endpoint: http(s) for /json/version discovery, or ws(s) directly. */
      cdpUrl: WebUrl.refine((url) => /^(https?|wss?):$/.test(new URL(url).protocol), 'must be an http(s) or ws(s) DevTools endpoint').optional(),
      /** A managed profile whose browser runs in a jail of its own (Linux, serve as root). */
      jail: z.boolean().optional(),
    })
    .refine((profile) => !(profile.jail && profile.cdpUrl), { message: 'a remote profile (cdpUrl) runs elsewhere and cannot be jailed here', path: ['jail'] }),
  profileQuery: z.object({ profile: z.string().optional() }),
  pageToolCallQuery: z.object({ profile: z.string().optional(), person: PersonFlag }),
  computerQuery: z.object({ profile: z.string().optional(), person: PersonFlag }),
  actQuery: z.object({
    profile: z.string().optional(),
    diff: z.coerce.number().int().positive().max(200_000).optional(),
    person: PersonFlag,
  }),
  actionsQuery: z.object({ profile: z.string().optional(), limit: z.coerce.number().int().positive().max(1000).default(100) }),
  consoleQuery: z.object({ profile: z.string().optional(), targetId: TargetId.optional(), level: z.string().optional() }),
  snapshotQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    format: z.enum(['ai', 'aria']).default('ai'),
    limit: z.coerce.number().int().positive().optional(),
    ...SnapshotShaping.shape,
    hidden: HiddenFlag,
  }),
  /** `GET /text`: the page's readable content as Markdown, or one element's. */
  textQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    ref: Ref.optional().describe('only this element (a ref from the latest snapshot)'),
    selector: z.string().min(1).max(1000).optional().describe('only the element this CSS selector matches'),
    maxChars: z.coerce.number().int().min(500).max(1_000_000).default(20_000).describe('cut here, with a note saying what was cut'),
    hidden: HiddenFlag,
  }),
  fileChooser: z
    .strictObject({
      targetId: TargetId.optional(),
      /** Absolute paths inside the upload folders. */
      paths: z.array(z.string().min(1)).min(1).optional(),
      /** Or the files themselves, for callers that share no filesystem with the server. */
      files: z.array(InlineFile).min(1).optional(),
      ref: Ref.optional(),
      inputRef: Ref.optional(),
      element: z.string().min(1).optional(),
      timeoutMs: Timeout.optional(),
    })
    .refine((hook) => hook.paths !== undefined || hook.files !== undefined, 'give paths, files (inline {name, base64}), or both'),
  dialog: z.strictObject({ targetId: TargetId.optional(), accept: z.boolean(), promptText: z.string().optional(), timeoutMs: Timeout.optional() }),
  act: ActionSchema,
  openSession: z.strictObject({
    credential_mode: z.enum(['clean', 'operator']),
    tenant: Tenant.optional(),
    domains: z.array(Domain).max(50).optional(),
    grant: z.string().min(1).max(4096).optional(),
    record: z.enum(['off', 'transient', 'audit', 'video']).optional(),
    /** Seconds. */
    ttl: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .optional(),
    /** This machine, or the configured Selenium Grid (config grid; its `default` decides when left out). */
    place: z.enum(['local', 'grid']).optional(),
    allowPrivate: z
      .array(HostPattern)
      .max(50)
      .optional()
      .describe(
        "Hosts this session may reach though they are loopback or private (a local app), beyond urlPolicy.private; only the token opens sessions, so a session's key can never widen this",
      ),
  }),
  issueGrant: z.strictObject({
    tenant: Tenant,
    domains: z.array(Domain).min(1).max(50),
    ttl: z
      .number()
      .int()
      .min(10)
      .max(30 * 24 * 3600),
    origin_session_id: z.string().max(100).optional(),
    secrets: z.array(SecretName).max(50).optional().describe('named secrets the session may type, each bound to its own domains'),
  }),
  /** `POST /secrets`: a secret's value comes in the body, to the token's holder only; it is never answered. */
  setSecret: z.strictObject({
    tenant: Tenant,
    name: SecretName,
    domains: z.array(Domain).min(1).max(50).describe('where it may be typed: these domains and their subdomains'),
    value: z.string().min(1).max(10_000).describe('the value; for a one-time code seed, the base32 key the site shows or its otpauth://totp/ URI'),
    kind: SecretKindSchema.default('secret').describe(
      'secret: typed as it is ({{secret:NAME}}); totp: a one-time code seed, whose current code is typed ({{totp:NAME}})',
    ),
  }),
  secretQuery: z.object({ tenant: Tenant.optional(), name: SecretName.optional() }),
  vaultRefresh: z.strictObject({
    tenant: Tenant,
    domains: z.array(Domain).min(1).max(50),
    ttl: z
      .number()
      .int()
      .min(30)
      .max(24 * 3600)
      .optional(),
  }),
  vaultRefreshDone: z.strictObject({ domains: z.array(Domain).min(1).max(50).optional() }),
  vaultQuery: z.object({ tenant: Tenant.optional(), domain: Domain.optional() }),
  /** `GET /audit`: newest first; `before` is the `next` of the page before. */
  auditQuery: z.object({
    tenant: Tenant.optional(),
    session: z
      .string()
      .regex(/^[0-9a-f]{1,32}$/, 'a session id')
      .optional(),
    event: z.enum(AUDIT_EVENT_KINDS).optional(),
    since: z.iso.datetime({ offset: true }).optional().describe('entries at or after this time'),
    until: z.iso.datetime({ offset: true }).optional().describe('entries before this time'),
    before: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().positive().max(500).default(50),
  }),
  /** `GET /audit/recording`: a session's recorded screenshots (and one of them, with `file`). */
  recordingQuery: z.object({ session: z.string().regex(/^[0-9a-f]{12}$/, 'a session id'), file: z.string().max(100).optional() }),
  /** `POST /network/record`: start or stop a tab's network log. */
  networkRecord: z.strictObject({ targetId: TargetId.optional(), on: z.boolean() }),
  /** `GET /script`: a tab's (or every tab's) recorded steps as a Playwright test. */
  scriptQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional().describe("one tab's steps (its id or a prefix); every tab's without"),
    title: z.string().min(1).max(200).optional().describe("the test's title"),
  }),
  /** `GET /network`: a tab's log, filtered; `secrets` shows credential headers (the token's holder only). */
  networkQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    url: z.string().max(2000).optional(),
    status: z
      .string()
      .regex(/^(\d{3}|[1-5]xx)$/i, 'a status (404) or a class (4xx)')
      .optional(),
    type: z.string().max(40).optional(),
    limit: z.coerce.number().int().positive().max(1000).optional(),
    secrets: z.enum(['true', 'false']).optional(),
  }),
  networkBody: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    id: z.coerce.number().int().positive(),
    /** The response's body (default), or the request's (a POST's form or JSON). */
    part: z.enum(['response', 'request']).default('response'),
  }),
  /** `POST /network/har`: one tab's log as HAR 1.2, or (`all`) every recorded tab of the profile; `keep` keeps a task session's file after it ends. */
  har: z.strictObject({ targetId: TargetId.optional(), all: z.boolean().optional(), keep: z.boolean().optional(), secrets: z.boolean().optional() }),
  /** `POST /trace/start`, `/trace/stop`: a Playwright trace of the profile's browser context. */
  traceStop: z.strictObject({ keep: z.boolean().optional() }),
  /** Seconds from now. */
  extendSession: z.strictObject({
    ttl: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600),
  }),
  approveRule: z.strictObject({
    rule: z.string().min(1).max(64).describe('A confirm rule of config.json: its acts run in this session without asking a person'),
  }),
  vaultFromExtension: z.strictObject({ tenant: Tenant, domains: z.array(Domain).min(1).max(50), timeoutMs: Timeout.optional() }),
  screencastQuery: z.object({ profile: z.string().optional(), targetId: TargetId.optional() }),
  /** Input a person gives through the live view: points are fractions (0..1) of the view, so any image size works. */
  viewInput: z.strictObject({ targetId: TargetId.optional(), ...ViewInputFields }),
  /** `POST /handoff/{id}/input`: the person's input on the hand-off's own tab. */
  handoffInput: z.strictObject(ViewInputFields),
  /** `POST /handoff`: ask a person to act in a tab; the answer comes from `GET /handoff/{id}?wait=`. */
  handoff: z.strictObject({
    targetId: TargetId.optional(),
    reason: z.string().trim().min(1).max(500).describe('what the person is asked to do, shown to them'),
    timeoutSec: z
      .number()
      .int()
      .min(10)
      .max(24 * 3600)
      .default(600)
      .describe('how long to wait for a person (600)'),
  }),
  /** `GET /handoff/{id}`: `wait` holds the answer back until the person answers, or that many seconds pass. */
  handoffQuery: z.object({ profile: z.string().optional(), wait: z.coerce.number().int().min(0).max(60).default(0) }),
  /** The person's answer, from the hand-off page. */
  handoffAnswer: z.strictObject({ verdict: z.enum(['done', 'refused']), note: z.string().trim().max(1000).optional() }),
  // Emulation, routes, init scripts, storage (toolbox-schemas.ts).
  ...toolboxSchemas,
  // Labelled screenshots and computer use (vision-schemas.ts).
  ...visionSchemas,
  ...pageToolsSchemas,
  // Films (replay-schemas.ts).
  ...replaySchemas,
  // Demonstrations, routines, notes (teach-schemas.ts).
  ...teachSchemas,
};

/** What a caller may send: the schemas' input types (defaults still optional). */
export type RequestOf<K extends keyof typeof schemas> = z.input<(typeof schemas)[K]>;
/** What a caller may send as a route's query (route-spec.ts's QueryInput: a coerced number as a number). */
export type QueryOf<K extends keyof typeof schemas> = QueryInput<(typeof schemas)[K]>;
/** Any `POST /act` body. */
export type ActionRequest = z.input<typeof ActionSchema>;
/** The body of one action kind, without its `kind` (the client's shorthands). */
export type ActionOptions<K extends ActionRequest['kind']> = Omit<Extract<ActionRequest, { kind: K }>, 'kind'>;

/** `GET /text` as the driver takes it (defaults applied). */
export type TextOptions = Omit<z.output<typeof schemas.textQuery>, 'profile'>;

/** `GET /snapshot` as the driver takes it (defaults applied). */
export type SnapshotOptions = Omit<z.output<typeof schemas.snapshotQuery>, 'profile'>;
