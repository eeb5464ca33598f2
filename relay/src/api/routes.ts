import { z } from 'zod';
import { ActionSchema, schemas } from './schemas.js';
import { TOOLBOX_ROUTES } from './toolbox-routes.js';
import { VISION_ROUTES } from './vision-routes.js';
import { REPLAY_ROUTES } from './replay-routes.js';
import { BROWSE_ROUTES } from './browse-routes.js';
import { PAGE_TOOLS_ROUTES } from './page-tools-routes.js';
import { TEACH_ROUTES } from './teach-routes.js';
import { CHROME_ROUTES } from './chrome-routes.js';
import { PressureSchema } from './fleet-schemas.js';
import { FenceSchema } from './fence-schema.js';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import {
  ActionResultSchema,
  PageTextSchema,
  CaptureSchema,
  ConsoleAnswerSchema,
  DialogArmedSchema,
  DownloadRecordSchema,
  FileChooserAnswerSchema,
  LifecycleSchema,
  NetworkBodySchema,
  ProfileSchema,
  ProfileSummarySchema,
  RecordingAnswerSchema,
  ScreenshotSchema,
  SnapshotSchema,
  StatusSchema,
  TabListSchema,
  TabSchema,
  ViewInputAnswerSchema,
  PlaywrightScriptSchema,
} from './responses.js';
import {
  ActionRecordSchema,
  AuditPageSchema,
  HandoffSchema,
  SecretListingSchema,
  IssuedGrantSchema,
  LiveGrantSchema,
  RecordingShotsSchema,
  RefreshSessionSchema,
  SavedCookiesSchema,
  SessionInfoSchema,
  SessionListSchema,
  VaultListingSchema,
} from './session-responses.js';

/**
 * Every route of the control API: what it takes (query, body, path
 * parameters) and what it answers, by the schemas the server validates with.
 * The server binds its handlers through this table (server/route-binder.ts:
 * a handler's answer must have its route's answer type, and a route left
 * unbound stops the server at start), and the OpenAPI document is generated
 * from it (api/openapi.ts): one source for the code, the document and clients.
 */

const profileOnly = schemas.profileQuery;

