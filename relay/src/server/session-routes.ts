import { BadRequestError } from '../errors.js';
import type { ConfirmService } from '../service/confirm-service.js';
import type { CredentialService } from '../service/credential-service.js';
import type { RouteBinder } from './route-binder.js';

/**
 * Task sessions, their audit, grants, secrets and the cookie vault over HTTP
 * (api/session-routes.ts, spec §11): thin calls of the credential service;
 * a session's pre-approved confirm rules are the confirmations' own.
 */
export function bindSessionRoutes(routes: RouteBinder, credentials: CredentialService, confirmations: Pick<ConfirmService, 'approve'>): void {
  routes.json('POST /sessions', ({ body, signal }) => credentials.openSession(body, signal));
  routes.json('GET /sessions', () => credentials.listSessions());
  routes.json('DELETE /sessions/:id', ({ params }) => credentials.closeSession(params.id));
  routes.json('POST /sessions/:id/approvals', ({ params, body }) => confirmations.approve(params.id, body.rule));
  routes.json('POST /sessions/:id/extend', ({ params, body }) => credentials.extendSession(params.id, body.ttl));
  routes.json('GET /audit', ({ query }) => credentials.audit(query));
  /** A session's recorded screenshots (record: audit), and one of them as a JPEG with `file`. */
  routes.media('GET /audit/recording', ({ query: { session, file } }, response) => {
    if (file === undefined) return void response.json(credentials.recording(session));
    response.set('cache-control', 'no-store').type('image/jpeg').send(credentials.recordedShot(session, file));
  });
  routes.json('GET /grants', () => credentials.liveGrants());
  routes.json('POST /grants', ({ body }) => credentials.issueGrant(body));
  routes.json('DELETE /grants/:id', ({ params }) => credentials.revokeGrant(params.id));
  routes.json('POST /secrets', ({ body }) => credentials.setSecret(body));
  routes.json('GET /secrets', ({ query }) => credentials.secrets(query.tenant));
  routes.json('DELETE /secrets', ({ query }) => {
    if (!query.tenant) throw new BadRequestError("tenant: say which tenant's secret to forget");
    return credentials.forgetSecret(query.tenant, query.name);
  });
  routes.json('GET /vault', ({ query }) => credentials.vault(query.tenant));
  routes.json('DELETE /vault', ({ query }) => credentials.forget(query.tenant, query.domain));
  routes.json('POST /vault/refresh', ({ body, signal }) => credentials.refresh(body, signal));
  routes.json('POST /vault/refresh/:id/done', ({ params, body }) => credentials.refreshDone(params.id, body.domains));
  routes.json('POST /vault/from-extension', ({ body }) => credentials.fromExtension(body));
}
