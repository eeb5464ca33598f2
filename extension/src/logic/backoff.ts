/**
 * When the relay link tries again: 1 s doubling to 30 s, ±20% jitter so many
 * browsers do not reconnect in step. `slow` (a peer that failed the key
 * proof, or a live rival connection) waits the longest at once.
 */
export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 30_000;

export function retryDelayMs(attempt: number, slow: boolean, random: () => number = Math.random): number {
  const base = slow ? MAX_RETRY_MS : Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
  return base * (0.8 + random() * 0.4);
}
