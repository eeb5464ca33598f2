import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileDriver } from '../../relay/src/driver/profile-driver.js';
import { ActionLog } from '../../relay/src/runtime/action-log.js';
import { ConfirmConfigSchema, type ConfirmRule } from '../../relay/src/runtime/consequential-acts.js';
import type { PersonStep } from '../../relay/src/replay/person-steps.js';
import type { Operations } from '../../relay/src/service/operation-runner.js';
import type { AuditEntry, SessionInfo, SpareCounts } from '../../relay/src/api/session-responses.js';
import type { AuditEvent, AuditTrail } from '../../relay/src/vault/audit-log.js';
import { NotFoundError } from '../../relay/src/errors.js';
import { AdmissionQueue, type AdmissionLimits, type Slot } from '../../relay/src/sessions/admission-queue.js';
import type { SessionRequest } from '../../relay/src/sessions/task-sessions.js';

/**
 * Fakes for the services' ports, so each service is built alone in a unit
 * test (service/control-assembly.ts wires the real ones): a browser tab
 * that is only a URL and a title, operations that run their work at once
 * and remember what ran, an audit trail in memory, task sessions without
 * browsers. The service under test is always the real one.
 */

/** A tab as a hand-off sees it: where it is, and its title. */
export interface FakeTab {
  targetId: string;
  url: string;
  title: string;
}

/** A profile's driver with tabs, and a consequence each act is said to have (none unless set). */
export function fakeDriver(
  name: string,
  tabs: FakeTab[],
  consequence?: () => { consequence: { rule: string; act: string }; viewport: { width: number; height: number } } | undefined,
): ProfileDriver {
  const tabFor = async (targetId?: string) => {
    const tab = tabs.find((one) => targetId === undefined || one.targetId === targetId);
    if (!tab) throw new Error(`No tab ${targetId}`);
    return { targetId: async () => tab.targetId, page: { url: () => tab.url, title: async () => tab.title } };
  };
  return { profile: { name }, tabFor, consequenceOf: async () => consequence?.() } as unknown as ProfileDriver;
}

/** Drivers by profile name. */
export function fakeDrivers(
  drivers: ProfileDriver[],
  config: { confirm?: Partial<{ rules: ConfirmRule[]; askPerson: 'auto' | 'always' | 'never'; waitSeconds: number }>; handoffWebhook?: { url: string } } = {},
) {
  const confirm = ConfirmConfigSchema.parse(config.confirm ?? {});
  return {
    driver: (profile?: string) => {
      const found = drivers.find((driver) => driver.profile.name === (profile ?? drivers[0].profile.name));
      if (!found) throw new Error(`No profile ${profile}`);
      return found;
    },
    registry: { config: () => ({ confirm, actionTimeoutMs: 5_000, ...(config.handoffWebhook ? { handoffWebhook: config.handoffWebhook } : {}) }) },
  };
}

/** Operations that run their work at once, on the driver of their profile, and remember each kind that ran. */
export function fakeOperations(drivers: { driver(profile?: string): ProfileDriver }): Operations & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    operation: async (profile, request, signal, work) => {
      ran.push(request.kind);
      return work(drivers.driver(profile), signal ?? new AbortController().signal);
    },
  };
}

