/**
 * The errors of the control API, shared by the server (which maps each code
 * to one HTTP status, here and nowhere else) and the typed client (which maps
 * a response back to the same class). Body: { error: { code, message } }.
 */

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  ambiguous: 409,
  conflict: 409,
  disabled: 503,
  unavailable: 503,
  timeout: 504,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ClawdError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export class BadRequestError extends ClawdError {
  constructor(message: string) {
    super('bad_request', message);
  }
}
export class UnauthorizedError extends ClawdError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}
export class ForbiddenError extends ClawdError {
  constructor(message: string) {
    super('forbidden', message);
  }
}
export class NotFoundError extends ClawdError {
  constructor(message: string) {
    super('not_found', message);
  }
}
/** A targetId prefix that matches more than one tab. */
export class AmbiguousError extends ClawdError {
  constructor(message: string) {
    super('ambiguous', message);
  }
}
export class ConflictError extends ClawdError {
  constructor(message: string) {
    super('conflict', message);
  }
}
/** `enabled: false` in config.json. */
export class DisabledError extends ClawdError {
  constructor(message = 'Browser disabled in settings') {
    super('disabled', message);
  }
}
/** Extension not connected, no tab shared, browser not reachable. */
export class UnavailableError extends ClawdError {
  constructor(message: string) {
    super('unavailable', message);
  }
}
export class TimeoutError extends ClawdError {
  constructor(message: string) {
    super('timeout', message);
  }
}

const CLASSES: Record<ErrorCode, new (message: string) => ClawdError> = {
  bad_request: BadRequestError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  ambiguous: AmbiguousError,
  conflict: ConflictError,
  disabled: DisabledError,
  unavailable: UnavailableError,
  timeout: TimeoutError,
  internal: class InternalError extends ClawdError {
    constructor(message: string) {
      super('internal', message);
    }
  },
};

/** Rebuilds the typed error a server response describes. */
export function errorFromBody(status: number, body: unknown): ClawdError {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = (error?.code && error.code in CLASSES ? error.code : codeForStatus(status)) as ErrorCode;
  return new CLASSES[code](error?.message ?? `HTTP ${status}`);
}

function codeForStatus(status: number): ErrorCode {
  const match = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  return match?.[0] ?? 'internal';
}
