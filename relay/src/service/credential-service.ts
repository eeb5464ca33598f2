import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { MAX_WAIT_MS, type schemas } from '../api/schemas.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import type { ActionLog } from '../runtime/action-log.js';
import { abortable, runOperation } from '../runtime/operation.js';
import type { LiveGrant, SessionInfo } from '../api/session-responses.js';
import type { TaskSessions } from '../sessions/task-sessions.js';
import type { AuditTrail, AuditQuery } from '../vault/audit-log.js';
import type { CookieVault } from '../vault/cookie-vault.js';
import type { SecretStore } from '../vault/secret-store.js';
import type { SecretListing } from '../api/session-responses.js';
import { loginWarnings } from '../vault/login-expiry.js';
import type { HandoffNoticeEvent } from './handoff-service.js';
import type { Grants } from '../vault/grants.js';

/**
 * Task sessions, grants and the cookie vault (spec §11), for every surface
 * (the HTTP routes today). Every injection, save, grant and revocation is
 * audited here or in TaskSessions, never with a cookie value.
 */

export interface Credentials {
  sessions: TaskSessions;
  vault: () => CookieVault;
  /** Named secrets (secret-store.ts). */
  secrets: () => SecretStore;
  grants: () => Grants;
  audit: AuditTrail;
  /** The relay's way to ask the person, in the extension, which domains' cookies may be saved. */
  askConsent: (tenant: string, domains: string[], timeoutMs: number) => Promise<string[]>;
  /** The key hand-off webhooks are signed with (state-dir.ts), when this server may announce hand-offs. */
  webhookKey?: () => Buffer;
  /** Tells the person at the user's Chrome of a hand-off on a shared tab (the extension's badge and a notification). */
  noticeHandoff?: (notice: HandoffNoticeEvent) => void;
}

/** How TaskSessions.recordAction names a screenshot: its number, then the action's kind. */
const RECORDED_SHOT = /^\d{4}-([A-Za-z-]+)\.jpeg$/;

/** Where a session's actions are logged when it has no profile name yet. */
const SESSIONS_LOG_PROFILE = 'sessions';

export class CredentialService {
  constructor(
    private readonly credentials: Credentials,
    private readonly manager: ProfileManager,
    private readonly actionLog: ActionLog,
  ) {}

  /**
   * A task session, opened as an operation like any browser launch
   * (cancelled with its caller, bounded, logged) once it is admitted: a
   * request beyond capacity waits in the admission queue first (outside the
   * action timeout, which bounds the start itself); a caller that leaves,
   * leaves the queue. A session the caller left while it started is closed
   * as soon as it exists, not left to its ttl.
   */
  async openSession(request: z.output<typeof schemas.openSession>, signal?: AbortSignal, options: { refresh?: boolean } = {}): Promise<SessionInfo> {
    const { sessions } = this.credentials;
    const slot = await sessions.admission.enter(signal);
    let handed = false;
    const settings = { actionTimeoutMs: this.manager.registry.config().actionTimeoutMs, log: this.actionLog };
    const kind = options.refresh ? 'vault-refresh' : 'session-open';
    return runOperation(
      { profile: SESSIONS_LOG_PROFILE, kind },
      settings,
      async (bounded) => {
        // runOperation calls its work even for a caller gone already: no browser starts for nobody.
        if (bounded.aborted) throw bounded.reason;
        handed = true;
        const opening = sessions.open(request, { ...options, slot });
        try {
          return await abortable(opening, bounded);
        } catch (error) {
          if (bounded.aborted)
            opening
              .then(
                (info) => sessions.close(info.id, 'its caller left while it started'),
                () => {},
              )
              .catch(() => {});
          throw error;
        }
      },
      signal,
    ).finally(() => {
      // Refused before its start ran (its caller had gone): the slot was never the session's.
      if (!handed) slot.release();
    });
  }
  /** This server's sessions, and in a fleet every other server's too (its spares are its own). */
  async listSessions() {
    return { sessions: await this.credentials.sessions.listFleet(), spares: this.credentials.sessions.spareCounts() };
  }
  async closeSession(id: string) {
    return { closed: await this.credentials.sessions.close(id) };
  }

