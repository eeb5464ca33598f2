import type { ErrorCode } from '../errors.js';

/**
 * Builders for the CDP messages the relay sends to clients. Payloads that came
 * from the extension stay raw bytes and are spliced in, never re-parsed.
 */

export interface CdpError {
  code: number;
  message: string;
  /**
   * For the relay's own errors, the clawd error code (errors.ts) they stand
   * for, so /json/* answers the right HTTP status without reading the text.
   */
  data?: ErrorCode;
}

/** JSON-RPC / Chrome error codes, so clients see what a real browser would say. */
export const CdpErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  serverError: -32000,
  sessionNotFound: -32001,
} as const;

const EMPTY_OBJECT = new TextEncoder().encode('{}');
const CLOSE = new TextEncoder().encode('}');
const encoder = new TextEncoder();

function splice(prefix: string, raw: Uint8Array): Uint8Array {
  const head = encoder.encode(prefix);
  const body = raw.length ? raw : EMPTY_OBJECT;
  const out = new Uint8Array(head.length + body.length + 1);
  out.set(head, 0);
  out.set(body, head.length);
  out.set(CLOSE, head.length + body.length);
  return out;
}

function sessionPart(sessionId: string): string {
  return sessionId ? `,"sessionId":${JSON.stringify(sessionId)}` : '';
}

export function rawResponse(id: number, sessionId: string, rawResult: Uint8Array): Uint8Array {
  return splice(`{"id":${id}${sessionPart(sessionId)},"result":`, rawResult);
}

export function rawErrorResponse(id: number, sessionId: string, rawError: Uint8Array): Uint8Array {
  return splice(`{"id":${id}${sessionPart(sessionId)},"error":`, rawError);
}

export function rawEvent(method: string, sessionId: string, rawParams: Uint8Array): Uint8Array {
  return splice(`{"method":${JSON.stringify(method)}${sessionPart(sessionId)},"params":`, rawParams);
}

export function response(id: number, sessionId: string, result: object): string {
  return JSON.stringify(sessionId ? { id, sessionId, result } : { id, result });
}

export function errorResponse(id: number | undefined, sessionId: string, error: CdpError): string {
  const message: Record<string, unknown> = {};
  if (id !== undefined) message.id = id;
  if (sessionId) message.sessionId = sessionId;
  message.error = error;
  return JSON.stringify(message);
}

export function event(method: string, sessionId: string, params: object): string {
  return JSON.stringify(sessionId ? { method, sessionId, params } : { method, params });
}
