/**
 * Reads a message of the person's Chrome without re-serialising its
 * payload: Chromium writes `{"id":N,"result":{…}}` (or `"error"`) for
 * answers and `{"method":"D.e","params":{…}}` for events, with
 * `,"sessionId":"…"` last when the message is a session's. The payload's
 * text is cut out as it is and spliced into the wire frame for the relay, so
 * a screenshot's megabytes are never parsed here. Anything of another shape
 * is parsed in full.
 */

export interface ChromeMessage {
  /** Set on answers: the id the command was sent with. */
  id?: number;
  /** Set on events. */
  method?: string;
  /** The session it belongs to; none for the browser's own. */
  sessionId?: string;
  /** The answer's result, its error, or the event's params: JSON text, always an object. */
  payload: string;
  /** An answer that is an error. */
  error?: boolean;
}

const ANSWER_HEAD = /^\{"id":(\d+),"(result|error)":/;
const EVENT_HEAD = /^\{"method":"([A-Za-z]+\.[A-Za-z]+)","params":/;
const SESSION_TAIL = /,"sessionId":"([0-9A-Za-z]+)"\}$/;

export function readChromeMessage(raw: string): ChromeMessage {
  const answer = ANSWER_HEAD.exec(raw);
  const event = answer ? undefined : EVENT_HEAD.exec(raw);
  const head = answer ?? event;
  // The payload is an object: it ends in '}', so the message ends in '}}' without a
  // session and in '"}' with one (a sessionId inside the payload is never last).
  const tail = raw.length > 200 ? raw.slice(-200) : raw;
  const session = SESSION_TAIL.exec(tail);
  if (head && (session || raw.endsWith('}}'))) {
    const payload = raw.slice(head[0].length, raw.length - (session ? session[0].length : 1));
    if (payload.startsWith('{')) {
      return answer
        ? { id: Number(answer[1]), error: answer[2] === 'error', sessionId: session?.[1], payload }
        : { method: event![1], sessionId: session?.[1], payload };
    }
  }
  return parsed(raw);
}

function parsed(raw: string): ChromeMessage {
  const message = JSON.parse(raw) as { id?: unknown; method?: unknown; sessionId?: unknown; result?: unknown; error?: unknown; params?: unknown };
  const sessionId = typeof message.sessionId === 'string' ? message.sessionId : undefined;
  const body = (value: unknown) => JSON.stringify(value && typeof value === 'object' ? value : {});
  if (typeof message.id === 'number') {
    const error = message.error !== undefined;
    return { id: message.id, error, sessionId, payload: body(error ? message.error : message.result) };
  }
  return { method: typeof message.method === 'string' ? message.method : undefined, sessionId, payload: body(message.params) };
}
