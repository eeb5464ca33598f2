import { z } from 'zod';
import { MAX_WAIT_MS } from './limits.js';

/** Requests of the page-tools routes (spec §21): list a tab's tools, call one. */

/** How long a call waits for its tool's answer by default. */
export const PAGE_TOOL_TIMEOUT_MS = 30_000;

export const pageToolsSchemas = {
  pageToolsQuery: z.object({ profile: z.string().optional(), targetId: z.string().min(1).optional() }),
  pageToolCall: z.strictObject({
    targetId: z.string().min(1).optional(),
    name: z.string().min(1).max(256).describe("The tool's name, as the list gives it"),
    input: z.record(z.string(), z.unknown()).default({}).describe("Checked against the tool's inputSchema"),
    frameId: z.string().min(1).optional().describe('When two frames offer a tool of that name'),
    timeoutMs: z.number().int().positive().max(MAX_WAIT_MS, `may not exceed ${MAX_WAIT_MS} ms (2 minutes)`).default(PAGE_TOOL_TIMEOUT_MS),
  }),
};
