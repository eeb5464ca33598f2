import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import { schemas } from './schemas.js';
import { PageToolCallSchema, PageToolListSchema } from './page-tools-responses.js';

/** The page-tools routes (spec §21), spread into api/routes.ts's table. */

const tag = 'Page tools' as const;

export const PAGE_TOOLS_ROUTES = {
  'GET /page-tools': {
    summary: "The tools the tab's page offers agents (WebMCP), every frame's, with their input schemas and annotations",
    tag,
    query: schemas.pageToolsQuery,
    answer: PageToolListSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /page-tools/call': {
    summary: "Call one of the page's tools with input checked against its schema, and wait for its answer (a caller that goes away cancels it)",
    tag,
    query: schemas.pageToolCallQuery,
    body: schemas.pageToolCall,
    answer: PageToolCallSchema,
    errors: [400, ...BROWSER_ERRORS],
  },
} satisfies Record<string, RouteSpec>;
