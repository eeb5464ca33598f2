/**
 * True for the error Chrome gives an extension API call of a service worker
 * it is stopping ("No SW"). Not an answer from the tab: the command may not
 * have run, and the worker will not see what it did.
 */
export function workerStopping(error: unknown): boolean {
  return (error instanceof Error ? error.message : String(error)) === 'No SW';
}

/** A CDP error object from whatever chrome.debugger (or our own checks) threw. */
export function cdpError(error: unknown): { code: number; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  try {
    // chrome.debugger reports CDP errors as an Error whose message is the error's JSON.
    const parsed = JSON.parse(message) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'number' && typeof parsed.message === 'string') return { code: parsed.code, message: parsed.message };
  } catch {
    // not JSON: a plain extension API error
  }
  return { code: -32000, message };
}
