import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';

/** The operator's console: its one-time login and its stream of audit entries; spread into api/routes.ts's table and bound by server/console-routes.ts. */

export const CONSOLE_ROUTES = {
  'POST /dashboard/link': {
    summary: "A one-time link into the operator's dashboard (valid 60 s)",
    tag: 'Live view',
    answer: z.object({ url: z.string(), expiresInSeconds: z.number().int() }),
  },
  'GET /dashboard/login': {
    summary: "Trade a one-time link's code for the console's login cookie, sent only under /console/<its own path>/",
    tag: 'Live view',
    query: z.object({ code: z.string().optional() }),
    answer: { media: 'text/html', description: 'A page that moves on to /console/<path>/ (the console, its API calls under that path), with the login cookie' },
    public: true,
  },
  'GET /events': {
    summary: 'Server-sent events: each audit entry as it is written',
    tag: 'Live view',
    answer: { media: 'text/event-stream', description: 'One `audit` event per entry, its data an audit entry' },
  },
} satisfies Record<string, RouteSpec>;
