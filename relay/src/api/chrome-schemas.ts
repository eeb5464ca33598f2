import { z } from 'zod';

/**
 * The `chrome` profile's own requests and answers: clawd-browser attached to
 * the person's running Chrome through its remote-debugging consent, and the
 * tabs the person lends in the picker (spec §25). The routes are in
 * chrome-routes.ts.
 */

export const AttachProblemSchema = z.object({
  kind: z
    .enum(['not-found', 'not-running', 'not-allowed', 'too-old', 'stale', 'not-devtools', 'refused', 'unanswered', 'lost'])
    .describe(
      'not-found: no browser folder; not-running; not-allowed: remote debugging is off; too-old: before Chrome 144; stale: DevToolsActivePort left by a stopped browser; not-devtools: another program on its port; refused: the person declined; unanswered: nobody answered the prompt in time; lost: the browser quit or restarted',
    ),
  message: z.string(),
  fix: z.string().describe('The one thing to do about it'),
});

export const ChromeStatusSchema = z.object({
  state: z
    .enum(['detached', 'connecting', 'asking', 'attached', 'failed'])
    .describe('asking: Chrome is asking the person "Allow remote debugging?", and clawd-browser waits for the answer'),
  browser: z
    .object({
      title: z.string(),
      userDataDir: z.string(),
      product: z.string().optional().describe('What the browser says it is, once attached ("Chrome/144.0.7559.97")'),
      profiles: z.array(z.string()).describe('The profiles open in it, by the names their people gave them'),
    })
    .optional(),
  problem: AttachProblemSchema.optional(),
  lentTabs: z.number().int().describe('Tabs lent to clients now'),
  otherDebuggers: z.number().int().optional().describe('Tabs not lent that another DevTools client (another tool) is attached to'),
});
export type ChromeStatus = z.infer<typeof ChromeStatusSchema>;

export const ChromeAttachRequestSchema = z.strictObject({
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(600)
    .default(30)
    .describe("How long to wait for the person to answer Chrome's prompt before answering with the state (asking)"),
});

/** One of the person's tabs, as the picker shows it: never answered to an agent. */
export const PersonTabSchema = z.object({
  targetId: z.string(),
  title: z.string(),
  url: z.string(),
  favicon: z.string().optional(),
  lent: z.boolean(),
  byAgent: z.boolean().describe('A client opened it: it is lent from the start'),
  notLendable: z.string().optional().describe("Why it is never lent: clawd-browser's own pages, the browser's pages, local files"),
  suspended: z.string().optional().describe('A lent tab on a page never lent: taken back until it leaves'),
  otherDebugger: z.boolean().describe('Another DevTools client (another tool) is attached to it'),
});

export type PersonTab = z.infer<typeof PersonTabSchema>;

export const LendRequestSchema = z.strictObject({
  targetId: z.string().min(1).max(100).describe('The tab, as the picker lists it'),
  lent: z.boolean().describe('true to lend it, false to take it back'),
});
