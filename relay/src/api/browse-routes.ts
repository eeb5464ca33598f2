import { z } from 'zod';
import { schemas } from './schemas.js';
import { BrowseRequestSchema, BrowseResultSchema, BrowseRunSchema } from './browse-schemas.js';
import type { ErrorStatus, RouteSpec } from './route-spec.js';

/** The browse runtime's routes (spec §24), spread into api/routes.ts's table. */

const ERRORS: ErrorStatus[] = [403, 404, 409, 429, 503];

export const BROWSE_ROUTES = {
  'POST /browse': {
    summary:
      'Run the agent loop for a goal against a configured model: with Accept: text/event-stream, `start`, `step` and `end` events; else the result as JSON',
    tag: 'Agents',
    query: schemas.profileQuery,
    body: BrowseRequestSchema,
    answer: BrowseResultSchema,
    errors: ERRORS,
  },
  'GET /browse': { summary: 'Runs in progress', tag: 'Agents', answer: z.object({ runs: z.array(BrowseRunSchema) }) },
  'DELETE /browse/:run': {
    summary: 'Cancel a run: its model request and its act in flight stop; its answer says stopped by cancel',
    tag: 'Agents',
    params: { run: "The run's id (the start event's run)" },
    answer: BrowseRunSchema,
    errors: [404],
  },
} satisfies Record<string, RouteSpec>;
