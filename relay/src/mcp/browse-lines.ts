import type { BrowseResult } from '../api/browse-schemas.js';

/** A browse run's end in a reader's words, the same in MCP's `browser_browse` and the CLI's `browse` (no schema here: the CLI loads it without zod). */

/** How a run ended, in one line: what stopped it, what it cost, how to go on. */
export function runLine(result: BrowseResult): string {
  const cost = `${result.steps} steps, ${result.usage.totalTokens} tokens${result.screenshots ? `, ${result.screenshots} screenshots` : ''}`;
  const how =
    result.outcome === 'done'
      ? `Done (${cost}).`
      : result.outcome === 'stopped'
        ? `Stopped by ${stopName(result.stoppedBy)} (${cost}); the goal may not be reached.`
        : `Failed${result.error ? `: ${result.error}` : result.lastStepFailed ? ': its last step failed' : ''} (${cost}).`;
  const next = result.session && !result.sessionClosed ? ` Session ${result.session}: pass it as session to go on.` : '';
  return `${how}${next}`;
}

function stopName(reason: BrowseResult['stoppedBy']): string {
  switch (reason) {
    case 'steps':
      return 'the step cap';
    case 'step-timeout':
      return 'the step timeout';
    case 'budget':
      return 'the token budget';
    case 'cancel':
      return 'a cancel';
    default:
      return 'an error';
  }
}
