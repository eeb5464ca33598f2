import { z } from 'zod';
import {
  AuditPageSchema,
  IssuedGrantSchema,
  LiveGrantSchema,
  RecordingShotsSchema,
  RefreshSessionSchema,
  SavedCookiesSchema,
  SecretListingSchema,
  SessionInfoSchema,
  SessionListSchema,
  VaultListingSchema,
} from './session-responses.js';
import { schemas } from './schemas.js';
import type { RouteSpec } from './route-spec.js';

/** Task sessions, their audit, grants, secrets and the cookie vault (spec §11); spread into api/routes.ts's table and bound by server/session-routes.ts. */

export const SESSION_ROUTES = {
  'POST /sessions': {
    summary: 'Open a task session: a throwaway browser, optionally with a tenant\'s logins under a grant',
    tag: 'Sessions',
    body: schemas.openSession,
    answer: SessionInfoSchema,
    status: 201,
    errors: [403, 409, 429, 503, 504],
  },
  'GET /sessions': { summary: 'Open task sessions, and the warm spare browsers', tag: 'Sessions', answer: SessionListSchema },
  'DELETE /sessions/:id': { summary: 'End a task session: its browser and everything it wrote go', tag: 'Sessions', params: { id: 'The session\'s id' }, answer: z.object({ closed: SessionInfoSchema }), errors: [404] },
  'POST /sessions/:id/approvals': {
    summary: "Pre-approve a confirm rule for one task session: its acts run there without a person's yes (the main token only; audited)",
    tag: 'Sessions',
    params: { id: "The session's id" },
    body: schemas.approveRule,
    answer: z.object({ session: z.string(), approved: z.array(z.string()).describe('Every rule pre-approved for it') }),
    errors: [404],
  },
  'POST /sessions/:id/extend': { summary: 'Set a session\'s time to live from now', tag: 'Sessions', params: { id: 'The session\'s id' }, body: schemas.extendSession, answer: z.object({ extended: SessionInfoSchema }), errors: [404] },
  'GET /audit': { summary: 'The audit log, newest first, a page at a time', tag: 'Sessions', query: schemas.auditQuery, answer: AuditPageSchema },
  'GET /audit/recording': {
    summary: 'A session\'s recorded screenshots; with file, one of them as JPEG',
    tag: 'Sessions',
    query: schemas.recordingQuery,
    answer: RecordingShotsSchema,
    errors: [404],
  },
  'GET /grants': { summary: 'Grants that can still be used, and the sessions given cookies under each', tag: 'Vault', answer: z.object({ grants: z.array(LiveGrantSchema) }) },
  'POST /grants': { summary: 'Sign a grant: a tenant\'s cookies of these domains, until its ttl', tag: 'Vault', body: schemas.issueGrant, answer: IssuedGrantSchema, status: 201, errors: [503] },
  'DELETE /grants/:id': { summary: 'Revoke a grant', tag: 'Vault', params: { id: 'The grant\'s id' }, answer: z.object({ revoked: z.string() }), errors: [503] },
  'POST /secrets': { summary: 'Set a named secret of a tenant, bound to the domains it may be typed on (the value is never answered)', tag: 'Vault', body: schemas.setSecret, answer: SecretListingSchema, status: 201, errors: [503] },
  'GET /secrets': { summary: 'Named secrets: tenants, names, domains, dates (never a value)', tag: 'Vault', query: schemas.secretQuery, answer: z.object({ secrets: z.array(SecretListingSchema) }), errors: [503] },
  'DELETE /secrets': { summary: "Forget a tenant's secret (or all its secrets)", tag: 'Vault', query: schemas.secretQuery, answer: z.object({ forgotten: z.array(SecretListingSchema) }), errors: [503] },
  'GET /vault': { summary: 'What the vault holds, per tenant and domain (never a value)', tag: 'Vault', query: schemas.vaultQuery, answer: z.object({ entries: z.array(VaultListingSchema) }), errors: [503] },
  'DELETE /vault': { summary: 'Forget a tenant\'s cookies (of one domain, or all)', tag: 'Vault', query: schemas.vaultQuery, answer: z.object({ forgotten: z.array(VaultListingSchema) }), errors: [503] },
  'POST /vault/refresh': { summary: 'A session a person drives to log in; its cookies are saved when they say done', tag: 'Vault', body: schemas.vaultRefresh, answer: RefreshSessionSchema, status: 201, errors: [409, 429, 503, 504] },
  'POST /vault/refresh/:id/done': { summary: 'Save the refresh session\'s cookies and end it', tag: 'Vault', params: { id: 'The refresh session\'s id' }, body: schemas.vaultRefreshDone, answer: z.object({ saved: SavedCookiesSchema }), errors: [404, 503] },
  'POST /vault/from-extension': {
    summary: 'Save cookies from the user\'s own Chrome, for the domains the person allows in the extension',
    tag: 'Vault',
    body: schemas.vaultFromExtension,
    answer: z.object({ saved: SavedCookiesSchema, refused: z.array(z.string()) }),
    errors: [403, 503, 504],
  },
} satisfies Record<string, RouteSpec>;
