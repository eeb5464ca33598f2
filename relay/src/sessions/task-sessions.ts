import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialMode, RecordMode, SessionInfo, SpareCounts } from '../api/session-responses.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { BadRequestError, type ClawdError, DisabledError, GoneError, NotFoundError, UnavailableError } from '../errors.js';
import { AdmissionQueue, type Slot } from './admission-queue.js';
import { type KeyOwner, SessionKeys } from './session-keys.js';
import { type EgressCounters, sumCounters } from '../egress/egress-proxy.js';
import type { GridSettings } from '../profiles/grid-session.js';
import type { Logger } from '../log.js';
import { SESSION_PROFILE_PREFIX } from '../profiles/profile-registry.js';
import type { AuditTrail } from '../vault/audit-log.js';
import type { CookieVault } from '../vault/cookie-vault.js';
import { auditSecretUse, grantedLending, lendLogin, secretOpener } from './lent-login.js';
import type { SecretStore } from '../vault/secret-store.js';
import type { SecretOpener } from '../driver/secrets/secret-typing.js';
import type { Grants } from '../vault/grants.js';
import { SparePool } from './spare-pool.js';
import { type Isolation, type IsolationSettings } from './session-isolation.js';
import { type Prepared, SessionBrowsers } from './session-browsers.js';
import type { RegisteredSession, SessionRegistry } from './session-registry.js';
import type { GridEndpoint } from '../driver/grid-endpoint.js';

/**
 * Task sessions (spec §11): an ephemeral managed browser per task, its
 * user-data dir cloned from a credential-free template, reachable by every
 * route as the profile `session-<id>` (and over CDP at the relay's
 * `/cdp?profile=session-<id>`, with the session's key or the token),
 * destroyed at the end with nothing left behind. An `operator` session gets
 * the cookies of the domains its grant allows, injected over CDP before its
 * first page. Sessions expire after their ttl; a cap bounds how many run.
 */

export interface SessionRequest {
  credential_mode: CredentialMode;
  tenant?: string;
  domains?: string[];
  grant?: string;
  record?: RecordMode;
  /** Seconds. */
  ttl?: number;
  place?: 'local' | 'grid';
  /** Loopback or private hosts it may reach beyond config.json's urlPolicy.private (only the token opens sessions). */
  allowPrivate?: string[];
}

/** Films of sessions opened with `record: "video"` (service/film-service.ts): begun at the start, made and kept at the end. */
export interface SessionFilms {
  start(profile: string): Promise<void>;
  /** Stops filming (the browser still lives); what it returns makes the film, once the browser is gone. */
  stop(profile: string): Promise<() => Promise<void>>;
}

interface Session {
  info: SessionInfo;
  isolation?: Isolation;
  /** The digest of the session's own key (SessionInfo.key, shown once to its opener and kept nowhere). */
  keyDigest: string;
  driver: ProfileDriver;
  dir: string;
  timer: NodeJS.Timeout;
  actions: number;
  /** Its admission slot, freed when it ends. */
  slot: Slot;
  /** Its browser on a Selenium Grid, when it runs there. */
  grid?: GridEndpoint;
  /** The fleet's registry lists it as this server's (from then on, the fleet may take it back). */
  registered: boolean;
}

export interface TaskSessionSettings {
  maxSessions: number;
  /** config sessionQueue: requests that may wait for a slot, and how long (admission-queue.ts). */
  queue: { max: number; waitSeconds: number };
  /** Seconds, when a request gives none. */
  defaultTtl: number;
  /** Browsers kept cloned, started and holding a blank page (after the first session): config sessionSpares. */
  spares: number;
  /** config `enabled`: false refuses sessions as it refuses every browser (503). */
  enabled: boolean;
  /** config `grid`: where `place: "grid"` sessions go (and all of them, with `default`). */
  grid?: GridSettings & { default: boolean };
  /** config sessionIsolation and sessionLimits (session-isolation.ts). */
  isolation: IsolationSettings;
}

