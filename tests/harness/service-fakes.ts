import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileDriver } from '../../relay/src/driver/profile-driver.js';
import { ActionLog } from '../../relay/src/runtime/action-log.js';
import { ConfirmConfigSchema, type ConfirmRule } from '../../relay/src/runtime/consequential-acts.js';
import type { PersonStep } from '../../relay/src/replay/person-steps.js';
import type { Operations } from '../../relay/src/service/operation-runner.js';
import type { AuditEntry } from '../../relay/src/api/session-responses.js';
import type { AuditEvent, AuditTrail } from '../../relay/src/vault/audit-log.js';

/**
 * Fakes for the services' ports, so each service is built alone in a unit
 * test (service/control-assembly.ts wires the real ones): a browser tab
 * that is only a URL and a title, operations that run their work at once
 * and remember what ran, an audit trail in memory. The service under test
 * is always the real one.
 */

/** A tab as a hand-off sees it: where it is, and its title. */
export interface FakeTab {
  targetId: string;
  url: string;
  title: string;
}

/** A profile's driver with tabs, and a consequence each act is said to have (none unless set). */
export function fakeDriver(name: string, tabs: FakeTab[], consequence?: () => { consequence: { rule: string; act: string }; viewport: { width: number; height: number } } | undefined): ProfileDriver {
  const tabFor = async (targetId?: string) => {
    const tab = tabs.find((one) => targetId === undefined || one.targetId === targetId);
    if (!tab) throw new Error(`No tab ${targetId}`);
    return { targetId: async () => tab.targetId, page: { url: () => tab.url, title: async () => tab.title } };
  };
  return { profile: { name }, tabFor, consequenceOf: async () => consequence?.() } as unknown as ProfileDriver;
}

/** Drivers by profile name. */
export function fakeDrivers(drivers: ProfileDriver[], config: { confirm?: Partial<{ rules: ConfirmRule[]; askPerson: 'auto' | 'always' | 'never'; waitSeconds: number }>; handoffWebhook?: { url: string } } = {}) {
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
