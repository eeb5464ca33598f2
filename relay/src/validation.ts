import type { z } from 'zod';

/**
 * One sentence naming every field a schema rejected, for error messages at
 * the boundaries (HTTP bodies, CDP params, extension and native-host frames,
 * config.json): "url: must be an absolute URL; quality: Too big…".
 */
export function describeIssues(error: z.ZodError, whole: string): string {
  return error.issues.map((issue) => `${issue.path.join('.') || whole}: ${issue.message}`).join('; ');
}
