import { z } from 'zod';
import { FenceSchema } from './fence-schema.js';

/**
 * What the control API answers about task sessions, grants, the cookie
 * vault, the audit and the action log (spec §11, §12), as zod schemas: the
 * types are inferred from them and the OpenAPI document is generated from
 * them (api/openapi.ts).
 */

export const CredentialModeSchema = z.enum(['clean', 'operator']);
export type CredentialMode = z.infer<typeof CredentialModeSchema>;
/** What a session keeps of its actions: nothing, screenshots removed with it, or kept for the audit. */
export const RecordModeSchema = z.enum(['off', 'transient', 'audit', 'video']);
export type RecordMode = z.infer<typeof RecordModeSchema>;

export const AUDIT_EVENT_KINDS = [
  'grant',
  'grant-revoked',
  'refresh-start',
  'refresh-saved',
  'extension-saved',
  'inject',
  'session-start',
  'session-extended',
  'session-limit',
  'session-stop',
  'session-takeover',
  'session-lost',
  'vault-forget',
  'cdp-connect',
  'cdp-disconnect',
  'handoff-open',
  'handoff-end',
  'handoff-announce',
  'login-page',
  'secret-set',
  'secret-forget',
  'secret-use',
  'confirm-ask',
  'confirm-yes',
  'confirm-no',
  'confirm-approve',
] as const;
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number];

/** One line of the audit log (`GET /audit`): never a cookie value or a token. */
export const AuditEntrySchema = z.object({
  time: z.string(),
  event: z.enum(AUDIT_EVENT_KINDS),
  tenant: z.string().optional(),
  session: z.string().optional(),
  domains: z.array(z.string()).optional(),
  grantId: z.string().optional(),
  expiresAt: z.string().optional().describe("A grant's expiry (ISO), on grant entries"),
  outcome: z.enum(['ok', 'refused', 'error']),
  detail: z.string().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
/** `GET /audit`: newest first; `next` is the `before` of the next page. */
export const AuditPageSchema = z.object({ entries: z.array(AuditEntrySchema.extend({ position: z.number().int() })), next: z.number().int().optional() });

/** A grant that can still be used (`GET /grants`): from the audit log, since tokens are kept by no one but their holder. */
export const LiveGrantSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  domains: z.array(z.string()),
  issuedAt: z.string(),
  expiresAt: z.string(),
  sessions: z.array(z.string()).describe('Sessions that were given cookies under it'),
});
export type LiveGrant = z.infer<typeof LiveGrantSchema>;

/** A signed grant's payload: whose cookies, of which domains, until when. */
export const GrantSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  allowed_domains: z.array(z.string()),
  expires_at: z.number().int().describe('Epoch milliseconds'),
  origin_session_id: z.string().optional(),
  allowed_secrets: z.array(z.string()).optional().describe('Named secrets an operator session with this grant may type (by name, never by value)'),
});
export type Grant = z.infer<typeof GrantSchema>;
/** `POST /grants`: the signed token (given once, kept by nobody else) and what it says. */
export const IssuedGrantSchema = z.object({
  token: z.string(),
  grant: GrantSchema,
  warnings: z.array(z.string()).optional().describe('Lent cookies that have expired or will before the grant does, and domains the vault holds nothing for'),
});
export type IssuedGrant = z.infer<typeof IssuedGrantSchema>;

/** `GET /sessions` also tells how many spare browsers are warm (config sessionSpares). */
export const SpareCountsSchema = z.object({
  ready: z.number().int().describe('Started, connected, holding a blank page'),
  starting: z.number().int(),
  wanted: z.number().int().describe('config sessionSpares: the pool is topped up to this after the first session'),
});
export type SpareCounts = z.infer<typeof SpareCountsSchema>;

