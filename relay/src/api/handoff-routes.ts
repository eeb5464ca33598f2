import { z } from 'zod';
import { HandoffSchema } from './session-responses.js';
import { ViewInputAnswerSchema } from './responses.js';
import { schemas } from './schemas.js';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';

/** Hand-offs to a person (spec §15): the agent's, the operator's and the person's routes; spread into api/routes.ts's table and bound by server/handoff-routes.ts. */

const profileOnly = schemas.profileQuery;

export const HANDOFF_ROUTES = {
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
  'DELETE /handoff/:id': {
    summary: 'Cancel a hand-off (the person is told it is no longer needed)',
    tag: 'Live view',
    query: profileOnly,
    params: { id: "The hand-off's id" },
    answer: HandoffSchema,
    errors: [404],
  },
  'GET /handoffs': { summary: 'Hand-offs waiting for a person, oldest first', tag: 'Live view', answer: z.object({ handoffs: z.array(HandoffSchema) }) },
  'GET /handoff/:id/open': {
    summary: "The person's one-time link: trades its code for a cookie that opens this hand-off's page only",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    query: z.object({ code: z.string().optional() }),
    answer: { media: 'text/html', description: "A page that sets the hand-off's cookie (sent under /handoff/{id}/ only) and moves on to its page by itself" },
    public: true,
  },
  'GET /handoff/:id/page': {
    summary: "The hand-off's page: the reason, the tab's live view with takeover, Done and Can't do it",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    answer: { media: 'text/html', description: 'The page' },
    errors: [403, 404],
  },
  'GET /handoff/:id/screencast': {
    summary: "The hand-off's tab, live (multipart JPEG), while it waits",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    answer: { media: 'multipart/x-mixed-replace', description: 'JPEG frames' },
    errors: [403, 404, 409],
  },
  'POST /handoff/:id/input': {
    summary: "The person's input on the hand-off's tab (a click, a scroll, keys), logged as the person's",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    body: schemas.handoffInput,
    answer: ViewInputAnswerSchema,
    errors: [403, 404, 409],
  },
  'POST /handoff/:id/answer': {
    summary: "The person's answer",
    tag: 'Live view',
    params: { id: "The hand-off's id" },
    body: schemas.handoffAnswer,
    answer: HandoffSchema,
    errors: [403, 404, 409],
  },
} satisfies Record<string, RouteSpec>;