/** An audit trail in memory: what was recorded, in order, and its listeners told as the real one tells them. */
export function memoryAudit(): AuditTrail & { entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  const listeners = new Set<(entry: AuditEntry) => void>();
  return {
    entries,
    record: (event: AuditEvent) => {
      const entry: AuditEntry = { time: new Date().toISOString(), ...event };
      entries.push(entry);
      for (const listener of listeners) listener(entry);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    query: async () => ({ entries: [] }),
    grantEntries: async () => [],
  };
}

/** The real action log, in a directory of its own. */
export function scratchActionLog(): ActionLog {
  return new ActionLog(mkdtempSync(join(tmpdir(), 'clawd-actions-')));
}

/** A tab's person's watch the test speaks for: `hear` is a step the person did, in the mode asked for (the page side is the e2e suites'). */
export function fakePersonWatch() {
  let heard: ((step: PersonStep) => void) | undefined;
  const person = {
    mode: 'off' as string,
    watch: async (mode: string, listener: (step: PersonStep) => void) => {
      person.mode = mode;
      heard = listener;
    },
    stop: async () => {
      person.mode = 'off';
      heard = undefined;
    },
  };
  // What is heard is made a step asynchronously (its locator chosen), as the page's clicks come.
  const hear = async (step: PersonStep) => {
    heard?.(step);
    await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { person, hear };
}

/** What a fake TaskSessions was asked to open, and with what. */
export interface FakeOpen {
  request: SessionRequest;
  refresh: boolean;
}

/**
 * Task sessions without browsers, for the services that open and list them:
 * the real admission queue (its slot is the session's until it ends, and
 * freed at once when its start fails, as TaskSessions keeps it), sessions
 * that are only their SessionInfo, a start that can be held until the test
 * lets it go, and what was opened, closed and saved, in order.
 */
export function fakeTaskSessions(home: string, limits: AdmissionLimits = { capacity: 4, queue: 2, waitMs: 60_000 }) {
  const admission = new AdmissionQueue(
    () => limits,
    () => 1,
  );
  const live = new Map<string, { info: SessionInfo; slot: Slot }>();
  const opened: FakeOpen[] = [];
  const closed: Array<{ id: string; reason: string }> = [];
  const refreshesSaved: Array<{ id: string; domains?: string[] }> = [];
  /** Sessions other servers of a fleet hold, as listFleet adds them. */
  const elsewhere: SessionInfo[] = [];
  let held: Promise<void> | undefined;
  let failure: Error | undefined;
  let count = 0;
  return {
    admission,
    live,
    opened,
    closed,
    refreshesSaved,
    elsewhere,
    /** Holds every start until the function it returns is called. */
    holdStarts(): () => void {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    /** Makes the next starts fail with `error`. */
    failStarts(error: Error) {
      failure = error;
    },
    async open(request: SessionRequest, options: { refresh?: boolean; slot?: Slot } = {}): Promise<SessionInfo> {
      const slot = options.slot ?? (await admission.enter());
      opened.push({ request, refresh: options.refresh ?? false });
      try {
        await held;
        if (failure) throw failure;
      } catch (error) {
        slot.release();
        throw error;
      }
      const id = (++count).toString(16).padStart(12, '0');
      const info: SessionInfo = {
        id,
        profile: `session-${id}`,
        credential_mode: options.refresh ? 'refresh' : request.credential_mode,
        ...(request.tenant ? { tenant: request.tenant } : {}),
        domains: request.domains ?? [],
        injectedCookies: 0,
        record: request.record ?? 'off',
        place: 'local',
        cdpUrl: `/cdp?profile=session-${id}`,
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + (request.ttl ?? 600) * 1000).toISOString(),
        cdpClients: 0,
      };
      live.set(id, { info, slot });
      return { ...info, key: `key-of-${id}` };
    },
    async close(id: string, reason = 'closed'): Promise<SessionInfo> {
      const session = live.get(id);
      if (!session) throw new NotFoundError(`No task session ${id}`, { next: 'list-sessions' });
      live.delete(id);
      session.slot.release();
      closed.push({ id, reason });
      return session.info;
    },
    async listFleet(): Promise<SessionInfo[]> {
      return [...[...live.values()].map((session) => session.info), ...elsewhere];
    },
    spareCounts: (): SpareCounts => ({ ready: 1, starting: 0, wanted: 1 }),
    recordingDir: (id: string) => join(home, 'audit', id),
    async extend(id: string, ttlSeconds: number): Promise<SessionInfo> {
      const session = live.get(id);
      if (!session) throw new NotFoundError(`No task session ${id}`, { next: 'list-sessions' });
      session.info.expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString();
      return { ...session.info };
    },
    async saveRefresh(id: string, domains?: string[]) {
      const session = live.get(id);
      if (!session || session.info.credential_mode !== 'refresh') throw new NotFoundError(`No vault refresh session ${id}`);
      refreshesSaved.push({ id, ...(domains ? { domains } : {}) });
      await this.close(id, 'refresh saved');
      return (domains ?? session.info.domains).map((domain) => ({ domain, cookies: 1, origins: 0 }));
    },
  };
}
