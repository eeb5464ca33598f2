import { z } from 'zod';
import {
  ActionResultSchema,
  CaptureSchema,
  ConsoleAnswerSchema,
  DialogArmedSchema,
  DownloadRecordSchema,
  FileChooserAnswerSchema,
  LifecycleSchema,
  PageTextSchema,
  ScreenshotSchema,
  SnapshotSchema,
  StatusSchema,
  TabListSchema,
  TabSchema,
} from './responses.js';
import { ActionSchema, schemas } from './schemas.js';
import { FenceSchema } from './fence-schema.js';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';

/** A profile's browser and its tabs: status and lifecycle, tabs, inspection, snapshots, actions and their hooks; spread into api/routes.ts's table and bound by server/tab-routes.ts. */

const profileOnly = schemas.profileQuery;

export const TAB_ROUTES = {
  'GET /': {
    summary: "The profile's status (a browser asking for HTML gets the operator's dashboard instead)",
    tag: 'Browser',
    query: profileOnly,
    answer: StatusSchema,
    errors: [404],
  },
  'POST /start': {
    summary: "Start the profile's browser (or connect to it)",
    tag: 'Browser',
    query: profileOnly,
    answer: LifecycleSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /stop': { summary: "Stop the profile's browser", tag: 'Browser', query: profileOnly, answer: LifecycleSchema, errors: [404] },
  // ---- tabs and inspection
  'GET /tabs': { summary: "The profile's tabs", tag: 'Pages', query: profileOnly, answer: TabListSchema, errors: BROWSER_ERRORS },
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
  'POST /navigate': {
    summary: 'Load a URL in a tab (the last used one by default)',
    tag: 'Pages',
    query: profileOnly,
    body: schemas.navigate,
    answer: TabSchema,
    errors: [...BROWSER_ERRORS, 403],
  },
  'POST /screenshot': {
    summary: 'A PNG or JPEG of a tab, its full page or one element',
    tag: 'Pages',
    query: profileOnly,
    body: schemas.screenshot,
    answer: ScreenshotSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /pdf': {
    summary: 'A tab as PDF (headless managed browsers)',
    tag: 'Pages',
    query: profileOnly,
    body: schemas.pdf,
    answer: CaptureSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /console': { summary: "A tab's console messages", tag: 'Pages', query: schemas.consoleQuery, answer: ConsoleAnswerSchema, errors: BROWSER_ERRORS },
  'GET /downloads': {
    summary: "Downloads the profile's tabs started",
    tag: 'Pages',
    query: profileOnly,
    answer: z.object({ downloads: z.array(DownloadRecordSchema), fence: FenceSchema.optional() }),
    errors: [404],
  },
  // ---- snapshots, actions, hooks
  'GET /snapshot': {
    summary: 'The page as an outline with refs (ai) or its accessibility tree (aria); shaped for a token budget',
    tag: 'Actions',
    query: schemas.snapshotQuery,
    answer: SnapshotSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /text': {
    summary: "The page's readable content as Markdown (main content, headings, links with URLs, tables), or one element's",
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
  'POST /hooks/file-chooser': {
    summary: 'Give files to a file chooser (now, by ref, or armed for the next one)',
    tag: 'Actions',
    query: profileOnly,
    body: schemas.fileChooser,
    answer: FileChooserAnswerSchema,
    errors: [...BROWSER_ERRORS, 403],
  },
  'POST /hooks/dialog': {
    summary: "Arm the answer to a tab's next dialog",
    tag: 'Actions',
    query: profileOnly,
    body: schemas.dialog,
    answer: DialogArmedSchema,
    errors: BROWSER_ERRORS,
  },
} satisfies Record<string, RouteSpec>;
