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
