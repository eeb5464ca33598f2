import type { z } from 'zod';
import { BadRequestError } from './errors.js';

/**
 * One sentence naming every field a schema rejected, for error messages at
 * the boundaries (HTTP bodies, CDP params, extension and native-host frames,
 * config.json): "url: must be an absolute URL; quality: Too big…".
 */
export function describeIssues(error: z.ZodError, whole: string): string {
  return error.issues.map((issue) => `${issue.path.join('.') || whole}: ${issue.message}`).join('; ');
}

/**
 * Input checked against an API schema: a 400 whose message is the field and
 * what is wrong with it ("url: "foo" is not a web address: …"), words a
 * person reads as they are; `what` names the input when the issue is with
 * all of it. The in-process API checks its arguments with it, as the HTTP
 * routes check theirs.
 */
export function validated<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new BadRequestError(describeIssues(result.error, what));
}