export const ROUTES = {
  // ---- status and lifecycle
  'GET /': {
    summary: 'The profile\'s status (a browser asking for HTML gets the operator\'s dashboard instead)',
    tag: 'Browser',
    query: profileOnly,
    answer: StatusSchema,
    errors: [404],
  },
  'POST /start': { summary: 'Start the profile\'s browser (or connect to it)', tag: 'Browser', query: profileOnly, answer: LifecycleSchema, errors: BROWSER_ERRORS },
  'POST /stop': { summary: 'Stop the profile\'s browser', tag: 'Browser', query: profileOnly, answer: LifecycleSchema, errors: [404] },
  // ---- tabs and inspection
  'GET /tabs': { summary: 'The profile\'s tabs', tag: 'Pages', query: profileOnly, answer: TabListSchema, errors: BROWSER_ERRORS },
  'POST /tabs/open': { summary: 'Open a tab', tag: 'Pages', query: profileOnly, body: schemas.open, answer: TabSchema, errors: BROWSER_ERRORS },
  'POST /tabs/focus': { summary: 'Bring a tab to the front', tag: 'Pages', query: profileOnly, body: schemas.focus, answer: TabSchema, errors: BROWSER_ERRORS },
  'DELETE /tabs/:targetId': {
    summary: 'Close a tab',
    tag: 'Pages',
    query: profileOnly,
    params: { targetId: 'The tab, as GET /tabs names it' },
    answer: z.object({ closed: TabSchema }),
    errors: BROWSER_ERRORS,
  },
  'POST /navigate': { summary: 'Load a URL in a tab (the last used one by default)', tag: 'Pages', query: profileOnly, body: schemas.navigate, answer: TabSchema, errors: [...BROWSER_ERRORS, 403] },
  'POST /screenshot': { summary: 'A PNG or JPEG of a tab, its full page or one element', tag: 'Pages', query: profileOnly, body: schemas.screenshot, answer: ScreenshotSchema, errors: BROWSER_ERRORS },
  'POST /pdf': { summary: 'A tab as PDF (headless managed browsers)', tag: 'Pages', query: profileOnly, body: schemas.pdf, answer: CaptureSchema, errors: BROWSER_ERRORS },
  'GET /console': { summary: 'A tab\'s console messages', tag: 'Pages', query: schemas.consoleQuery, answer: ConsoleAnswerSchema, errors: BROWSER_ERRORS },
  'GET /downloads': { summary: 'Downloads the profile\'s tabs started', tag: 'Pages', query: profileOnly, answer: z.object({ downloads: z.array(DownloadRecordSchema), fence: FenceSchema.optional() }), errors: [404] },
  // ---- snapshots, actions, hooks
  'GET /snapshot': {
    summary: 'The page as an outline with refs (ai) or its accessibility tree (aria); shaped for a token budget',
    tag: 'Actions',
    query: schemas.snapshotQuery,
    answer: SnapshotSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /text': {
    summary: 'The page\'s readable content as Markdown (main content, headings, links with URLs, tables), or one element\'s',
    tag: 'Actions',
    query: schemas.textQuery,
    answer: PageTextSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /act': {
    summary: 'One action on a tab, by ref or by point; the answer says what it changed',
    tag: 'Actions',
    query: schemas.actQuery,
    body: ActionSchema,
    answer: ActionResultSchema,
    errors: [...BROWSER_ERRORS, 403, 410],
  },
  'POST /hooks/file-chooser': { summary: 'Give files to a file chooser (now, by ref, or armed for the next one)', tag: 'Actions', query: profileOnly, body: schemas.fileChooser, answer: FileChooserAnswerSchema, errors: [...BROWSER_ERRORS, 403] },
  'POST /hooks/dialog': { summary: 'Arm the answer to a tab\'s next dialog', tag: 'Actions', query: profileOnly, body: schemas.dialog, answer: DialogArmedSchema, errors: BROWSER_ERRORS },
  // ---- a record of what happened
  'POST /network/record': { summary: 'Start or stop a tab\'s network log', tag: 'Recording', query: profileOnly, body: schemas.networkRecord, answer: RecordingAnswerSchema, errors: BROWSER_ERRORS },
  'GET /script': {
    summary: 'A tab\'s or the profile\'s recorded steps as a Playwright test, each element found as it was when the agent acted',
    tag: 'Recording',
    query: schemas.scriptQuery,
    answer: PlaywrightScriptSchema,
    errors: [404],
  },
  'GET /network': { summary: 'A tab\'s network log, filtered', tag: 'Recording', query: schemas.networkQuery, answer: RecordingAnswerSchema, errors: [...BROWSER_ERRORS, 403] },
  'GET /network/body': { summary: 'The body of one logged request or its response', tag: 'Recording', query: schemas.networkBody, answer: NetworkBodySchema, errors: BROWSER_ERRORS },
  'POST /network/har': { summary: 'The network log as HAR 1.2, written under $CLAWD_HOME/recordings', tag: 'Recording', query: profileOnly, body: schemas.har, answer: RecordingAnswerSchema, errors: [...BROWSER_ERRORS, 403] },
  'POST /trace/start': { summary: 'Start a Playwright trace of the profile\'s browser context', tag: 'Recording', query: profileOnly, answer: RecordingAnswerSchema, errors: BROWSER_ERRORS },
  'POST /trace/stop': { summary: 'Stop the trace and write it (open it with npx playwright show-trace)', tag: 'Recording', query: profileOnly, body: schemas.traceStop, answer: RecordingAnswerSchema, errors: BROWSER_ERRORS },
  'GET /actions': { summary: 'The action log: recent actions, newest last, never what was typed', tag: 'Agents', query: schemas.actionsQuery, answer: z.object({ actions: z.array(ActionRecordSchema) }) },
  // ---- live view and dashboard
  'GET /screencast': {
    summary: 'A tab\'s live view as a stream of JPEG frames (an <img> shows it)',
    tag: 'Live view',
    query: schemas.screencastQuery,
    answer: { media: 'multipart/x-mixed-replace', description: 'JPEG frames, each with X-Captured-At (epoch ms)' },
    errors: BROWSER_ERRORS,
  },
  'GET /screencast/frame': {
    summary: 'One JPEG of a tab (204 when it has none yet)',
    tag: 'Live view',
    query: schemas.screencastQuery,
    answer: { media: 'image/jpeg', description: 'The tab now' },
    errors: BROWSER_ERRORS,
  },
  'POST /screencast/input': { summary: 'A person\'s input through the live view, logged as the person\'s', tag: 'Live view', query: profileOnly, body: schemas.viewInput, answer: ViewInputAnswerSchema, errors: BROWSER_ERRORS },
  // ---- people in the loop
  'POST /handoff': {
    summary: 'Ask a person to act in a tab (a login, 2FA, a CAPTCHA): answers at once with a one-time link for them; wait on GET /handoff/{id}',
    tag: 'Live view',
    query: profileOnly,
    body: schemas.handoff,
    answer: HandoffSchema,
    status: 201,
    errors: [429, ...BROWSER_ERRORS],
  },
  'GET /handoff/:id': {
    summary: "A hand-off's state; with wait=N, held until the person answers or N seconds (at most 60) pass",
    tag: 'Live view',
    query: schemas.handoffQuery,
    params: { id: "The hand-off's id" },
    answer: HandoffSchema,
    errors: [404],
  },
  'DELETE /handoff/:id': { summary: 'Cancel a hand-off (the person is told it is no longer needed)', tag: 'Live view', query: profileOnly, params: { id: "The hand-off's id" }, answer: HandoffSchema, errors: [404] },
  'GET /handoffs': { summary: 'Hand-offs waiting for a person, oldest first', tag: 'Live view', answer: z.object({ handoffs: z.array(HandoffSchema) }) },
  'GET /handoff/:id/open': {
    summary: "The person's one-time link: trades its code for a cookie that opens this hand-off's page only",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    query: z.object({ code: z.string().optional() }),
    answer: { media: 'text/html', description: "A page that sets the hand-off's cookie (sent under /handoff/{id}/ only) and moves on to its page by itself" },
    public: true,
  },
  'GET /handoff/:id/page': { summary: "The hand-off's page: the reason, the tab's live view with takeover, Done and Can't do it", tag: 'Live view', params: { id: "The hand-off's id" }, answer: { media: 'text/html', description: 'The page' }, errors: [403, 404] },
  'GET /handoff/:id/screencast': {
    summary: "The hand-off's tab, live (multipart JPEG), while it waits",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    answer: { media: 'multipart/x-mixed-replace', description: 'JPEG frames' },
    errors: [403, 404, 409],
  },
  'POST /handoff/:id/input': { summary: "The person's input on the hand-off's tab (a click, a scroll, keys), logged as the person's", tag: 'Live view', params: { id: "The hand-off's id" }, body: schemas.handoffInput, answer: ViewInputAnswerSchema, errors: [403, 404, 409] },
  'POST /handoff/:id/answer': { summary: "The person's answer", tag: 'Live view', params: { id: "The hand-off's id" }, body: schemas.handoffAnswer, answer: HandoffSchema, errors: [403, 404, 409] },
  'POST /dashboard/link': {
    summary: 'A one-time link into the operator\'s dashboard (valid 60 s)',
    tag: 'Live view',
    answer: z.object({ url: z.string(), expiresInSeconds: z.number().int() }),
  },
  'GET /dashboard/login': {
    summary: 'Trade a one-time link\'s code for the console\'s login cookie, sent only under /console/<its own path>/',
    tag: 'Live view',
    query: z.object({ code: z.string().optional() }),
    answer: { media: 'text/html', description: 'A page that moves on to /console/<path>/ (the console, its API calls under that path), with the login cookie' },
    public: true,
  },
  'GET /metrics': {
    summary: 'Prometheus metrics: sessions by place, isolation and state, spares, the admission queue, CDP clients, request latency by route, policy refusals, egress bytes, hand-offs waiting',
    tag: 'Fleet',
    answer: { media: 'text/plain', description: "Prometheus's text format (version 0.0.4)" },
  },
  'GET /pressure': {
    summary: "This server's load for a load balancer's health check: 200 while it can take a session, 503 with full, cpu or memory",
    tag: 'Fleet',
    answer: PressureSchema,
    sameBodyOn: { status: 503, description: 'It should not be given more work now: full, cpu or memory, with the same figures' },
    public: true,
  },
  'GET /events': {
    summary: 'Server-sent events: each audit entry as it is written',
    tag: 'Live view',
    answer: { media: 'text/event-stream', description: 'One `audit` event per entry, its data an audit entry' },
  },
  // ---- your own Chrome, attached through its remote-debugging consent (chrome-routes.ts)
  ...CHROME_ROUTES,
  // ---- labelled screenshots and computer use (vision-routes.ts)
  ...VISION_ROUTES,
  ...PAGE_TOOLS_ROUTES,
  ...REPLAY_ROUTES,
  // ---- a person teaches: demonstrations, routines, notes (teach-routes.ts)
  ...TEACH_ROUTES,
  // ---- the browse runtime: a goal in, an answer out (browse-routes.ts)
  ...BROWSE_ROUTES,
  // ---- emulation, network routes, init scripts, storage (toolbox-routes.ts)
  ...TOOLBOX_ROUTES,
  // ---- task sessions, grants, the vault
  'POST /sessions': {
    summary: 'Open a task session: a throwaway browser, optionally with a tenant\'s logins under a grant',
    tag: 'Sessions',
    body: schemas.openSession,
    answer: SessionInfoSchema,
    status: 201,
    errors: [403, 409, 429, 503, 504],
  },
  'GET /sessions': { summary: 'Open task sessions, and the warm spare browsers', tag: 'Sessions', answer: SessionListSchema },
  'DELETE /sessions/:id': { summary: 'End a task session: its browser and everything it wrote go', tag: 'Sessions', params: { id: 'The session\'s id' }, answer: z.object({ closed: SessionInfoSchema }), errors: [404] },
  'POST /sessions/:id/approvals': {
    summary: "Pre-approve a confirm rule for one task session: its acts run there without a person's yes (the main token only; audited)",
    tag: 'Sessions',
    params: { id: "The session's id" },
    body: schemas.approveRule,
    answer: z.object({ session: z.string(), approved: z.array(z.string()).describe('Every rule pre-approved for it') }),
    errors: [404],
  },
  'POST /sessions/:id/extend': { summary: 'Set a session\'s time to live from now', tag: 'Sessions', params: { id: 'The session\'s id' }, body: schemas.extendSession, answer: z.object({ extended: SessionInfoSchema }), errors: [404] },
  'GET /audit': { summary: 'The audit log, newest first, a page at a time', tag: 'Sessions', query: schemas.auditQuery, answer: AuditPageSchema },
  'GET /audit/recording': {
    summary: 'A session\'s recorded screenshots; with file, one of them as JPEG',
    tag: 'Sessions',
    query: schemas.recordingQuery,
    answer: RecordingShotsSchema,
    errors: [404],
  },
  'GET /grants': { summary: 'Grants that can still be used, and the sessions given cookies under each', tag: 'Vault', answer: z.object({ grants: z.array(LiveGrantSchema) }) },
  'POST /grants': { summary: 'Sign a grant: a tenant\'s cookies of these domains, until its ttl', tag: 'Vault', body: schemas.issueGrant, answer: IssuedGrantSchema, status: 201, errors: [503] },
  'DELETE /grants/:id': { summary: 'Revoke a grant', tag: 'Vault', params: { id: 'The grant\'s id' }, answer: z.object({ revoked: z.string() }), errors: [503] },
  'POST /secrets': { summary: 'Set a named secret of a tenant, bound to the domains it may be typed on (the value is never answered)', tag: 'Vault', body: schemas.setSecret, answer: SecretListingSchema, status: 201, errors: [503] },
  'GET /secrets': { summary: 'Named secrets: tenants, names, domains, dates (never a value)', tag: 'Vault', query: schemas.secretQuery, answer: z.object({ secrets: z.array(SecretListingSchema) }), errors: [503] },
  'DELETE /secrets': { summary: "Forget a tenant's secret (or all its secrets)", tag: 'Vault', query: schemas.secretQuery, answer: z.object({ forgotten: z.array(SecretListingSchema) }), errors: [503] },
  'GET /vault': { summary: 'What the vault holds, per tenant and domain (never a value)', tag: 'Vault', query: schemas.vaultQuery, answer: z.object({ entries: z.array(VaultListingSchema) }), errors: [503] },
  'DELETE /vault': { summary: 'Forget a tenant\'s cookies (of one domain, or all)', tag: 'Vault', query: schemas.vaultQuery, answer: z.object({ forgotten: z.array(VaultListingSchema) }), errors: [503] },
  'POST /vault/refresh': { summary: 'A session a person drives to log in; its cookies are saved when they say done', tag: 'Vault', body: schemas.vaultRefresh, answer: RefreshSessionSchema, status: 201, errors: [409, 429, 503, 504] },
  'POST /vault/refresh/:id/done': { summary: 'Save the refresh session\'s cookies and end it', tag: 'Vault', params: { id: 'The refresh session\'s id' }, body: schemas.vaultRefreshDone, answer: z.object({ saved: SavedCookiesSchema }), errors: [404, 503] },
  'POST /vault/from-extension': {
    summary: 'Save cookies from the user\'s own Chrome, for the domains the person allows in the extension',
    tag: 'Vault',
    body: schemas.vaultFromExtension,
    answer: z.object({ saved: SavedCookiesSchema, refused: z.array(z.string()) }),
    errors: [403, 503, 504],
  },
  // ---- profiles
  'GET /profiles': { summary: 'Every profile, and whether its browser runs', tag: 'Profiles', answer: z.object({ profiles: z.array(ProfileSummarySchema), defaultProfile: z.string() }) },
  'POST /profiles/create': { summary: 'A new managed profile, or a remote one (cdpUrl)', tag: 'Profiles', body: schemas.createProfile, answer: ProfileSchema, status: 201, errors: [409] },
  'DELETE /profiles/:name': { summary: 'Delete a profile (its browser stops; a managed one\'s data dir goes)', tag: 'Profiles', params: { name: 'The profile' }, answer: z.object({ deleted: ProfileSchema }), errors: [404, 409] },
  'POST /reset-profile': { summary: 'Stop a managed profile\'s browser, and any process still holding its data dir', tag: 'Profiles', query: profileOnly, answer: z.object({ profile: z.string(), killed: z.array(z.number().int()) }), errors: [404, 409] },
  // ---- agents
  'POST /mcp': {
    summary: 'MCP over Streamable HTTP: the same tools as `clawd-browser mcp` (GET and DELETE per the MCP transport too)',
    tag: 'Agents',
    body: z.unknown().describe('A JSON-RPC message (or a batch) of the Model Context Protocol'),
    answer: z.unknown().describe('A JSON-RPC answer, or an event stream of them'),
  },
  'GET /openapi.json': { summary: 'This document', tag: 'Agents', answer: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1') },
} satisfies Record<string, RouteSpec>;

export type RouteKey = keyof typeof ROUTES;
