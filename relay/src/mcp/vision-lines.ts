import type { ScreenLabel } from '../api/vision-responses.js';

/** Vision's answers in a reader's words, the same in MCP's tools and the CLI (no schema here: the CLI loads it without zod). */

/** A label as one line for a reader: `12 button "Submit"` (the number is the ref). */
export function labelLine(label: ScreenLabel): string {
  return `${label.label} ${label.role}${label.name ? ` ${JSON.stringify(label.name)}` : ''}`;
}
