import type { z } from 'zod';

/**
 * The shape of one route of the control API, shared by every feature's route
 * table (`*-routes.ts`) and the assembled table (`routes.ts`). It lives apart
 * from both so a feature's table needs nothing of the assembly that imports it.
 */

export type ErrorStatus = 400 | 403 | 404 | 409 | 410 | 413 | 429 | 503 | 504;

/** An answer that is not JSON: an image, a page, a stream. */
export interface MediaAnswer {
  media: 'image/jpeg' | 'text/html' | 'text/plain' | 'multipart/x-mixed-replace' | 'text/event-stream' | 'video/*' | 'redirect';
  description: string;
}

export interface RouteSpec {
  summary: string;
  /** The guide's group: the document's tag. */
  tag:
    | 'Browser'
    | 'Pages'
    | 'Actions'
    | 'Page tools'
    | 'Vision'
    | 'Toolbox'
    | 'Recording'
    | 'Live view'
    | 'Teaching'
    | 'Sessions'
    | 'Vault'
    | 'Profiles'
    | 'Agents'
    | 'Fleet';
  query?: z.ZodType;
  body?: z.ZodType;
  /** Path parameters, each with what it is. */
  params?: Record<string, string>;
  answer: z.ZodType | MediaAnswer;
  /** The success status, when not 200. */
  status?: 201;
  /** Errors this route gives besides 401 (no token) and those of a bad request (400, named when it takes input). */
  errors?: ErrorStatus[];
  /** Reached without the token: the one-time dashboard link. */
  public?: true;
  /** A failure status answered with the success's own body, not the error shape (a health check's 503). */
  sameBodyOn?: { status: 503; description: string };
}

/** A browser's work: the profile may be disabled or not running, the tab gone, the wait over. */
export const BROWSER_ERRORS: ErrorStatus[] = [404, 409, 503, 504];

/**
 * A query as a caller may give it: each parameter its schema's input, or,
 * where the server coerces text (a number from its digits, its input then
 * `unknown`), the value it coerces to; a `'true' | 'false'` flag as a boolean
 * too (a query's values go as text).
 */
export type QueryInput<Q extends z.ZodType> = { [P in keyof z.input<Q>]: QueryValue<z.input<Q>[P], P extends keyof z.output<Q> ? z.output<Q>[P] : never> };
type QueryValue<In, Out> = unknown extends In ? Out | undefined : In | ('true' extends In ? boolean : never);

/** The `:name` segments of a route key's path (`'DELETE /tabs/:targetId'` has `targetId`). */
export type PathParamNames<Key extends string> = Key extends `${string} ${infer Path}` ? ParamNamesOf<Path> : never;
type ParamNamesOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNamesOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
