/**
 * `npm run eval`: the built-in suite (eval/suite.ts) run by the browse
 * runtime against a provider of config.json, on pages served here on
 * loopback, each task scored from the page's own state. With
 * `--against playwright-mcp` (or `both`), the same tasks, the same model
 * and the same loop drive Playwright MCP's tools instead of clawd's, so
 * the tools are what is compared.
 *
 *   npm run eval -- [--provider NAME] [--runtime tools|computer] [--against clawd|playwright-mcp|both]
 *                   [--tasks form,list,...] [--max-steps N] [--url URL] [--json]
 *
 * clawd-browser's side runs on the server this home's CLI talks to (each
 * task in a fresh task session, closed after it); its config must let
 * sessions reach 127.0.0.1 (urlPolicy "private": ["127.0.0.1"]).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runLoop } from '../relay/src/browse/browse-loop.js';
import { providerFor } from '../relay/src/browse/providers/provider-for.js';
import { systemPrompt } from '../relay/src/browse/system-prompt.js';
import { BrowserClient } from '../relay/src/client/browser-client.js';
import { NotFoundError } from '../relay/src/errors.js';
import { providerNamed } from '../relay/src/config/browse-config.js';
import { loadConfig } from '../relay/src/config/config.js';
import { currentPlatform } from '../relay/src/config/platform.js';
import { clawdHome } from '../relay/src/config/state-dir.js';
import { defaultExecutableEnv, findExecutable } from '../relay/src/profiles/executable.js';
import { startEvalSite } from './eval-site.js';
import { mcpToolset } from './mcp-toolset.js';
import { type EvalTask, TASKS } from './suite.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);

export interface EvalScore {
  task: string;
  tools: 'clawd-browser' | 'playwright-mcp';
  passed: boolean;
  outcome: string;
  steps: number;
  tokens: number;
  seconds: number;
  error?: string;
}

export interface EvalOptions {
  home: string;
  url?: string;
  provider?: string;
  runtime?: 'tools' | 'computer';
  against: Array<'clawd-browser' | 'playwright-mcp'>;
  tasks: EvalTask[];
  maxSteps?: number;
  /** Told of each score as it comes. */
  onScore?: (score: EvalScore) => void;
}

export async function runEval(options: EvalOptions): Promise<EvalScore[]> {
  const config = loadConfig(options.home);
  const chosen = providerNamed(config.browse, options.provider);
  const site = await startEvalSite();
  const scores: EvalScore[] = [];
  const score = (entry: EvalScore) => {
    scores.push(entry);
    options.onScore?.(entry);
  };
  try {
    for (const task of options.tasks) {
      for (const tools of options.against) {
        site.reset();
        const started = performance.now();
        const seconds = () => Math.round((performance.now() - started) / 100) / 10;
        try {
          const ended =
            tools === 'clawd-browser'
              ? await clawdRun(BrowserClient.local({ home: options.home, url: options.url }), task, site.origin, chosen.name, options)
              : await withPlaywrightMcp(config.executablePath, (client) => playwrightRun(client, task, site.origin, chosen, config.browse, options.maxSteps));
          score({
            task: task.name,
            tools,
            passed: task.passed(site.state()),
            outcome: ended.outcome + (ended.stoppedBy ? ` (${ended.stoppedBy})` : ''),
            steps: ended.steps,
            tokens: ended.usage.totalTokens,
            seconds: seconds(),
            ...(ended.error ? { error: ended.error } : {}),
          });
        } catch (error) {
          score({
            task: task.name,
            tools,
            passed: false,
            outcome: 'error',
            steps: 0,
            tokens: 0,
            seconds: seconds(),
            error: (error as Error).message.split('\n')[0],
          });
        }
      }
    }
  } finally {
    await site.close();
  }
  return scores;
}

/** One task on clawd-browser's tools, in a task session of its own: the rules the task pre-approves first (those this server's config has). */
async function clawdRun(client: BrowserClient, task: EvalTask, origin: string, provider: string, options: EvalOptions) {
  let session: string | undefined;
  if (task.approves?.length) {
    session = (await client.openSession({ credential_mode: 'clean' })).id;
    // A rule this server's config does not have holds nothing back: there is nothing to approve.
    for (const rule of task.approves)
      await client.approveRule(session, rule).catch((error: Error) => {
        if (!(error instanceof NotFoundError)) throw error;
      });
  }
  try {
    return await client.browse({
      goal: task.goal(origin),
      startUrl: `${origin}${task.start}`,
      provider,
      runtime: options.runtime,
      maxSteps: options.maxSteps,
      close: true,
      ...(session ? { session } : {}),
    });
  } catch (error) {
    if (session) await client.closeSession(session).catch(() => {});
    throw error;
  }
}

