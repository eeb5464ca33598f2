import { type Command, InvalidArgumentError } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import { pageToolAnswer, pageToolLine } from '../mcp/page-tool-lines.js';
import { fenced } from '../api/page-content.js';
import type { Print } from './print.js';

/** The tools pages offer agents (WebMCP, spec §21): `page-tools` lists a tab's, `page-tool NAME` calls one. */

/** `--input '{"sku":"x1"}'`: a JSON object, said as such when it is not one. */
function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`must be a JSON object (${(error as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('must be a JSON object, like \'{"q": "shoes"}\'');
  return parsed as Record<string, unknown>;
}

export function addPageToolsCommands(program: Command, client: () => BrowserClient, print: Print): void {
  program
    .command('page-tools')
    .description("the tools the tab's page offers agents (WebMCP), with their inputs; * marks a required one")
    .option('--target <targetId>', 'the tab')
    .action(async (options: { target?: string }) => {
      const answer = await client().pageTools.list({ targetId: options.target });
      print(answer, () => (answer.tools.length ? fenced(answer.fence, answer.tools.map(pageToolLine)) : (answer.unavailable ?? 'the page offers no tools')));
    });
  program
    .command('page-tool')
    .description("call one of the page's tools and wait for its answer")
    .argument('<name>', 'the tool, as page-tools lists it')
    .option('--input <json>', "its input, a JSON object checked against the tool's schema", jsonObject)
    .option('--frame <frameId>', 'when two frames offer a tool of that name')
    .option('--timeout <ms>', 'how long to wait for its answer (default 30000)', (value) => Number(value))
    .option('--target <targetId>', 'the tab')
    .action(async (name: string, options: { input?: Record<string, unknown>; frame?: string; timeout?: number; target?: string }) => {
      const answer = await client().pageTools.call({
        targetId: options.target,
        name,
        input: options.input ?? {},
        frameId: options.frame,
        timeoutMs: options.timeout,
      });
      print(answer, () => pageToolAnswer(answer));
      if (answer.status !== 'Completed') process.exitCode = 1;
    });
}