  async issueGrant(request: z.output<typeof schemas.issueGrant>) {
    const { tenant, domains, ttl, origin_session_id, secrets } = request;
    const held = secrets?.length ? await this.credentials.secrets().list(tenant) : [];
    const missing = (secrets ?? []).filter((name) => !held.some((secret) => secret.name === name));
    if (missing.length) throw new NotFoundError(`Tenant ${tenant} has no secret ${missing.join(', ')}: set it first (clawd-browser secret-set)`);
    const issued = this.credentials.grants().issue({ tenant, domains, ttlMs: ttl * 1000, originSessionId: origin_session_id, secrets });
    const warnings = loginWarnings(
      tenant,
      issued.grant.allowed_domains,
      (await this.credentials.vault().load(tenant, issued.grant.allowed_domains)).cookies,
      issued.grant.expires_at,
    );
    this.credentials.audit.record({
      event: 'grant',
      tenant,
      domains: issued.grant.allowed_domains,
      grantId: issued.grant.id,
      expiresAt: new Date(issued.grant.expires_at).toISOString(),
      outcome: 'ok',
      detail: `expires ${new Date(issued.grant.expires_at).toISOString()}${secrets?.length ? `; secrets ${secrets.join(', ')}` : ''}${warnings.length ? `; ${warnings.join('; ')}` : ''}`,
    });
    return warnings.length ? { ...issued, warnings } : issued;
  }

  /**
   * Grants that can still be used: tokens are held only by whom they were
   * given to, so the audit log is where issued grants are known; revoked and
   * expired ones drop out. Each says which sessions were given cookies under it.
   */
  async liveGrants(): Promise<{ grants: LiveGrant[] }> {
    const grants = new Map<string, LiveGrant>();
    const now = Date.now();
    for (const entry of await this.credentials.audit.grantEntries()) {
      if (!entry.grantId) continue;
      if (entry.event === 'grant' && entry.outcome === 'ok' && entry.tenant) {
        const expiresAt = entry.expiresAt ?? /expires (\S+)/.exec(entry.detail ?? '')?.[1];
        if (expiresAt)
          grants.set(entry.grantId, { id: entry.grantId, tenant: entry.tenant, domains: entry.domains ?? [], issuedAt: entry.time, expiresAt, sessions: [] });
      } else if (entry.event === 'grant-revoked') grants.delete(entry.grantId);
      else if (entry.event === 'inject' && entry.outcome === 'ok' && entry.session) grants.get(entry.grantId)?.sessions.push(entry.session);
    }
    return { grants: [...grants.values()].filter((grant) => Date.parse(grant.expiresAt) > now).reverse() };
  }

  audit(query: AuditQuery) {
    return this.credentials.audit.query(query);
  }

  /** A recorded session's screenshots (`record: audit|transient`), oldest first: one per action. */
  recording(session: string) {
    const dir = this.credentials.sessions.recordingDir(session);
    const shots = existsSync(dir)
      ? readdirSync(dir)
          .filter((file) => RECORDED_SHOT.test(file))
          .sort()
          .map((file) => ({ file, action: RECORDED_SHOT.exec(file)![1], time: statSync(join(dir, file)).mtime.toISOString() }))
      : [];
    return { session, shots };
  }
  recordedShot(session: string, file: string): Buffer {
    if (!RECORDED_SHOT.test(file)) throw new BadRequestError(`${JSON.stringify(file)} is not a recorded screenshot's name`);
    const path = join(this.credentials.sessions.recordingDir(session), file);
    if (!existsSync(path)) throw new NotFoundError(`Session ${session} has no recorded screenshot ${file}`);
    return readFileSync(path);
  }

