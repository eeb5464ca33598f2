import type { BrowseResult, BrowseStart } from '../api/browse-schemas.js';
import type { ActionLog, Outcome } from '../runtime/action-log.js';
import type { StepReport } from './browse-loop.js';

/**
 * A run in the action log (spec §12, §24): `tool_step` for each step (the
 * tools the model called, its tokens), then `browse_call` for a run the
 * model finished, or `browse_failed` for one that failed or was stopped
 * (and by what). Built from named fields only: never the goal, the
 * model's words, what was typed, nor a key.
 */

export function logStep(log: ActionLog, start: BrowseStart, report: StepReport): void {
  log.record({
    time: new Date().toISOString(),
    profile: start.profile,
    ...(start.targetId ? { targetId: start.targetId } : {}),
    kind: 'tool_step',
    durationMs: report.durationMs,
    outcome: report.failed ? 'error' : 'ok',
    ...(report.failed ? { error: 'a call of this step failed' } : {}),
    actor: 'agent',
    browse: {
      run: start.run,
      step: report.step,
      tools: report.actions.map((action) => action.tool),
      inputTokens: report.usage.inputTokens,
      outputTokens: report.usage.outputTokens,
    },
  });
}

function outcomeOf(result: BrowseResult): Outcome {
  if (result.outcome === 'done') return 'ok';
  if (result.stoppedBy === 'cancel') return 'aborted';
  if (result.stoppedBy === 'step-timeout') return 'timeout';
  return 'error';
}

export function logRun(log: ActionLog, start: BrowseStart, result: BrowseResult): void {
  const why =
    result.outcome === 'done'
      ? undefined
      : result.outcome === 'stopped'
        ? `stopped by ${result.stoppedBy}`
        : result.lastStepFailed && !result.error
          ? 'its last step failed'
          : `failed: ${result.error ?? 'the provider failed'}`;
  log.record({
    time: new Date().toISOString(),
    profile: result.profile,
    ...(result.targetId ? { targetId: result.targetId } : {}),
    kind: result.outcome === 'done' ? 'browse_call' : 'browse_failed',
    ...(result.url ? { url: result.url } : {}),
    durationMs: result.durationMs,
    outcome: outcomeOf(result),
    ...(why ? { error: why.split('\n')[0].slice(0, 300) } : {}),
    actor: 'agent',
    browse: {
      run: start.run,
      provider: result.provider,
      model: result.model,
      runtime: result.runtime,
      steps: result.steps,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      screenshots: result.screenshots,
      ...(result.stoppedBy ? { stoppedBy: result.stoppedBy } : {}),
    },
  });
}
