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
  tag: 'Browser' | 'Pages' | 'Actions' | 'Page tools' | 'Vision' | 'Toolbox' | 'Recording' | 'Live view' | 'Teaching' | 'Sessions' | 'Vault' | 'Profiles' | 'Agents' | 'Fleet';
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
