import { writeFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { BrowseEvent, BrowseRequest } from '../api/browse-schemas.js';
import type { BrowserClient } from '../client/browser-client.js';
import { runLine } from '../mcp/browse-lines.js';
import type { Print } from './print.js';

/**
 * `clawd-browser browse "goal"` (spec §24): the server runs the loop
 * against the configured model; each step is a line on stderr as it
 * happens, the model's answer goes to stdout (the whole result with
 * --json). A run that did not finish as done exits 1, saying what stopped
 * it; Ctrl-C cancels the run (exit 130).
 */

function count(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number above 0');
  return Number(value);
}

function progressLine(event: BrowseEvent): string | undefined {
  if (event.kind === 'start') {
    const { run, provider, model, runtime, profile, session, maxSteps } = event.data;
    return `run ${run}: ${provider} (${model}), ${runtime} runtime, on ${session ? `session ${session}` : profile}, at most ${maxSteps} steps`;
  }
  if (event.kind === 'step') {
    const { step, actions, total } = event.data;
    const did = actions.map((action) => `${action.summary}${action.ok ? '' : ` (failed: ${action.error ?? ''})`}`).join('; ') || 'answered';
    return `step ${step}: ${did} [${total.totalTokens} tokens]`;
  }
  return undefined;
}

export function addBrowseCommands(program: Command, client: () => BrowserClient, print: Print): void {
  program
    .command('browse')
    .description('give a goal: the configured model browses until it can answer (progress on stderr, the answer on stdout)')
    .argument('<goal>', 'what to do, and what to answer')
    .option('--session <id>', 'continue in this task session (a run answers with its id)')
    .option('--start-url <url>', 'load this first')
    .option('--runtime <runtime>', 'tools (snapshots and refs) or computer (screenshots and pixels)')
    .option('--provider <name>', 'a provider of config.json browse.providers')
    .option('--max-steps <n>', 'model turns at most', count)
    .option('--step-timeout <ms>', 'the longest one step may take', count)
    .option('--budget <tokens>', 'input and output tokens at most', count)
    .option('--screenshot <file>', 'write a screenshot of the tab at the end (JPEG)')
    .option('--close', 'end the task session when the run ends')
    .action(
      async (
        goal: string,
        options: {
          session?: string;
          startUrl?: string;
          runtime?: 'tools' | 'computer';
          provider?: string;
          maxSteps?: number;
          stepTimeout?: number;
          budget?: number;
          screenshot?: string;
          close?: boolean;
        },
      ) => {
        const request: BrowseRequest = {
          goal,
          ...(options.session ? { session: options.session } : {}),
          ...(options.startUrl ? { startUrl: options.startUrl } : {}),
          ...(options.runtime ? { runtime: options.runtime } : {}),
          ...(options.provider ? { provider: options.provider } : {}),
          ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
          ...(options.stepTimeout ? { stepTimeoutMs: options.stepTimeout } : {}),
          ...(options.budget ? { budget: { tokens: options.budget } } : {}),
          ...(options.screenshot ? { screenshot: true } : {}),
          ...(options.close ? { close: true } : {}),
        };
        const result = await client().browse(request, {
          onEvent: (event) => {
            const line = progressLine(event);
            if (line) process.stderr.write(`${line}\n`);
          },
        });
        if (options.screenshot && result.screenshot) writeFileSync(options.screenshot, Buffer.from(result.screenshot.data, 'base64'));
        const { screenshot: _picture, ...shown } = result;
        print(shown, () => result.answer || '(no answer)');
        if (!program.opts().json) process.stderr.write(`${runLine(result)}\n`);
        if (result.outcome !== 'done') process.exitCode = 1;
      },
    );
}