export class TaskSessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions' own keys, kept as digests (session-keys.ts). */
  private readonly keys = new SessionKeys();
  /**
   * Browsers cloned, started and holding a blank page ahead of need, once a
   * first session shows sessions are used: the next sessions skip the
   * launch. Each is its own clone of the template, as credential-free as it:
   * cookies come only at hand-over.
   */
  private readonly spares: SparePool<Prepared>;
  /** Where sessions' browsers come from: cloned and started here, or asked of the Grid (session-browsers.ts). */
  private readonly browsers: SessionBrowsers;
  private films: SessionFilms | undefined;
  private readonly endListeners: Array<(id: string) => void> = [];
  /** Who may open a session now, and who waits (admission-queue.ts). */
  readonly admission: AdmissionQueue;
  /** What the ways out of ended sessions carried and refused (their proxies are gone), for the totals. */
  private endedEgress: EgressCounters = sumCounters();

  constructor(
    private readonly home: string,
    private readonly deps: {
      log: Logger;
      /** Where session browsers come from and go back to (driver/profile-manager.ts). */
      manager: ProfileManager;
      settings: () => TaskSessionSettings;
      vault: () => CookieVault;
      /** Named secrets, sealed with the vault's key (secret-store.ts). */
      secrets: () => SecretStore;
      grants: () => Grants;
      audit: AuditTrail;
      /** The fleet's registry, when the server has a store (spec §18): every session is listed there too. */
      registry?: SessionRegistry;
    },
  ) {
    this.admission = new AdmissionQueue(
      () => {
        const { maxSessions, queue } = this.deps.settings();
        return { capacity: maxSessions, queue: queue.max, waitMs: queue.waitSeconds * 1000 };
      },
      // A slot frees at the latest when the soonest session's ttl runs out.
      () => Math.min(60, ...[...this.sessions.values()].map((session) => (Date.parse(session.info.expiresAt) - Date.now()) / 1000)),
    );
    this.browsers = new SessionBrowsers(this.root, {
      manager: deps.manager,
      log: deps.log,
      isolation: () => this.deps.settings().isolation,
      limitPassed: (id, why) => this.limitPassed(id, why),
    });
    this.spares = new SparePool({
      wanted: () => this.deps.settings().spares,
      make: () => this.browsers.prepare({ warm: true }),
      usable: (prepared) => prepared.driver.connected,
      discard: (prepared) => this.browsers.discard(prepared),
      onFailure: (error) => this.deps.log.warn(`a spare session browser failed to start: ${error.message}`),
    });
  }

  /** Who makes the films of `record: "video"` sessions (the server, once its services exist). */
  filmWith(films: SessionFilms): void {
    this.films = films;
  }

  /** Told of each session that ends, once it has (what was held for it elsewhere goes too: its key's MCP sessions). */
  whenEnded(listener: (id: string) => void): void {
    this.endListeners.push(listener);
  }

  get root(): string {
    return join(this.home, 'sessions');
  }

  /** Audit screenshots of `record: audit|transient` sessions: outside every session dir. */
  recordingDir(id: string): string {
    return join(this.home, 'audit', id);
  }

  /**
   * Whose key this is: a live session's, one that ended (and when), or
   * nobody's. Keys are looked up by their SHA-256 digest, so the lookup's
   * timing says nothing about any key.
   */
  keyOwner(secret: string): KeyOwner {
    return this.keys.owner(secret);
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((session) => ({ ...session.info, ...(session.isolation ? { egress: session.isolation.envelope.counters() } : {}) }));
  }

  /** This server's sessions, then (with a store) those the fleet's other servers hold. */
  async listFleet(): Promise<SessionInfo[]> {
    const others = (await this.deps.registry?.othersLive()) ?? [];
    return [...this.list(), ...others.filter((other) => !this.sessions.has(other.id)).map((other) => other.info)];
  }

  /** The spares (config sessionSpares): started and holding their blank page, or on their way. */
  spareCounts(): SpareCounts {
    return this.spares.counts();
  }

  /** What a call on an ended session's name is told: when it ended, and why. */
  private static endedError(id: string, reason: string): NotFoundError {
    const at = new Date().toISOString();
    const how = reason === 'ttl' ? `expired at ${at} (its ttl ran out)` : `ended at ${at} (${reason})`;
    return new NotFoundError(`Task session ${id} ${how}`, { next: 'open-session', session: id, endedAt: at });
  }

  /**
   * Opens a session in an admission slot: `slot` when the caller waited for
   * one (admission.enter), else one free now (a 429 when none is). The slot
   * is the session's until it ends; freed at once if it fails to start.
   */
  async open(request: SessionRequest, options: { refresh?: boolean; slot?: Slot } = {}): Promise<SessionInfo> {
    if (!this.deps.settings().enabled) {
      options.slot?.release();
      throw new DisabledError();
    }
    const held: { slot?: Slot } = { slot: options.slot ?? (await this.admission.enter()) };
    try {
      return await this.begin(request, options, held);
    } catch (error) {
      held.slot?.release();
      throw error;
    }
  }

  /** What open does with its slot: `held.slot` becomes the session's once it is registered. */
  private async begin(request: SessionRequest, options: { refresh?: boolean }, held: { slot?: Slot }): Promise<SessionInfo> {
    const settings = this.deps.settings();
    const asked = (request.domains ?? []).map((domain) => domain.toLowerCase());
    // An operator session is lent only what its grant allows (lent-login.ts).
    const { domains, grantId, secrets } =
      request.credential_mode === 'operator' && !options.refresh
        ? await grantedLending(request, asked, this.deps)
        : { domains: asked, grantId: undefined, secrets: [] };
    // A refresh session is driven by a person here: it stays on this machine.
    const place = options.refresh ? 'local' : (request.place ?? (settings.grid?.default ? 'grid' : 'local'));
    if (place === 'grid' && !settings.grid) throw new BadRequestError('place "grid" needs a Selenium Grid in config.json ("grid": {"url": …})');
    // On the Grid, its queue and nodes decide; here, a warm spare (cloned and started ahead) when there is one, else a cold start.
    const prepared = place === 'grid' ? await this.browsers.prepareOnGrid(settings.grid!) : ((await this.spares.take()) ?? (await this.browsers.prepare()));
    prepared.isolation?.inUse();
    const { id, dir, driver } = prepared;
    const ttl = request.ttl ?? settings.defaultTtl;
    const record: RecordMode = request.record ?? 'off';
    const info: SessionInfo = {
      id,
      profile: driver.profile.name,
      credential_mode: options.refresh ? 'refresh' : request.credential_mode,
      ...(request.tenant ? { tenant: request.tenant } : {}),
      domains,
      injectedCookies: 0,
      ...(grantId ? { grantId } : {}),
      ...(secrets.length ? { secrets } : {}),
      record,
      place,
      ...(prepared.grid?.node ? { node: prepared.grid.node } : {}),
      ...(prepared.isolation
        ? { isolation: prepared.isolation.isolation, ...(prepared.isolation.isolationNote ? { isolationNote: prepared.isolation.isolationNote } : {}) }
        : {}),
      cdpUrl: this.deps.manager.cdpUrlOf(driver),
      ...(request.allowPrivate?.length ? { allowPrivate: request.allowPrivate } : {}),
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + ttl * 1000).toISOString(),
      cdpClients: 0,
    };
    const { key, digest } = this.keys.issue(id);
    this.hold(info, { isolation: prepared.isolation, keyDigest: digest, driver, dir, slot: held.slot!, grid: prepared.grid, registered: false });
    held.slot = undefined;
    try {
      await this.deps.registry?.opened(info, digest, prepared.grid?.placement);
      this.sessions.get(id)!.registered = true;
      if (record === 'video') {
        if (!this.films) throw new UnavailableError('This server makes no films: record "video" is not available here');
        await this.films.start(driver.profile.name);
      }
      if (request.credential_mode === 'operator' && !options.refresh) await lendLogin(driver, info, this.deps);
      // The person's refresh session keeps the passkeys they register (a virtual authenticator in each tab), for the vault.
      if (options.refresh) await driver.passkeys.hold([], await driver.allTabs());
    } catch (error) {
      await this.close(id, 'failed to start').catch(() => {});
      throw error;
    }
    if (place === 'local') this.spares.refill();
    this.deps.audit.record({
      event: options.refresh ? 'refresh-start' : 'session-start',
      tenant: request.tenant,
      session: id,
      domains,
      grantId,
      outcome: 'ok',
    });
    return { ...info, key };
  }

  /** Session `info` is this server's to answer for from now on: its timer runs, its browser is served. */
  private hold(info: SessionInfo, held: Omit<Session, 'info' | 'timer' | 'actions'>): void {
    const { id } = info;
    const timer = setTimeout(() => void this.close(id, 'ttl').catch(() => {}), Math.max(0, Date.parse(info.expiresAt) - Date.now()));
    timer.unref();
    this.sessions.set(id, { ...held, info, timer, actions: 0 });
    this.deps.manager.allowPrivate(held.driver.profile.name, info.allowPrivate ?? []);
    this.deps.manager.expose(held.driver);
    // A Grid that loses the browser (its node died, its session timeout) ends the session: later calls hear why (410).
    if (held.grid)
      held.grid.onLost = (why) => {
        this.deps.log.warn(`task session ${id} was ${why}: reaping it`);
        void this.close(id, why, new GoneError(`Task session ${id} was ${why}; it has been reaped`, { next: 'open-session', session: id })).catch(() => {});
      };
  }

  /** Whether this server holds session `id`'s browser. */
  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /**
   * A Grid session taken over from a lost server of the fleet (fleet-sessions.ts):
   * its browser attached to as it is (same tabs, same pages), its key opening
   * it here. It takes a slot even beyond capacity: it exists already.
   */
  async adopt(registered: RegisteredSession, keyDigest: string): Promise<void> {
    const grid = this.deps.settings().grid;
    if (!grid || !registered.grid) throw new UnavailableError('This server has no Selenium Grid in config.json to take the session over on');
    const prepared = await this.browsers.prepareOnGrid(grid, { id: registered.id, placement: registered.grid });
    const info: SessionInfo = { ...registered.info, cdpUrl: this.deps.manager.cdpUrlOf(prepared.driver), cdpClients: 0 };
    this.keys.adopt(keyDigest, registered.id);
    this.hold(info, { keyDigest, driver: prepared.driver, dir: prepared.dir, slot: this.admission.takeNow(), grid: prepared.grid, registered: true });
  }

  /** The sessions the fleet's registry lists as this server's, and whether each runs on a Grid. */
  registeredSessions(): Array<{ id: string; grid: boolean }> {
    return [...this.sessions.values()].filter((session) => session.registered).map((session) => ({ id: session.info.id, grid: session.grid !== undefined }));
  }

  /**
   * The fleet no longer counts session `id` as this server's (another server
   * took it over, or marked it lost or ended), or this server could not
   * renew its lease: it stops answering for it. A Grid session's browser is
   * left running for the server that holds it now; a browser of this
   * machine goes, as the fleet has already said.
   */
  async letGo(id: string, why: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.deps.log.warn(`task session ${id}: ${why}; this server lets go of it`);
    if (!session.grid) return void (await this.close(id, why).catch(() => {}));
    this.sessions.delete(id);
    clearTimeout(session.timer);
    this.keys.forget(session.keyDigest);
    session.grid.letGo();
    await this.deps.manager.release(session.driver);
    await this.browsers.clearAway(session.dir);
    session.slot.release();
  }

  /** A jail's limit was passed: that session alone ends, its calls answer 410 saying why, and the audit says it too. */
  private limitPassed(id: string, why: string): void {
    const session = this.sessions.get(id);
    if (!session) return void this.deps.log.warn(`a spare session browser ${why}`);
    this.deps.log.warn(`task session ${id} ${why}: ending it`);
    this.deps.audit.record({ event: 'session-limit', tenant: session.info.tenant, session: id, outcome: 'refused', detail: why });
    void this.close(id, why, new GoneError(`Task session ${id} ${why}; it has been ended`, { next: 'open-session', session: id })).catch(() => {});
  }

  /**
   * Tears a session down in a fixed order: the browser (its process group:
   * TERM, then KILL after a grace), then its port (checked free), then its
   * dir; transient recordings go too.
   */
  async close(id: string, reason = 'closed', endedBy?: ClawdError): Promise<SessionInfo> {
    // Ended by what happened to it (a limit, a lost node), not by a caller: its key's holder is told why too.
    const ended = endedBy ?? TaskSessions.endedError(id, reason);
    const session = this.sessions.get(id);
    if (!session) throw this.deps.manager.endedError(`${SESSION_PROFILE_PREFIX}${id}`) ?? new NotFoundError(`No task session ${id}`, { next: 'list-sessions' });
    this.sessions.delete(id);
    clearTimeout(session.timer);
    // Its key is remembered (as a digest) so that a late caller hears the session ended, not that the key is wrong.
    this.keys.end(session.keyDigest, id, endedBy?.message);
    // The fleet hears it too: a call through any server is told it ended.
    await this.deps.registry
      ?.ended(id, endedBy?.message)
      .catch((error: Error) => this.deps.log.warn(`the store did not hear that task session ${id} ended: ${error.message}`));
    // Its filming stops while the browser lives; the film is made once the browser is gone (a film that cannot be made is logged, and the session still ends).
    const filmNotMade = (error: Error) => this.deps.log.warn(`the film of task session ${id} was not made: ${error.message}`);
    const makeFilm = session.info.record === 'video' && this.films ? await this.films.stop(session.driver.profile.name).catch(filmNotMade) : undefined;
    // Remembered by the manager, so a late caller hears that it ended, not that it never was.
    await this.deps.manager.release(session.driver, ended);
    await this.browsers.clearAway(session.dir, session.isolation?.dataDir);
    if (session.info.record === 'transient') rmSync(this.recordingDir(id), { recursive: true, force: true });
    await makeFilm?.().catch(filmNotMade);
    if (session.isolation) this.endedEgress = sumCounters(this.endedEgress, session.isolation.envelope.counters());
    session.slot.release();
    // Its HAR exports and traces go with it; those exported with `keep` are under recordings/kept/.
    rmSync(join(this.home, 'recordings', `${SESSION_PROFILE_PREFIX}${id}`), { recursive: true, force: true });
    this.deps.audit.record({
      event: 'session-stop',
      tenant: session.info.tenant,
      session: id,
      domains: session.info.domains,
      grantId: session.info.grantId,
      outcome: 'ok',
      detail: reason,
    });
    for (const listener of this.endListeners) listener(id);
    return session.info;
  }

  /** What task sessions' ways out carried and refused, ended sessions included (GET /metrics). */
  egressTotals(): EgressCounters {
    return sumCounters(this.endedEgress, ...[...this.sessions.values()].map((session) => session.isolation?.envelope.counters()));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...[...this.sessions.keys()].map((id) => this.close(id, 'server stopping').catch(() => {})), this.spares.close()]);
  }

  /**
   * A CDP client joined a session's browser (relay `/cdp?profile=session-<id>`):
   * audited with the credential it presented, and again when it leaves.
   */
  cdpJoined(profileName: string, credential: string): () => void {
    const session = profileName.startsWith(SESSION_PROFILE_PREFIX) ? this.sessions.get(profileName.slice(SESSION_PROFILE_PREFIX.length)) : undefined;
    if (!session) return () => {};
    const { tenant, id } = session.info;
    session.info.cdpClients++;
    this.deps.audit.record({ event: 'cdp-connect', tenant, session: id, outcome: 'ok', detail: `credential: ${credential}` });
    return () => {
      session.info.cdpClients--;
      this.deps.audit.record({ event: 'cdp-disconnect', tenant, session: id, outcome: 'ok', detail: `credential: ${credential}` });
    };
  }

  /** Gives a session `ttlSeconds` from now (more or less time than it had); audited. */
  async extend(id: string, ttlSeconds: number): Promise<SessionInfo> {
    const session = this.sessions.get(id);
    if (!session) throw this.deps.manager.endedError(`${SESSION_PROFILE_PREFIX}${id}`) ?? new NotFoundError(`No task session ${id}`, { next: 'list-sessions' });
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString();
    // The fleet's record first: a server that takes the session over keeps the time it was given.
    await this.deps.registry?.extended(id, expiresAt);
    clearTimeout(session.timer);
    session.timer = setTimeout(() => void this.close(id, 'ttl').catch(() => {}), ttlSeconds * 1000);
    session.timer.unref();
    session.info.expiresAt = expiresAt;
    this.deps.audit.record({ event: 'session-extended', tenant: session.info.tenant, session: id, outcome: 'ok', detail: `expires ${session.info.expiresAt}` });
    return { ...session.info };
  }

  /** After an action on a recorded session: one screenshot, outside the session dir. */
  async recordAction(profileName: string, kind: string, targetId: string | undefined): Promise<void> {
    const id = profileName.slice(SESSION_PROFILE_PREFIX.length);
    const session = profileName.startsWith(SESSION_PROFILE_PREFIX) ? this.sessions.get(id) : undefined;
    if (!session || session.info.record === 'off') return;
    const jpeg = await session.driver.thumbnail(targetId).catch(() => undefined);
    if (!jpeg) return;
    const dir = this.recordingDir(id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `${String(++session.actions).padStart(4, '0')}-${kind.replace(/[^a-z-]/gi, '')}.jpeg`), jpeg, { mode: 0o600 });
  }

  /** How `{{secret:NAME}}` opens on a profile: an operator session's grant's secrets (lent-login.ts); undefined elsewhere. */
  secretOpener(profile: string): SecretOpener | undefined {
    const session = this.byProfile(profile);
    return session && secretOpener(session.info, this.deps.secrets);
  }

  /** Audits secrets typed in a session, by name and host. */
  secretsTyped(profile: string, typed: Parameters<typeof auditSecretUse>[1]): void {
    const session = this.byProfile(profile);
    if (session) auditSecretUse(session.info, typed, this.deps.audit);
  }

  private byProfile(profile: string): Session | undefined {
    return [...this.sessions.values()].find((candidate) => candidate.info.profile === profile);
  }

  /** The refresh session's cookies and sites' storage for `domains`, saved to the vault under `tenant`; then the session goes. */
  async saveRefresh(id: string, domains?: string[]): Promise<Array<{ domain: string; cookies: number; origins: number }>> {
    const session = this.sessions.get(id);
    if (!session || session.info.credential_mode !== 'refresh') throw new NotFoundError(`No vault refresh session ${id}`);
    const tenant = session.info.tenant!;
    const chosen = domains?.length ? domains : session.info.domains;
    const { origins } = await session.driver.toolbox.storageState(true);
    const saved = await this.deps.vault().saveFromBrowser(tenant, chosen, await session.driver.cookies(), origins, await session.driver.passkeys.held());
    const detail = saved
      .map((s) => `${s.domain}: ${s.cookies} cookies${s.origins ? `, ${s.origins} origins` : ''}${s.passkeys ? `, ${s.passkeys} passkeys` : ''}`)
      .join(', ');
    this.deps.audit.record({ event: 'refresh-saved', tenant, session: id, domains: chosen, outcome: 'ok', detail });
    await this.close(id, 'refresh saved');
    return saved;
  }
}
