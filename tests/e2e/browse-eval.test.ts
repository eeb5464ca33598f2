import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { createLogger } from '../../relay/src/log.js';
import { runEval } from '../../eval/run.js';
import { TASKS } from '../../eval/suite.js';
import { startOpenAiChatStandIn } from '../harness/model-standins/openai-chat-standin.js';
import type { StandIn } from '../harness/model-standins/standin-server.js';
import { freePortPair } from '../harness/ports.js';
import { freshHome } from '../harness/control-env.js';

/**
 * `npm run eval` with a provider from config (the chat API's stand-in and
 * its rule-based policy): the built-in suite on clawd-browser's tools and,
 * with the same model and loop, on Playwright MCP's; each task scored by
 * what its page reported.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let server: ClawdServer;
let home: string;
let chat: StandIn;

beforeAll(async () => {
  chat = await startOpenAiChatStandIn();
  const ports = await freePortPair();
  home = freshHome({
    controlUrl: `http://127.0.0.1:${ports.control}`,
    headless: true,
    noSandbox: true,
    sessionIsolation: 'process',
    sessionSpares: 0,
    // What the guide says to set: sessions public-only, this machine's eval pages let through.
    urlPolicy: { mode: 'public-only', private: ['127.0.0.1'] },
    browse: { providers: { local: { api: 'openai-chat', model: 'stand-in-chat', baseUrl: `${chat.url}/v1` } } },
  });
  server = await startServer({ home, logger: createLogger('warn') });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await chat?.close();
});

it("every built-in task passes on clawd-browser and on Playwright MCP, scored from the pages' own state", async () => {
  const scores = await runEval({ home, url: `http://127.0.0.1:${server.control.port}`, against: ['clawd-browser', 'playwright-mcp'], tasks: TASKS });
  expect(scores.map((score) => `${score.task} ${score.tools} ${score.passed} ${score.outcome}`)).toEqual(
    TASKS.flatMap((task) => [`${task.name} clawd-browser true done`, `${task.name} playwright-mcp true done`]),
  );
  for (const score of scores) {
    expect(score.steps).toBeGreaterThan(2);
    expect(score.tokens).toBeGreaterThan(0);
  }
}, 240_000);

it('npm run eval: the table on stdout, each task as it ends on stderr', async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'eval/run.ts', '--tasks', 'shadow-dom', '--url', `http://127.0.0.1:${server.control.port}`],
    { cwd: ROOT, env: { ...process.env, CLAWD_HOME: home } },
  );
  expect(stderr).toBe('shadow-dom with clawd-browser: passed\n');
  expect(stdout).toMatch(/^task +tools +passed +outcome +steps +tokens +seconds$/m);
  expect(stdout).toMatch(/^shadow-dom +clawd-browser +yes +done +6 /m);
}, 60_000);
