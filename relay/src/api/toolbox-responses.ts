import { z } from 'zod';
import { CookieSchema, EmulationSettingsSchema, StorageStateSchema } from './toolbox-schemas.js';

export { CookieSchema, StorageStateSchema };
export type { Cookie, StorageState } from './toolbox-schemas.js';

/**
 * What the toolbox answers (spec §16): emulation in effect, network routes,
 * init scripts, cookies, a tab's storage, and storage state in Playwright's
 * `storageState` format, which is also what `POST /storage/state` takes.
 */

/** Settings as held: every field that is set, none that is not (a `null` in a request clears one). */
const HeldSettingsSchema = EmulationSettingsSchema.describe('What is set; a field left out is not emulated');

export const EmulationStateSchema = z.object({
  targetId: z.string().optional().describe('The tab shown; none when the profile has no tab yet'),
  profile: HeldSettingsSchema.describe("The profile's defaults (a task session's: the session's), for each of its tabs"),
  tab: HeldSettingsSchema.describe("This tab's own, over the profile's"),
  effective: HeldSettingsSchema.describe("What the tab has now: the profile's, then the tab's"),
  notes: z.array(z.string()).optional().describe('What could not be applied here, and why'),
});
export type EmulationState = z.infer<typeof EmulationStateSchema>;

export const RouteInfoSchema = z.object({
  id: z.string().describe('r1, r2, …: for DELETE /routes/{id}'),
  scope: z.enum(['tab', 'profile']),
  targetId: z.string().optional().describe('A tab route: its tab'),
  url: z.string().optional(),
  regex: z.string().optional(),
  action: z.enum(['fulfill', 'abort', 'continue']),
  status: z.number().int().optional(),
  errorReason: z.string().optional(),
  bodyFile: z.string().optional(),
  times: z.number().int().optional(),
  hits: z.number().int().describe('Requests it has answered'),
  refused: z.number().int().describe('Requests it matched that the URL policy refused (they were not routed)'),
});
export type RouteInfo = z.infer<typeof RouteInfoSchema>;
export const RouteListSchema = z.object({ routes: z.array(RouteInfoSchema) });

export const InitScriptInfoSchema = z.object({
  id: z.string().describe('s1, s2, …: for DELETE /init-scripts/{id}'),
  scope: z.enum(['tab', 'profile']),
  targetId: z.string().optional(),
  chars: z.number().int(),
  preview: z.string().describe('Its first 80 characters'),
});
export type InitScriptInfo = z.infer<typeof InitScriptInfoSchema>;
export const InitScriptListSchema = z.object({ scripts: z.array(InitScriptInfoSchema) });

export const CookieListSchema = z.object({
  cookies: z.array(CookieSchema),
  valuesHidden: z.boolean().optional().describe('Values are shown only to the token\'s holder: here each value is ""'),
});
export const CookieChangeSchema = z.object({ set: z.number().int().optional(), cleared: z.number().int().optional() });

export const StorageItemsSchema = z.object({
  targetId: z.string(),
  origin: z.string(),
  kind: z.enum(['local', 'session']),
  items: z.record(z.string(), z.string()),
});
export const StorageChangeSchema = z.object({
  targetId: z.string(),
  origin: z.string(),
  kind: z.enum(['local', 'session']),
  set: z.number().int().optional(),
  cleared: z.number().int().optional(),
});

export const StorageStateAnswerSchema = StorageStateSchema.extend({
  valuesHidden: z.boolean().optional().describe('Cookie values are shown only to the token\'s holder: here each is "" (the state cannot log in elsewhere)'),
});
export const StorageImportSchema = z.object({
  cookies: z.number().int(),
  origins: z.number().int(),
  credentials: z.number().int().optional().describe("Passkeys put in the browser's virtual authenticators"),
});