/** `POST /sessions`, `GET /sessions`. */
export const SessionInfoSchema = z.object({
  id: z.string(),
  profile: z.string().describe('The profile name every control route takes (?profile=session-<id>)'),
  credential_mode: z.union([CredentialModeSchema, z.literal('refresh')]),
  tenant: z.string().optional(),
  domains: z.array(z.string()).describe('Domains whose cookies were injected (operator) or will be saved (refresh)'),
  injectedCookies: z.number().int(),
  injectedOrigins: z.number().int().optional().describe('Origins whose lent storage (localStorage, IndexedDB) was put in before the first page'),
  injectedPasskeys: z.number().int().optional().describe('Lent passkeys its virtual authenticators hold (never their keys)'),
  grantId: z.string().optional(),
  warnings: z.array(z.string()).optional().describe('An operator session: lent cookies that have expired or will before the session ends'),
  secrets: z.array(z.string()).optional().describe('An operator session: the secrets its grant lends, by name (typed as {{secret:NAME}})'),
  record: RecordModeSchema,
  place: z.enum(['local', 'grid']).describe('Where its browser runs: this machine, or a node of the configured Selenium Grid'),
  node: z.string().optional().describe('On a Grid: the node it was placed on'),
  cdpUrl: z.string().describe("The session browser's CDP: the relay's /cdp?profile=session-<id> (with the token or the session's key)"),
  allowPrivate: z.array(z.string()).optional().describe('Loopback or private hosts it may reach beyond urlPolicy.private, as its opener asked'),
  createdAt: z.string(),
  expiresAt: z.string(),
  cdpClients: z.number().int().describe('CDP clients connected to it now (its driver not counted)'),
  isolation: z.enum(['jail', 'process']).optional().describe("A local session's isolation (config sessionIsolation)"),
  isolationNote: z.string().optional().describe('Why a session is not in the jail it would have had, or what its jail lacks'),
  egress: z
    .object({ bytesIn: z.number().int(), bytesOut: z.number().int(), connections: z.number().int(), refused: z.number().int() })
    .optional()
    .describe("Its browser's traffic through its egress proxy, in GET /sessions"),
  key: z
    .string()
    .optional()
    .describe(
      "In POST /sessions's answer only: the session's own key. It opens this session's routes (and MCP scoped to it) and nothing else, and expires with the session",
    ),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
export const SessionListSchema = z.object({ sessions: z.array(SessionInfoSchema), spares: SpareCountsSchema });

/** `POST /vault/refresh`: a session a person drives to log in, where to watch it, and where to say it is done. */
export const RefreshSessionSchema = SessionInfoSchema.extend({ liveView: z.string(), done: z.string() });

/** `GET /vault`: what the vault holds for a (tenant, domain), never a value. */
export const VaultListingSchema = z.object({
  tenant: z.string(),
  domain: z.string(),
  savedAt: z.string(),
  cookies: z.number().int(),
  origins: z.number().int().optional().describe('Origins of the domain whose storage (localStorage, IndexedDB) was saved with the cookies'),
  passkeys: z.number().int().optional().describe('Passkeys of the domain (a refresh session registered them) saved with the cookies'),
});
export type VaultListing = z.infer<typeof VaultListingSchema>;
/** A named secret, as listed: never its value. */
/** What a named secret is: a value typed as it is (`{{secret:NAME}}`), or a one-time code seed whose current code is typed (`{{totp:NAME}}`). */
export const SecretKindSchema = z.enum(['secret', 'totp']);
export type SecretKind = z.infer<typeof SecretKindSchema>;
export const SecretListingSchema = z.object({
  tenant: z.string(),
  name: z.string(),
  domains: z.array(z.string()).describe('Where it may be typed: these domains and their subdomains'),
  savedAt: z.string(),
  kind: z.literal('totp').optional().describe('A one-time code seed: typed as {{totp:NAME}}, its current code (never the seed)'),
});
export type SecretListing = z.infer<typeof SecretListingSchema>;
/** Cookies saved per domain. */
export const SavedCookiesSchema = z.array(
  z.object({ domain: z.string(), cookies: z.number().int(), origins: z.number().int().optional(), passkeys: z.number().int().optional() }),
);

export const ActorSchema = z.enum(['agent', 'person']);
export type Actor = z.infer<typeof ActorSchema>;
export const OutcomeSchema = z.enum(['ok', 'error', 'timeout', 'aborted']);
export type Outcome = z.infer<typeof OutcomeSchema>;

/** One line of the action log (`GET /actions`): never what was typed. */
export const ActionRecordSchema = z.object({
  time: z.string(),
  profile: z.string(),
  targetId: z.string().optional(),
  kind: z.string(),
  ref: z.string().optional(),
  at: z.object({ x: z.number(), y: z.number() }).optional().describe('Where an act by coordinates pressed or began, in CSS pixels of the viewport'),
  url: z.string().optional(),
  durationMs: z.number(),
  outcome: OutcomeSchema,
  error: z.string().optional(),
  actor: ActorSchema,
  /** A browse run's record (`browse_call`, `browse_failed`) or one of its steps (`tool_step`): never the goal, the answer or what was typed. */
  browse: z
    .object({
      run: z.string(),
      provider: z.string().optional(),
      model: z.string().optional(),
      runtime: z.enum(['tools', 'computer']).optional(),
      step: z.number().int().optional().describe('tool_step: which step'),
      tools: z.array(z.string()).optional().describe('tool_step: the tools the model called'),
      steps: z.number().int().optional(),
      inputTokens: z.number().int().optional(),
      outputTokens: z.number().int().optional(),
      screenshots: z.number().int().optional(),
      stoppedBy: z.string().optional(),
    })
    .optional(),
});
export type ActionRecord = z.infer<typeof ActionRecordSchema>;

/** `GET /audit/recording`: a session's recorded screenshots, oldest first, one per action. */
export const RecordingShotsSchema = z.object({ session: z.string(), shots: z.array(z.object({ file: z.string(), action: z.string(), time: z.string() })) });

/** A hand-off to a person (`POST /handoff`, `GET /handoff/{id}`). */
export const HandoffSchema = z.object({
  id: z.string(),
  profile: z.string(),
  targetId: z.string(),
  reason: z.string(),
  state: z
    .enum(['waiting', 'done', 'refused', 'timeout', 'cancelled'])
    .describe("done and refused are the person's answers; timeout: nobody answered in time; cancelled: the agent (or its session) ended it"),
  createdAt: z.string(),
  expiresAt: z.string(),
  endedAt: z.string().optional(),
  note: z.string().optional().describe("The person's note"),
  confirm: z
    .object({
      rule: z.string().describe('The confirm rule of config.json that names the act'),
      act: z.string().describe('The act, as the person reads it'),
      box: z
        .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
        .optional()
        .describe("Its target, as fractions of the tab's viewport"),
    })
    .optional()
    .describe("A hand-off asking a person's yes to one act: done is yes (the act then runs), refused is no"),
  act: z.record(z.string(), z.unknown()).optional().describe("A confirmation the person said yes to: the act's answer (POST /act's), once it ran"),
  actError: z.object({ code: z.string(), message: z.string() }).optional().describe('A confirmation the person said yes to: why the act then failed'),
  link: z
    .string()
    .optional()
    .describe(
      "POST /handoff only: the one-time link for the person (valid 10 minutes, once); never given when a webhook announces hand-offs, nor for a yes to an act (confirm), whose link goes to the person's channels only",
    ),
  askedIn: z
    .array(z.enum(['console', 'extension', 'webhook']))
    .optional()
    .describe(
      "A yes to an act (confirm): where the person is asked (the operator's console always, their own Chrome, the webhook's channel); the agent gets no link",
    ),
  announced: z.literal('webhook').optional().describe("POST /handoff only: the link went to the configured webhook (the person's channel), and to no agent"),
  now: z.object({ url: z.string(), title: z.string() }).optional().describe('Once ended: where the tab is'),
  changed: z
    .object({
      navigated: z.boolean(),
      titleChanged: z.boolean(),
      personActions: z.number().int().describe("The person's clicks, keys and scrolls in the live view"),
    })
    .optional()
    .describe('Once ended: what changed while the person had the tab'),
  fence: FenceSchema.optional(),
});
export type HandoffAnswer = z.infer<typeof HandoffSchema>;
