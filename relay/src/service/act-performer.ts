import type { z } from 'zod';
import type { ActOptions } from '../api/act-options.js';
import { withFence } from '../api/page-content.js';
import type { ActionResult } from '../api/responses.js';
import type { schemas } from '../api/schemas.js';
import { type SecretOpener, secretNames } from '../driver/secrets/secret-typing.js';
import { ConflictError } from '../errors.js';
import type { TaskSessions } from '../sessions/task-sessions.js';
import type { Operations } from './operation-runner.js';

/**
 * An act itself, once the confirm rules let it run (confirm-service.ts):
 * through an operation, typing the secrets its caller may type, and with
 * `diffMaxChars`, when it did not navigate, the page's diff in the same
 * answer (no second call).
 */

/** How an act is performed: the act's options, and what opens the secrets it may type (a routine's run gives its own; else the session's). */
export type PerformOptions = ActOptions & { secrets?: SecretOpener };
export type Act = z.output<typeof schemas.act>;
/** The port the confirmations and routines perform acts through. */
export type Perform = (profile: string | undefined, action: Act, signal?: AbortSignal, options?: PerformOptions) => Promise<ActionResult>;

/** What acts need of task sessions: the secrets a grant lends, and telling that some were typed. */
export type SessionSecrets = Pick<TaskSessions, 'secretOpener' | 'secretsTyped'>;

export class ActPerformer {
  constructor(
    private readonly operations: Operations,
    private readonly secrets: SessionSecrets,
    /** Whether a trace records the profile's browser (recording-service.ts): a trace cannot be redacted. */
    private readonly isTracing: (profile: string) => boolean,
  ) {}

  readonly perform: Perform = (profile, action, signal, options = {}) => {
    const ref = 'ref' in action ? action.ref : 'startRef' in action ? action.startRef : undefined;
    const at = ref === undefined && 'x' in action && action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : undefined;
    return this.operations.operation(profile, { kind: action.kind, targetId: action.targetId, ref, ...(at ? { at } : {}) }, signal, async (driver, bounded) => {
      const before = options.diffMaxChars
        ? await driver.page(action.targetId).then(
            (page) => page.url(),
            () => undefined,
          )
        : undefined;
      // A routine's run types the secrets it was given (routine-service.ts), and the session's beside them.
      const open = options.secrets ?? this.secrets.secretOpener(driver.profile.name);
      if (open && secretNames(action).length && this.isTracing(driver.profile.name))
        throw new ConflictError('A trace is recording this browser, and a trace cannot be redacted: stop it (POST /trace/stop) before typing a secret');
      const result: ActionResult = await driver.act(action, bounded, {
        open,
        onTyped: (typed) => this.secrets.secretsTyped(driver.profile.name, typed),
      });
      if (options.diffMaxChars && result.url !== undefined && result.url === before) {
        const snapshot = await driver.snapshot({ targetId: result.targetId, format: 'ai', diff: true, maxChars: options.diffMaxChars }).catch(() => undefined);
        if (snapshot?.format === 'ai') {
          result.diff = snapshot.text;
          if (snapshot.leadingNotes) result.diffLeadingNotes = snapshot.leadingNotes;
        }
      }
      return withFence(result);
    });
  };
}
