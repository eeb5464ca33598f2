/**
 * The one error family of clawd-browser, shared by both servers (which map
 * each code to one HTTP status, here and nowhere else) and the typed client
 * (which maps a response back to the same class). Body, on every server:
 * { error: { code, message, details? } }. `details` carries what a caller
 * can act on (e.g. which ref was stale and why) through every layer.
 */

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  ambiguous: 409,
  conflict: 409,
  disabled: 503,
  unavailable: 503,
  timeout: 504,
  too_many: 429,
  too_large: 413,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorDetails = Record<string, string | number | boolean>;

/**
 * What a caller can do next, carried as `details.next`. The message says it
 * in plain words; each surface names its own way to do it (`nextStepIn`), so
 * an MCP agent hears a tool and a shell user a command, never another
 * surface's route.
 */
export const NEXT_STEPS = {
  'open-tab': { http: 'POST /tabs/open {url}', cli: 'clawd-browser open URL', mcp: 'browser_tabs with action "open"' },
  'list-tabs': { http: 'GET /tabs', cli: 'clawd-browser tabs', mcp: 'browser_tabs' },
  snapshot: { http: 'GET /snapshot', cli: 'clawd-browser snapshot', mcp: 'browser_snapshot' },
  'list-page-tools': { http: 'GET /page-tools', cli: 'clawd-browser page-tools', mcp: 'browser_page_tool without a name' },
  'open-session': { http: 'POST /sessions', cli: 'clawd-browser session-open', mcp: 'a new task session (POST /sessions on the control API)' },
  'list-sessions': { http: 'GET /sessions', cli: 'clawd-browser sessions', mcp: 'the task sessions (GET /sessions on the control API)' },
} as const;
export type NextStep = keyof typeof NEXT_STEPS;
export type Surface = 'http' | 'cli' | 'mcp';

/** The error's next step in one surface's words ("browser_tabs with action "open""), if it has one. */
export function nextStepIn(error: ClawdError, surface: Surface): string | undefined {
  const next = error.details?.next;
  return typeof next === 'string' && next in NEXT_STEPS ? NEXT_STEPS[next as NextStep][surface] : undefined;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export class ClawdError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export class BadRequestError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('bad_request', message, details);
  }
}
export class UnauthorizedError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('unauthorized', message, details);
  }
}
export class ForbiddenError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('forbidden', message, details);
  }
}
export class NotFoundError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('not_found', message, details);
  }
}
/** What existed and is gone for good (a task session lost with its Grid node). */
export class GoneError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('gone', message, details);
  }
}
/** A targetId prefix that matches more than one tab. */
export class AmbiguousError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('ambiguous', message, details);
  }
}
export class ConflictError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('conflict', message, details);
  }
}
/** `enabled: false` in config.json. */
export class DisabledError extends ClawdError {
  constructor(message = 'Browser disabled in settings', details?: ErrorDetails) {
    super('disabled', message, details);
  }
}
/** Extension not connected, no tab shared, browser not reachable. */
export class UnavailableError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('unavailable', message, details);
  }
}
export class TimeoutError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('timeout', message, details);
  }
}
/** A request body beyond the server's limit. */
export class TooLargeError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('too_large', message, details);
  }
}

/** A cap is reached (running browsers, sessions, recordings' room): try again when one ends. */
export class TooManyError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('too_many', message, details);
  }
}

export class InternalError extends ClawdError {
  constructor(message: string, details?: ErrorDetails) {
    super('internal', message, details);
  }
}

const CLASSES: Record<ErrorCode, new (message: string, details?: ErrorDetails) => ClawdError> = {
  bad_request: BadRequestError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  gone: GoneError,
  ambiguous: AmbiguousError,
  conflict: ConflictError,
  disabled: DisabledError,
  unavailable: UnavailableError,
  timeout: TimeoutError,
  too_many: TooManyError,
  too_large: TooLargeError,
  internal: InternalError,
};

/** The error a code names (e.g. from a CDP error's `data`), with its message. */
export function errorForCode(code: string | undefined, message: string, details?: ErrorDetails): ClawdError {
  return new CLASSES[code && code in CLASSES ? (code as ErrorCode) : 'internal'](message, details);
}

/** Rebuilds the typed error a server response describes. */
export function errorFromBody(status: number, body: unknown): ClawdError {
  const error = (body as { error?: { code?: string; message?: string; details?: ErrorDetails } } | undefined)?.error;
  const code = (error?.code && error.code in CLASSES ? error.code : codeForStatus(status)) as ErrorCode;
  return new CLASSES[code](error?.message ?? `HTTP ${status}`, error?.details);
}

function codeForStatus(status: number): ErrorCode {
  const match = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  return match?.[0] ?? 'internal';
}
