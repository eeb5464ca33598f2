import { ClawdError, TimeoutError } from '../errors.js';
import type { ActionLog, Actor, Outcome } from './action-log.js';

/**
 * The one place a request that acts on a browser is bounded, cancelled and
 * logged (spec §12):
 * - it gets an AbortSignal that fires when its caller goes (the HTTP client
 *   disconnects or aborts, an MCP request is cancelled: the caller's own
 *   signal), or when the action timeout (config actionTimeoutMs) passes;
 * - and when its browser is gone for good (a task session ended under it:
 *   `gone`'s reason is its answer, as later calls hear it);
 * - the driver stops its work on that signal (a wait stops polling, a
 *   navigation is stopped, a hook is disarmed), and the request ends at once;
 * - past the timeout it is a 504 that names the action and the limit;
 * - one line goes to the action log, whatever the outcome.
 */

/** The caller hung up: there is nobody to answer. */
export class CallerGoneError extends Error {
  constructor() {
    super('the caller disconnected');
  }
}

export interface OperationMeta {
  profile: string;
  kind: string;
  targetId?: string;
  ref?: string;
  /** Where an act by coordinates pressed (CSS pixels of the viewport). */
  at?: { x: number; y: number };
  actor?: Actor;
}

export async function runOperation<T>(
  meta: OperationMeta,
  settings: { actionTimeoutMs: number; log: ActionLog },
  work: (signal: AbortSignal) => Promise<T>,
  caller?: AbortSignal,
  gone?: AbortSignal,
): Promise<T> {
  const started = performance.now();
  const controller = new AbortController();
  const onCallerGone = () => controller.abort(new CallerGoneError());
  const onBrowserGone = () => controller.abort(gone?.reason);
  if (caller?.aborted) onCallerGone();
  caller?.addEventListener('abort', onCallerGone, { once: true });
  if (gone?.aborted) onBrowserGone();
  gone?.addEventListener('abort', onBrowserGone, { once: true });
  const limit = settings.actionTimeoutMs;
  const timer = setTimeout(
    () =>
      controller.abort(
        new TimeoutError(`${meta.kind} took longer than the action timeout of ${limit} ms (config actionTimeoutMs)`, { action: meta.kind, limitMs: limit }),
      ),
    limit,
  );
  let outcome: Outcome = 'ok';
  let error: string | undefined;
  let result: T | undefined;
  try {
    result = await abortable(work(controller.signal), controller.signal);
    return result;
  } catch (caught) {
    outcome = caught instanceof CallerGoneError ? 'aborted' : caught instanceof TimeoutError ? 'timeout' : 'error';
    error = caught instanceof ClawdError || caught instanceof Error ? caught.message.split('\n')[0] : String(caught);
    throw caught;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerGone);
    gone?.removeEventListener('abort', onBrowserGone);
    const described = (result ?? {}) as { targetId?: unknown; url?: unknown };
    settings.log.record({
      time: new Date().toISOString(),
      profile: meta.profile,
      ...(typeof described.targetId === 'string' || meta.targetId
        ? { targetId: (typeof described.targetId === 'string' ? described.targetId : meta.targetId) as string }
        : {}),
      kind: meta.kind,
      ...(meta.ref ? { ref: meta.ref } : {}),
      ...(meta.at ? { at: meta.at } : {}),
      ...(typeof described.url === 'string' ? { url: described.url } : {}),
      durationMs: Math.round(performance.now() - started),
      outcome,
      ...(error ? { error } : {}),
      actor: meta.actor ?? 'agent',
    });
  }
}

/** `promise`, or its signal's reason as soon as the signal fires (the promise's own failure is then ignored). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or until the signal fires (then rejects with its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortable(new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.()), signal);
}
