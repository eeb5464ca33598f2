import type { BrowseAction, StopReason, Usage } from '../api/browse-schemas.js';
import type { AskResult, Conversation, Turn } from './providers/provider.js';
import type { Toolset, ToolOutcome } from './toolset.js';

/**
 * The agent loop of one run: the model is given the goal, answers with
 * calls, the calls are carried out and their results given back, until it
 * answers without a call, or a guardrail stops it. Each step (one model
 * turn and the calls it asked for) has its own deadline; the run's signal
 * (a cancel, the caller gone) and the step's deadline both reach the model
 * request in flight and the act in flight.
 *
 * Honesty: a run is `done` only when the model answered and the last step
 * before its answer worked; `failed` when that step failed (the answer is
 * kept, for what it is worth) or the provider did; `stopped` with the
 * guardrail that stopped it otherwise.
 */

export interface LoopSettings {
  maxSteps: number;
  stepTimeoutMs: number;
  /** Input and output tokens for the whole run (0 or undefined: none). */
  budgetTokens?: number;
}

export interface StepReport {
  step: number;
  actions: BrowseAction[];
  said: string;
  usage: Usage;
  total: Usage;
  screenshots: number;
  durationMs: number;
  failed: boolean;
}

export interface LoopEnd {
  outcome: 'done' | 'failed' | 'stopped';
  stoppedBy?: StopReason;
  answer: string;
  lastStepFailed: boolean;
  error?: string;
  steps: number;
  usage: Usage;
  screenshots: number;
}

class StepTimeout extends Error {
  constructor(ms: number) {
    super(`a step took longer than its ${ms} ms`);
  }
}

function usageOf(inputTokens: number, outputTokens: number): Usage {
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** A signal that fires with the run's, or when the step's time is up. */
function stepSignal(run: AbortSignal, ms: number): { signal: AbortSignal; timedOut: () => boolean; dispose(): void } {
  const controller = new AbortController();
  const onRun = () => controller.abort(run.reason);
  if (run.aborted) onRun();
  run.addEventListener('abort', onRun, { once: true });
  const timer = setTimeout(() => controller.abort(new StepTimeout(ms)), ms);
  return {
    signal: controller.signal,
    timedOut: () => controller.signal.reason instanceof StepTimeout,
    dispose: () => {
      clearTimeout(timer);
      run.removeEventListener('abort', onRun);
    },
  };
}

export async function runLoop(parts: {
  conversation: Conversation;
  toolset: Toolset;
  goal: string;
  settings: LoopSettings;
  signal: AbortSignal;
  onStep: (report: StepReport) => void;
}): Promise<LoopEnd> {
  const { conversation, toolset, settings, signal } = parts;
  let inputTokens = 0;
  let outputTokens = 0;
  let screenshots = 0;
  let lastStepFailed = false;
  let lastWords = '';
  let steps = 0;
  const end = (outcome: LoopEnd['outcome'], more: Partial<LoopEnd> = {}): LoopEnd => ({
    outcome,
    answer: lastWords,
    lastStepFailed,
    steps,
    usage: usageOf(inputTokens, outputTokens),
    screenshots,
    ...more,
  });
  const overBudget = () => !!settings.budgetTokens && inputTokens + outputTokens >= settings.budgetTokens;

  for (let step = 1; step <= settings.maxSteps; step++) {
    if (overBudget()) return end('stopped', { stoppedBy: 'budget' });
    const started = performance.now();
    const bounded = stepSignal(signal, settings.stepTimeoutMs);
    let unanswered: Turn | undefined;
    try {
      if (step === 1) {
        const screen = toolset.firstLook ? await toolset.firstLook(bounded.signal) : undefined;
        if (screen) screenshots++;
        conversation.say(parts.goal, screen);
      }
      steps = step;
      const turn = await conversation.next(bounded.signal);
      inputTokens += turn.usage.inputTokens;
      outputTokens += turn.usage.outputTokens;
      if (turn.text.trim()) lastWords = turn.text.trim();
      const report = (outcomes: ToolOutcome[]): StepReport => ({
        step,
        actions: outcomes.map((outcome) => ({
          tool: outcome.tool,
          summary: outcome.summary,
          ok: !outcome.failed,
          ...(outcome.failed ? { error: outcome.text.split('\n')[0].slice(0, 300) } : {}),
        })),
        said: turn.text.trim().slice(0, 500),
        usage: usageOf(turn.usage.inputTokens, turn.usage.outputTokens),
        total: usageOf(inputTokens, outputTokens),
        screenshots,
        durationMs: Math.round(performance.now() - started),
        failed: outcomes.some((outcome) => outcome.failed),
      });
      if (!turn.asks.length) {
        parts.onStep(report([]));
        return end(lastStepFailed ? 'failed' : 'done', { answer: turn.text.trim() });
      }
      unanswered = turn;
      const checks = turn.asks.flatMap((ask) => (ask.kind === 'computer' ? (ask.safetyChecks ?? []) : []));
      if (checks.length) {
        parts.onStep(report([]));
        return end('failed', {
          error: `the model asked for a person's confirmation before acting (${checks.map((check) => check.message ?? check.code ?? check.id).join('; ')}); run it with a person in the loop`,
        });
      }
      if (overBudget()) return end('stopped', { stoppedBy: 'budget' });
      const outcomes: ToolOutcome[] = [];
      for (const ask of turn.asks) {
        const outcome = await parts.toolset.run(ask, bounded.signal);
        screenshots += outcome.screenshots;
        outcomes.push(outcome);
      }
      conversation.answer(outcomes);
      unanswered = undefined;
      lastStepFailed = outcomes.some((outcome) => outcome.failed);
      parts.onStep(report(outcomes));
    } catch (error) {
      if (signal.aborted) return end('stopped', { stoppedBy: 'cancel' });
      if (bounded.timedOut()) return end('stopped', { stoppedBy: 'step-timeout', error: (bounded.signal.reason as Error).message });
      return end('failed', { stoppedBy: 'error', error: describeFailure(error) });
    } finally {
      bounded.dispose();
      // A turn whose calls were not all carried out is answered still, so a continued session's transcript stays whole.
      if (unanswered) conversation.answer(notDone(unanswered, signal.aborted ? 'the run was cancelled' : 'the run stopped'));
    }
  }
  return end('stopped', { stoppedBy: 'steps' });
}

function notDone(turn: Turn, why: string): AskResult[] {
  return turn.asks.map((ask) => ({ id: ask.id, computer: ask.kind === 'computer', text: `Not done: ${why}.`, failed: true }));
}

/** A provider's failure in one line: its status and message, never a header (the SDKs' errors carry no key). */
function describeFailure(error: unknown): string {
  const status = (error as { status?: unknown })?.status;
  const message = (error as Error)?.message ?? String(error);
  return `${typeof status === 'number' ? `the provider answered ${status}: ` : ''}${message.split('\n')[0].slice(0, 500)}`;
}