/** Playwright MCP, started for one task with a browser of its own (headless, isolated), as its README shows. */
async function withPlaywrightMcp<T>(executablePath: string | undefined, work: (client: Client) => Promise<T>): Promise<T> {
  const output = mkdtempSync(join(tmpdir(), 'clawd-eval-pwmcp-'));
  const executable = findExecutable({ executablePath, platform: currentPlatform(), env: defaultExecutableEnv() });
  const args = [
    join(ROOT, 'node_modules/@playwright/mcp/cli.js'),
    '--headless',
    '--isolated',
    '--executable-path',
    executable,
    '--output-dir',
    output,
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ];
  const client = new Client({ name: 'clawd-browser-eval', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  try {
    return await work(client);
  } finally {
    await client.close().catch(() => {});
    rmSync(output, { recursive: true, force: true });
  }
}

async function playwrightRun(
  client: Client,
  task: EvalTask,
  origin: string,
  chosen: ReturnType<typeof providerNamed>,
  browse: ReturnType<typeof loadConfig>['browse'],
  maxSteps?: number,
) {
  // The start page, as clawd's side is given it (startUrl): not a step of the model's.
  await client.callTool({ name: 'browser_navigate', arguments: { url: `${origin}${task.start}` } });
  const toolset = await mcpToolset(client);
  const provider = await providerFor(chosen.name, chosen.provider);
  const conversation = provider.conversation({ system: systemPrompt('other'), tools: toolset.functions });
  return runLoop({
    conversation,
    toolset,
    goal: task.goal(origin),
    settings: {
      maxSteps: Math.min(maxSteps ?? browse.maxSteps, browse.maxStepsLimit),
      stepTimeoutMs: browse.stepTimeoutMs,
      budgetTokens: browse.budgetTokens || undefined,
    },
    signal: new AbortController().signal,
    onStep: () => {},
  });
}

function table(scores: EvalScore[]): string {
  const rows = [
    ['task', 'tools', 'passed', 'outcome', 'steps', 'tokens', 'seconds'],
    ...scores.map((s) => [s.task, s.tools, s.passed ? 'yes' : 'NO', s.outcome, String(s.steps), String(s.tokens), s.seconds.toFixed(1)]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string' },
      runtime: { type: 'string' },
      against: { type: 'string', default: 'clawd' },
      tasks: { type: 'string' },
      'max-steps': { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const against =
    values.against === 'both'
      ? (['clawd-browser', 'playwright-mcp'] as const)
      : values.against === 'playwright-mcp'
        ? (['playwright-mcp'] as const)
        : (['clawd-browser'] as const);
  const names = values.tasks?.split(',').map((name) => name.trim());
  const tasks = names ? TASKS.filter((task) => names.includes(task.name)) : TASKS;
  if (names && tasks.length !== names.length) throw new Error(`--tasks: the tasks are ${TASKS.map((task) => task.name).join(', ')}`);
  const scores = await runEval({
    home: clawdHome(),
    url: values.url ?? process.env.CLAWD_URL,
    provider: values.provider,
    runtime: values.runtime === 'computer' ? 'computer' : values.runtime === 'tools' ? 'tools' : undefined,
    against: [...against],
    tasks,
    maxSteps: values['max-steps'] ? Number(values['max-steps']) : undefined,
    onScore: values.json
      ? undefined
      : (score) => process.stderr.write(`${score.task} with ${score.tools}: ${score.passed ? 'passed' : 'FAILED'}${score.error ? ` (${score.error})` : ''}\n`),
  });
  if (values.json) console.log(JSON.stringify(scores));
  else console.log(`\n${table(scores)}\n\n${scores.filter((score) => score.passed).length} passed, ${scores.filter((score) => !score.passed).length} failed`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().catch((error: unknown) => {
    console.error(`eval: ${(error as Error).message}`);
    process.exit(1);
  });
}
