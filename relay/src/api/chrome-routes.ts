import { z } from 'zod';
import { ChromeAttachRequestSchema, ChromeStatusSchema, LendRequestSchema, PersonTabSchema } from './chrome-schemas.js';
import type { RouteSpec } from './route-spec.js';

/**
 * The `chrome` profile's routes (spec §25), spread into api/routes.ts's
 * table. The token attaches and detaches, and opens the picker in the
 * person's Chrome; only the person, in that picker, sees their tabs and
 * lends them (its cookie, which only that Chrome ever holds).
 */

const tag = 'Browser' as const;
const PICKER_ANSWER = z.object({ tabs: z.array(PersonTabSchema), chrome: ChromeStatusSchema });

export const CHROME_ROUTES = {
  'GET /chrome': {
    summary: 'Whether clawd-browser is attached to your own Chrome (or waits for your answer to its prompt, or why not)',
    tag,
    answer: ChromeStatusSchema,
  },
  'POST /chrome/attach': {
    summary:
      'Attach to your running Chrome through its remote-debugging consent: Chrome asks you "Allow remote debugging?"; answers once you did, or after waitSeconds with state asking',
    tag,
    body: ChromeAttachRequestSchema,
    answer: ChromeStatusSchema,
  },
  'POST /chrome/detach': { summary: 'Let go of your Chrome: every lent tab is taken back', tag, answer: ChromeStatusSchema },
  'POST /chrome/picker/open': {
    summary: "Open clawd-browser's tab picker in your Chrome, where you lend tabs (its one-time link goes to that Chrome only)",
    tag,
    answer: z.object({ opened: z.literal(true) }),
    errors: [503],
  },
  'GET /chrome/picker/login': {
    summary: "The picker's one-time link: trades its code for a cookie that opens the picker only",
    tag,
    query: z.object({ code: z.string().optional() }),
    answer: { media: 'redirect', description: '302 to the picker, with its cookie' },
    public: true,
  },
  'GET /chrome/picker': {
    summary: "The picker: your Chrome's tabs, each to lend or take back (the person's cookie only)",
    tag,
    answer: { media: 'text/html', description: 'The page' },
    errors: [403],
  },
  'GET /chrome/picker/tabs': {
    summary: "Your Chrome's tabs, for the picker (the person's cookie only: never an agent's)",
    tag,
    answer: PICKER_ANSWER,
    errors: [403, 503],
  },
  'POST /chrome/picker/lend': {
    summary: "Lend a tab, or take it back (the person's cookie only)",
    tag,
    body: LendRequestSchema,
    answer: PICKER_ANSWER,
    errors: [403, 404, 409, 503, 504],
  },
} satisfies Record<string, RouteSpec>;
