import { z } from 'zod';

/**
 * The agent's toolbox as requests: emulation, network routes, init scripts
 * and storage (spec §16). Kept beside schemas.ts, which spreads them into
 * `schemas`, the one table the routes and the clients use.
 */

const TargetId = z.string().min(1);
const Scope = z
  .enum(['tab', 'profile'])
  .default('tab')
  .describe("tab: this tab only; profile: every tab of the profile (a task session's: the session's), now and later");
const Origin = z
  .string()
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) && new URL(value).origin === value.replace(/\/$/, ''),
    'must be an origin like https://example.com',
  )
  .transform((value) => new URL(value).origin);
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');
const HeaderValue = z
  .string()
  .max(8192)
  .refine((value) => !/[\r\n\0]/.test(value), 'may not hold CR, LF or NUL');
const Headers = z.record(HeaderName, HeaderValue).refine((headers) => Object.keys(headers).length <= 50, 'at most 50 headers');

/** Timezones and locales are checked with this process's ICU, the same tables Chromium carries. */
function isTimezone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
function isLocale(value: string): boolean {
  try {
    const locale = new Intl.Locale(value);
    return languageNames.of(locale.language) !== undefined;
  } catch {
    return false;
  }
}

/** Network conditions by name, with Chrome DevTools' figures (kbit/s, ms). */
export const NETWORK_PRESETS = {
  'slow-3g': { downloadKbps: 400, uploadKbps: 400, latencyMs: 2000 },
  'fast-3g': { downloadKbps: 1440, uploadKbps: 675, latencyMs: 563 },
  'slow-4g': { downloadKbps: 1440, uploadKbps: 675, latencyMs: 150 },
  'fast-4g': { downloadKbps: 9000, uploadKbps: 1500, latencyMs: 60 },
} as const;
const NetworkConditions = z.strictObject({
  downloadKbps: z.number().positive().max(10_000_000),
  uploadKbps: z.number().positive().max(10_000_000),
  latencyMs: z.number().min(0).max(60_000),
});

/** One emulation change: a field left out stays as it is; `null` clears it. */
export const EmulationSettingsSchema = z.strictObject({
  device: z
    .string()
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .describe('a device preset by Playwright\'s name, e.g. "iPhone 13" or "Pixel 7" (viewport, scale, mobile, touch, user agent)'),
  viewport: z
    .strictObject({ width: z.number().int().min(1).max(10_000), height: z.number().int().min(1).max(10_000) })
    .nullable()
    .optional(),
  deviceScaleFactor: z.number().min(0.25).max(5).nullable().optional(),
  isMobile: z.boolean().nullable().optional(),
  hasTouch: z.boolean().nullable().optional(),
  userAgent: z.string().min(1).max(1000).nullable().optional(),
  geolocation: z
    .strictObject({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180), accuracy: z.number().min(0).max(100_000).optional() })
    .nullable()
    .optional()
    .describe('where the page believes it is; the permission is granted'),
  timezone: z.string().refine(isTimezone, 'must be an IANA timezone like Europe/Paris').nullable().optional(),
  locale: z.string().max(50).refine(isLocale, 'must be a locale like fr-FR').nullable().optional(),
  colorScheme: z.enum(['light', 'dark', 'no-preference']).nullable().optional(),
  reducedMotion: z.enum(['reduce', 'no-preference']).nullable().optional(),
  offline: z.boolean().nullable().optional(),
  network: z
    .union([z.enum(Object.keys(NETWORK_PRESETS) as [keyof typeof NETWORK_PRESETS]), NetworkConditions])
    .nullable()
    .optional()
    .describe('throttling: slow-3g, fast-3g, slow-4g, fast-4g, or {downloadKbps, uploadKbps, latencyMs}'),
  cpuThrottling: z.number().min(1).max(20).nullable().optional().describe('slow the CPU down this many times (1: not at all)'),
  headers: z
    .strictObject({ values: Headers, origin: Origin.optional().describe('only requests to this origin carry them') })
    .nullable()
    .optional()
    .describe("extra HTTP headers on every request (or one origin's)"),
  httpCredentials: z
    .strictObject({ username: z.string().max(1000), password: z.string().max(1000), origin: Origin.describe('the one origin they are sent to') })
    .nullable()
    .optional()
    .describe('HTTP Basic credentials, sent to one origin only'),
});
export type EmulationSettings = z.output<typeof EmulationSettingsSchema>;

