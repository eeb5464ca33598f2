import type { Confirmation } from '../api/browser-api.js';
import type { HandoffAnswer } from '../api/session-responses.js';
import { errorFromBody } from '../errors.js';
import type { RouteCall } from './route-call.js';

/**
 * What waited for a person's yes (an act, a page tool's call, a computer-use batch a confirm rule
 * stopped), waited for through its hand-off: its own answer once they said yes and it ran, else a
 * ConflictError naming why it did not (the person said no, nobody answered in time).
 */
export async function answerAfterYes<T>(call: RouteCall, confirmation: Confirmation, onConfirmation?: (confirmation: Confirmation) => void): Promise<T> {
  onConfirmation?.(confirmation);
  let handoff: HandoffAnswer;
  do handoff = await call('GET /handoff/:id', { params: { id: confirmation.id }, query: { wait: 60 } });
  while (handoff.state === 'waiting');
  if (handoff.act) return handoff.act as T;
  throw errorFromBody(409, { error: handoff.actError ?? { code: 'conflict', message: `Not done: the hand-off for a person's yes ended ${handoff.state}` } });
}
