import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import { schemas } from './schemas.js';
import { ComputerResultSchema, LabelledScreenshotSchema } from './vision-responses.js';

/** The vision routes (spec §16), spread into api/routes.ts's table. */

const profileOnly = schemas.profileQuery;
const tag = 'Vision' as const;

export const VISION_ROUTES = {
  'POST /screenshot/labelled': {
    summary: "A screenshot with each ref of a fresh snapshot drawn as a numbered box, and the labels' roles and names",
    tag,
    query: profileOnly,
    body: schemas.labelledScreenshot,
    answer: LabelledScreenshotSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /computer/openai': {
    summary: "Run a batch of OpenAI computer-use actions in the screenshot's pixels; answers with a fresh screenshot",
    tag,
    query: schemas.computerQuery,
    body: schemas.computerOpenai,
    answer: ComputerResultSchema,
    errors: [403, ...BROWSER_ERRORS],
  },
  'POST /computer/anthropic': {
    summary: "Run a batch of Anthropic computer tool actions in the screenshot's pixels; answers with a fresh screenshot",
    tag,
    query: schemas.computerQuery,
    body: schemas.computerAnthropic,
    answer: ComputerResultSchema,
    errors: [403, ...BROWSER_ERRORS],
  },
} satisfies Record<string, RouteSpec>;
