import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { BadRequestError, ClawdError, InternalError, TimeoutError, TooLargeError } from '../errors.js';
import { LIMITS } from './limits.js';
import { failureKind } from '../driver/browser-failure.js';

/**
 * The one place, for both servers, where what went wrong becomes an HTTP
 * answer: the error family's own status and body ({error: {code, message,
 * details?}}), and for anything else a first line only (third-party
 * messages can carry call logs with typed text) as a 500.
 */

export interface HttpFailure {
  error: ClawdError;
  /** Not one of ours: a bug or a library's surprise, worth a log line with its stack. */
  unexpected: boolean;
}

export function asHttpFailure(error: unknown): HttpFailure {
  if (error instanceof ClawdError) return { error, unexpected: false };
  const known = error as { type?: string; name?: string; message?: string } | undefined;
  // Express's body parser.
  if (known?.type === 'entity.parse.failed') return { error: new BadRequestError(`Malformed JSON body: ${known.message}`), unexpected: false };
  if (known?.type === 'entity.too.large')
    return { error: new TooLargeError(`Request body over ${LIMITS.controlBodyBytes / 1024 / 1024} MB`), unexpected: false };
  const firstLine = String(known?.message ?? error).split('\n')[0];
  // Playwright's own timeouts.
  if (failureKind(error) === 'timeout') return { error: new TimeoutError(firstLine), unexpected: false };
  return { error: new InternalError(firstLine), unexpected: true };
}

export function sendError(response: ServerResponse, error: ClawdError): void {
  const text = JSON.stringify(error.toBody());
  // A 429 that knows when to ask again says so as HTTP does (admission-queue.ts).
  const retryAfter = error.details?.retryAfterSeconds;
  response.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {}),
  });
  response.end(text);
}

/** A WebSocket upgrade refused: the error as an HTTP answer on the raw socket, which then closes. */
export function refuseUpgrade(socket: Duplex, error: ClawdError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Stack frames only, without the message (which may hold what was typed). */
export function stackFrames(error: unknown): string {
  return String((error as Error)?.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}
