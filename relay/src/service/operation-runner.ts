import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { failureKind } from '../driver/browser-failure.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { ActionLog, Actor } from '../runtime/action-log.js';
import { runOperation } from '../runtime/operation.js';
import type { TaskSessions } from '../sessions/task-sessions.js';

/**
 * Every call that acts on a browser, for every service: cancelled with its
 * caller, bounded by config's actionTimeoutMs, logged (runtime/operation.ts);
 * a recorded task session keeps a screenshot per action; and a call whose
 * session ended under it is told why, as later calls are.
 */

/** What an operation is, for its log entry and the session's recording. */
export interface OperationRequest {
  kind: string;
  targetId?: string;
  ref?: string;
  at?: { x: number; y: number };
  actor?: Actor;
}

/** The port every service acts through. */
export interface Operations {
  operation<T>(
    profile: string | undefined,
    request: OperationRequest,
    signal: AbortSignal | undefined,
    work: (driver: ProfileDriver, signal: AbortSignal) => Promise<T>,
  ): Promise<T>;
}

/** What the runner needs of the profiles: their drivers, the timeout, and why a session's browser is gone. */
export type OperationDrivers = Pick<ProfileManager, 'driver' | 'endedError'> & { registry: { config(): { actionTimeoutMs: number } } };
/** What it needs of task sessions: their recording, and hearing that one ended. */
export type OperationSessions = Pick<TaskSessions, 'recordAction' | 'whenEnded'>;

/** How long a call whose browser went away waits to hear that its session ended (a jail's memory watch looks every second). */
const ENDING_WAIT_MS = 3_000;

/** Views, not actions: a recorded session keeps no screenshot of them. */
const NOT_RECORDED = new Set([
  'snapshot',
  'text',
  'screenshot',
  'labelled-screenshot',
  'pdf',
  'start',
  'focus',
  'close',
  'dialog',
  'storage-read',
  'page-tools',
]);

export class OperationRunner implements Operations {
  /** Task sessions' profiles with calls that have asked: aborted, with why, when the session ends. */
  private readonly ending = new Map<string, AbortController>();

  constructor(
    private readonly drivers: OperationDrivers,
    private readonly sessions: OperationSessions,
    private readonly log: ActionLog,
  ) {
    // A session that ended takes its calls in flight with it, each told why (a 410, as later calls are).
    sessions.whenEnded((id) => {
      const profile = `${SESSION_PROFILE_PREFIX}${id}`;
      this.ending.get(profile)?.abort(this.drivers.endedError(profile));
      this.ending.delete(profile);
    });
  }

  operation<T>(
    profile: string | undefined,
    request: OperationRequest,
    signal: AbortSignal | undefined,
    work: (driver: ProfileDriver, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const driver = this.drivers.driver(profile);
    const settings = { actionTimeoutMs: this.drivers.registry.config().actionTimeoutMs, log: this.log };
    return runOperation(
      { profile: driver.profile.name, ...request },
      settings,
      async (bounded) => {
        const result = await work(driver, bounded).catch((error: unknown) => this.endedWith(driver.profile.name, error));
        // A recorded task session keeps a screenshot per action (outside its dir).
        if (!NOT_RECORDED.has(request.kind))
          await this.sessions.recordAction(driver.profile.name, request.kind, request.targetId ?? (result as { targetId?: string })?.targetId);
        return result;
      },
      signal,
      this.gone(driver.profile.name),
    );
  }

  /** Fires, with why, when task session `profile`'s browser is gone for good: what its calls in flight answer. */
  private gone(profile: string): AbortSignal | undefined {
    if (!profile.startsWith(SESSION_PROFILE_PREFIX)) return undefined;
    let ending = this.ending.get(profile);
    if (!ending) this.ending.set(profile, (ending = new AbortController()));
    return ending.signal;
  }

  /**
   * A call that failed because its browser went away under it (a session
   * ended for a limit while the call was in flight: the target crashed, the
   * page closed): it is told what later calls are told, why the session
   * ended (a 410), once the session's end is known, which may take a moment
   * after the browser died. Any other failure is thrown as it came.
   */
  private async endedWith(profile: string, error: unknown): Promise<never> {
    const gone = profile.startsWith(SESSION_PROFILE_PREFIX) && failureKind(error) === 'target-gone';
    for (let waited = 0; gone && waited <= ENDING_WAIT_MS; waited += 100) {
      const ended = this.drivers.endedError(profile);
      if (ended) throw ended;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw error;
  }
}
