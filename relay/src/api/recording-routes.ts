import { z } from 'zod';
import { ActionRecordSchema } from './session-responses.js';
import { NetworkBodySchema, PlaywrightScriptSchema, RecordingAnswerSchema } from './responses.js';
import { schemas } from './schemas.js';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';

/** A record of what happened: the network log, HAR, traces, the recorded steps as a script, the action log; spread into api/routes.ts's table and bound by server/recording-routes.ts. */

const profileOnly = schemas.profileQuery;

export const RECORDING_ROUTES = {
  'POST /network/record': {
    summary: "Start or stop a tab's network log",
    tag: 'Recording',
    query: profileOnly,
    body: schemas.networkRecord,
    answer: RecordingAnswerSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /script': {
    summary: "A tab's or the profile's recorded steps as a Playwright test, each element found as it was when the agent acted",
    tag: 'Recording',
    query: schemas.scriptQuery,
    answer: PlaywrightScriptSchema,
    errors: [404],
  },
  'GET /network': {
    summary: "A tab's network log, filtered",
    tag: 'Recording',
    query: schemas.networkQuery,
    answer: RecordingAnswerSchema,
    errors: [...BROWSER_ERRORS, 403],
  },
  'GET /network/body': {
    summary: 'The body of one logged request or its response',
    tag: 'Recording',
    query: schemas.networkBody,
    answer: NetworkBodySchema,
    errors: BROWSER_ERRORS,
  },
  'POST /network/har': {
    summary: 'The network log as HAR 1.2, written under $CLAWD_HOME/recordings',
    tag: 'Recording',
    query: profileOnly,
    body: schemas.har,
    answer: RecordingAnswerSchema,
    errors: [...BROWSER_ERRORS, 403],
  },
  'POST /trace/start': {
    summary: "Start a Playwright trace of the profile's browser context",
    tag: 'Recording',
    query: profileOnly,
    answer: RecordingAnswerSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /trace/stop': {
    summary: 'Stop the trace and write it (open it with npx playwright show-trace)',
    tag: 'Recording',
    query: profileOnly,
    body: schemas.traceStop,
    answer: RecordingAnswerSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /actions': {
    summary: 'The action log: recent actions, newest last, never what was typed',
    tag: 'Agents',
    query: schemas.actionsQuery,
    answer: z.object({ actions: z.array(ActionRecordSchema) }),
  },
} satisfies Record<string, RouteSpec>;
