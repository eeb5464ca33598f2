import { ViewInputAnswerSchema } from './responses.js';
import { schemas } from './schemas.js';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';

/** A tab's live view and a person's input through it; spread into api/routes.ts's table and bound by server/live-view-routes.ts. */

const profileOnly = schemas.profileQuery;

export const LIVE_VIEW_ROUTES = {
  'GET /screencast': {
    summary: "A tab's live view as a stream of JPEG frames (an <img> shows it)",
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
  'POST /screencast/input': {
    summary: "A person's input through the live view, logged as the person's",
    tag: 'Live view',
    query: profileOnly,
    body: schemas.viewInput,
    answer: ViewInputAnswerSchema,
    errors: BROWSER_ERRORS,
  },
} satisfies Record<string, RouteSpec>;
