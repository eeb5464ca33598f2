import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { describeIssues } from '../validation.js';
import { CdpErrorCode } from './cdp-frames.js';

/** Thrown inside command handlers; the bridge turns it into a CDP error response. */
export class CdpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** What the failure is in clawd's terms (errors.ts), for HTTP callers of the bridge. */
    readonly kind: ErrorCode = 'internal',
  ) {
    super(message);
  }
}

/** Validates a command's params, or fails it the way Chrome does (-32602). */
export function parseParams<T>(schema: z.ZodType<T>, params: unknown, method: string): T {
  const result = schema.safeParse(params ?? {});
  if (result.success) return result.data;
  const detail = describeIssues(result.error, 'params');
  throw new CdpFailure(CdpErrorCode.invalidParams, `Invalid parameters for ${method}: ${detail}`, 'bad_request');
}
