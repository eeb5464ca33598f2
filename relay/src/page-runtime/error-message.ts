/** An error thrown in the page, as the text the Node side words its own error with. */
export function messageOf(error: unknown): string {
  return String((error as Error | null)?.message || error);
}