/** Playwright's names for why a request failed (route.abort). */
export const ABORT_REASONS = [
  'aborted',
  'accessdenied',
  'addressunreachable',
  'blockedbyclient',
  'blockedbyresponse',
  'connectionaborted',
  'connectionclosed',
  'connectionfailed',
  'connectionrefused',
  'connectionreset',
  'internetdisconnected',
  'namenotresolved',
  'timedout',
  'failed',
] as const;

/** A glob as Playwright's page.route takes it: `*` within a path segment, `**` across, `?`, and `{a,b}` (not nested). */
function globProblem(glob: string): string | undefined {
  let open = false;
  for (const char of glob) {
    if (char === '{') {
      if (open) return 'has a { inside another';
      open = true;
    } else if (char === '}') {
      if (!open) return 'has a } with no {';
      open = false;
    }
  }
  return open ? 'has a { that is never closed' : undefined;
}
function regexProblem(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export const CookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string(),
  path: z.string(),
  expires: z.number().describe('Seconds since 1970; -1 for a session cookie'),
  httpOnly: z.boolean(),
  secure: z.boolean(),
  sameSite: z.enum(['Strict', 'Lax', 'None']),
});
export type Cookie = z.infer<typeof CookieSchema>;
const IndexedDbIndexSchema = z.looseObject({
  name: z.string(),
  keyPath: z.string().optional(),
  keyPathArray: z.array(z.string()).optional(),
  multiEntry: z.boolean(),
  unique: z.boolean(),
});
const IndexedDbStoreSchema = z.looseObject({
  name: z.string(),
  autoIncrement: z.boolean(),
  keyPath: z.string().optional(),
  keyPathArray: z.array(z.string()).optional(),
  records: z.array(
    z.looseObject({ key: z.unknown().optional(), keyEncoded: z.unknown().optional(), value: z.unknown().optional(), valueEncoded: z.unknown().optional() }),
  ),
  indexes: z.array(IndexedDbIndexSchema),
});
/** A passkey in Playwright's storage-state shape: base64url id and user handle, PKCS#8 private and SPKI public keys. */
export const StorageCredentialSchema = z.object({
  id: z.string().min(1),
  rpId: z.string().min(1),
  userHandle: z.string(),
  privateKey: z.string().describe('PKCS#8, base64url; "" for all but the token\'s holder'),
  publicKey: z.string(),
  signCount: z.number().int().min(0).optional(),
});
export type StorageCredential = z.infer<typeof StorageCredentialSchema>;
/** Playwright's `storageState` format: cookies, each origin's localStorage and (when asked) IndexedDB, and the passkeys the browser holds. */
export const StorageStateSchema = z.object({
  cookies: z.array(CookieSchema).max(10_000),
  origins: z
    .array(
      z.object({
        origin: z.string().refine((value) => URL.canParse(value) && new URL(value).origin === value, 'must be an origin like https://example.com'),
        localStorage: z.array(z.object({ name: z.string(), value: z.string() })),
        indexedDB: z.array(z.looseObject({ name: z.string(), version: z.number(), stores: z.array(IndexedDbStoreSchema) })).optional(),
      }),
    )
    .max(1000),
  credentials: z
    .array(StorageCredentialSchema)
    .max(100)
    .optional()
    .describe("Passkeys held by the browser's virtual authenticators (a task session lent them, or a site registered them)"),
});
export type StorageState = z.infer<typeof StorageStateSchema>;
export const toolboxSchemas = {
  emulationQuery: z.object({ profile: z.string().optional(), targetId: TargetId.optional() }),
  emulation: EmulationSettingsSchema.extend({ targetId: TargetId.optional(), scope: Scope }),
  emulationReset: z.object({ profile: z.string().optional(), targetId: TargetId.optional(), scope: Scope }),

  /** `POST /routes`: what requests matching a pattern get instead of (or on the way to) the network. */
  route: z
    .strictObject({
      targetId: TargetId.optional(),
      scope: Scope,
      url: z
        .string()
        .min(1)
        .max(2000)
        .superRefine((glob, context) => {
          const problem = globProblem(glob);
          if (problem) context.addIssue({ code: 'custom', message: `is not a glob: it ${problem}` });
        })
        .optional()
        .describe('a glob on the whole URL, as Playwright\'s: "**/api/*", "https://example.com/**"'),
      regex: z
        .string()
        .min(1)
        .max(2000)
        .superRefine((source, context) => {
          const problem = regexProblem(source);
          if (problem) context.addIssue({ code: 'custom', message: `is not a regular expression: ${problem}` });
        })
        .optional()
        .describe('or a regular expression on the whole URL'),
      action: z.enum(['fulfill', 'abort', 'continue']),
      status: z.number().int().min(100).max(599).optional().describe('fulfill: the status (200)'),
      headers: Headers.optional().describe("fulfill: the response's headers; continue: headers added to the request"),
      body: z
        .string()
        .max(5 * 1024 * 1024)
        .optional()
        .describe('fulfill: the body'),
      bodyFile: z.string().min(1).max(4096).optional().describe('fulfill: or a file inside the upload folders'),
      contentType: z.string().max(200).optional(),
      errorReason: z.enum(ABORT_REASONS).optional().describe('abort: why the request fails (blockedbyclient)'),
      times: z.number().int().positive().max(1_000_000).optional().describe('stop after matching this many requests'),
    })
    .refine((route) => (route.url === undefined) !== (route.regex === undefined), { message: 'give url (a glob) or regex, one of them', path: ['url'] })
    .refine((route) => route.action === 'fulfill' || (route.body === undefined && route.bodyFile === undefined && route.status === undefined), {
      message: 'only a fulfil takes a status or a body',
      path: ['action'],
    })
    .refine((route) => !(route.body !== undefined && route.bodyFile !== undefined), { message: 'give body or bodyFile, not both', path: ['bodyFile'] })
    .refine((route) => route.action === 'abort' || route.errorReason === undefined, { message: 'only an abort takes an errorReason', path: ['errorReason'] }),

  /** `POST /init-scripts`: a script run before the page's own, in every document, on every navigation. */
  initScript: z.strictObject({ targetId: TargetId.optional(), scope: Scope, script: z.string().min(1).max(200_000) }),

  cookiesQuery: z.object({
    profile: z.string().optional(),
    url: z
      .string()
      .refine((value) => URL.canParse(value), 'must be an absolute URL')
      .optional()
      .describe('only cookies this URL would be sent'),
    domain: z.string().max(253).optional().describe('only cookies of this domain and its subdomains'),
    name: z.string().max(4096).optional(),
  }),
  setCookies: z.strictObject({
    cookies: z
      .array(
        z
          .strictObject({
            name: z.string().min(1).max(4096),
            value: z.string().max(4096),
            url: z
              .string()
              .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL')
              .optional(),
            domain: z.string().min(1).max(253).optional(),
            path: z.string().startsWith('/').max(4096).optional(),
            expires: z.number().optional().describe('seconds since 1970; left out, a session cookie'),
            httpOnly: z.boolean().optional(),
            secure: z.boolean().optional(),
            sameSite: z.enum(['Strict', 'Lax', 'None']).optional(),
          })
          .refine((cookie) => (cookie.url === undefined) !== (cookie.domain === undefined), {
            message: 'give url, or domain (with path), one of them',
            path: ['url'],
          }),
      )
      .min(1)
      .max(500),
  }),
  clearCookies: z.object({
    profile: z.string().optional(),
    name: z.string().max(4096).optional(),
    domain: z.string().max(253).optional(),
    path: z.string().max(4096).optional(),
  }),

  /** localStorage or sessionStorage of one origin, in a tab showing it (the main frame's, unless `origin` names a frame's). */
  storageQuery: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    kind: z.enum(['local', 'session']).default('local'),
    origin: Origin.optional(),
  }),
  setStorage: z.strictObject({
    targetId: TargetId.optional(),
    kind: z.enum(['local', 'session']).default('local'),
    origin: Origin.optional(),
    items: z.record(z.string().max(1024), z.string().max(5 * 1024 * 1024)).refine((items) => Object.keys(items).length > 0, 'give at least one item'),
  }),
  clearStorage: z.object({
    profile: z.string().optional(),
    targetId: TargetId.optional(),
    kind: z.enum(['local', 'session']).default('local'),
    origin: Origin.optional(),
    key: z.string().max(1024).optional().describe('only this key; left out, every key'),
  }),

  /** `POST /storage/state`: Playwright's format; what the browser held before is replaced. */
  setStorageState: z.strictObject({ state: StorageStateSchema }),
  storageStateQuery: z.object({
    profile: z.string().optional(),
    indexedDB: z
      .enum(['', 'true', '1', 'false', '0'])
      .transform((value) => value !== 'false' && value !== '0')
      .optional(),
  }),
};