  /** A session's ttl from now (the operator gives it more time, or less). */
  async extendSession(id: string, ttlSeconds: number) {
    return { extended: await this.credentials.sessions.extend(id, ttlSeconds) };
  }
  async revokeGrant(id: string) {
    await this.credentials.grants().revoke(id);
    this.credentials.audit.record({ event: 'grant-revoked', grantId: id, outcome: 'ok' });
    return { revoked: id };
  }

  async vault(tenant?: string) {
    return { entries: await this.credentials.vault().list(tenant) };
  }
  async forget(tenant: string | undefined, domain?: string) {
    if (!tenant) throw new BadRequestError('Give the tenant whose cookies to forget (and a domain, or all of its domains go)');
    const forgotten = await this.credentials.vault().forget(tenant, domain);
    this.credentials.audit.record({ event: 'vault-forget', tenant, domains: forgotten.map((entry) => entry.domain), outcome: 'ok' });
    return { forgotten };
  }

  /** A session a person drives to log in; `refreshDone` saves its cookies for the domains and ends it. */
  async refresh(request: z.output<typeof schemas.vaultRefresh>, signal?: AbortSignal) {
    const { tenant, domains, ttl } = request;
    const session = await this.openSession({ credential_mode: 'clean', tenant, domains, ttl: ttl ?? 900 }, signal, { refresh: true });
    return { ...session, liveView: `/screencast?profile=${session.profile}`, done: `/vault/refresh/${session.id}/done` };
  }
  async refreshDone(id: string, domains?: string[]) {
    return { saved: await this.credentials.sessions.saveRefresh(id, domains) };
  }

  // ---- named secrets: their values come in, never go out ----

  async setSecret(request: z.output<typeof schemas.setSecret>): Promise<SecretListing> {
    const listing = await this.credentials.secrets().set(request.tenant, request.name, request.domains, request.value, request.kind);
    this.credentials.audit.record({
      event: 'secret-set',
      tenant: request.tenant,
      domains: listing.domains,
      outcome: 'ok',
      detail: request.kind === 'totp' ? `${listing.name} (one-time code seed)` : listing.name,
    });
    return listing;
  }
  async secrets(tenant?: string): Promise<{ secrets: SecretListing[] }> {
    return { secrets: await this.credentials.secrets().list(tenant) };
  }
  async forgetSecret(tenant: string, name?: string): Promise<{ forgotten: SecretListing[] }> {
    const forgotten = await this.credentials.secrets().forget(tenant, name);
    this.credentials.audit.record({ event: 'secret-forget', tenant, outcome: 'ok', detail: forgotten.map((secret) => secret.name).join(', ') });
    return { forgotten };
  }

  /**
   * Saves cookies from the user's own browser: the person confirms in the
   * extension which of the domains may go; only those are read (through the
   * extension profile, scoped to the shared tabs' sites) and saved, with the
   * localStorage of the shared tabs showing them.
   */
  async fromExtension(request: z.output<typeof schemas.vaultFromExtension>) {
    const { tenant, domains, timeoutMs } = request;
    const { audit } = this.credentials;
    // Only domains it was asked about, whatever the answer holds.
    const allowed = (await this.credentials.askConsent(tenant, domains, timeoutMs ?? MAX_WAIT_MS)).filter((domain) => domains.includes(domain));
    if (!allowed.length) {
      audit.record({ event: 'extension-saved', tenant, domains, outcome: 'refused', detail: 'not confirmed in the extension' });
      throw new ForbiddenError(`Not saved: the person did not allow ${domains.join(', ')} in the clawd-browser extension`);
    }
    const extension = this.manager.driver('extension');
    // The shared tabs' localStorage goes with the cookies (IndexedDB comes through a refresh session).
    const saved = await this.credentials.vault().saveFromBrowser(tenant, allowed, await extension.cookies(), await extension.toolbox.openTabsStorage());
    const detail = saved.map((s) => `${s.domain}: ${s.cookies} cookies${s.origins ? `, ${s.origins} origins` : ''}`).join(', ');
    audit.record({ event: 'extension-saved', tenant, domains: allowed, outcome: 'ok', detail });
    return { saved, refused: domains.filter((domain) => !allowed.includes(domain)) };
  }
}
