import type { Protocol } from 'devtools-protocol';

/**
 * Chrome's default when a command gives no filter: everything but the browser
 * and tab targets. Puppeteer passes its own filters (it wants tab targets);
 * Playwright relies on this default (it wants pages directly).
 */
export const DEFAULT_TARGET_FILTER: Protocol.Target.TargetFilter = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];

/**
 * CDP semantics: entries are tried in order and the first one whose type
 * matches decides; a target no entry matches is excluded.
 */
export function filterAccepts(filter: Protocol.Target.TargetFilter | undefined, type: string): boolean {
  for (const entry of filter ?? DEFAULT_TARGET_FILTER) {
    if (entry.type === undefined || entry.type === type) return !entry.exclude;
  }
  return false;
}
