import type { Confirmation } from '../api/browser-api.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import { errorFromBody } from '../errors.js';
import type { Call } from './toolbox-client.js';

/**
 * What waited for a person's yes (an act, a page tool's call, a computer-use batch a confirm rule
 * stopped), waited for through its hand-off: its own answer once they said yes and it ran, else a
 * ConflictError naming why it did not (the person said no, nobody answered in time).
 */
export async function answerAfterYes<T>(call: Call, confirmation: Confirmation, onConfirmation?: (confirmation: Confirmation) => void): Promise<T> {
  onConfirmation?.(confirmation);
  let handoff: HandoffAnswer;
  do handoff = (await call('GET', `/handoff/${encodeURIComponent(confirmation.id)}`, undefined, { wait: 60 })) as HandoffAnswer;
  while (handoff.state === 'waiting');
  if (handoff.act) return handoff.act as T;
  throw errorFromBody(409, { error: handoff.actError ?? { code: 'conflict', message: `Not done: the hand-off for a person's yes ended ${handoff.state}` } });
}
