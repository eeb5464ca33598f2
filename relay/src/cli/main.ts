import { Command } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import { ClawdError, nextStepIn } from '../errors.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { commandWordIn, groupsFor, loadClient } from './command-table.js';

/**
 * `clawd-browser <command>`: one line of reason and a non-zero exit on
 * failure (spec §10). Only the group of the command named is loaded
 * (command-table.ts); the CLI is bundled into one file (scripts/build-cli.ts).
 */

const program = new Command()
  .name('clawd-browser')
  .description('A browser for AI agents: managed Chromium profiles and your own Chrome, behind one local API.')
  .version(PACKAGE_VERSION)
  .option('--profile <name>', 'the profile to act on (default: config.json defaultProfile)')
  .option('--json', 'machine-readable output')
  .option(
    '--url <url>',
    "the control API to talk to (default: CLAWD_URL, else the address this home's server wrote to server.json, else config.json controlUrl)",
  )
  .option('--agent <name>', "act as this agent (default: CLAWD_AGENT): without --target, commands mean this agent's own tabs, never another agent's")
  .option(
    '--key <key>',
    "act with a task session's key instead of this home's token: that session only, its profile meant when --profile is left out (default: CLAWD_KEY)",
  )
  // A usage error is one line and a pointer to the help, not the whole help.
  .showHelpAfterError('(run with --help for usage)');

/** A task session's key, when the caller holds one instead of the token. */
const sessionKey = (): string | undefined => program.opts().key ?? (process.env.CLAWD_KEY?.trim() || undefined);
const print = (value: unknown, human: () => string) => console.log(program.opts().json ? JSON.stringify(value) : human());
// Ctrl-C cancels the request in flight: the server stops the work (a wait, a navigation) for us.
const interrupt = new AbortController();
/** Loaded with the command's group, before any command runs. */
let Client: typeof BrowserClient | undefined;
const client = () => {
  if (!Client) throw new Error('the client is used before it was loaded');
  if (!process.listenerCount('SIGINT')) process.once('SIGINT', () => interrupt.abort(new Error('cancelled (Ctrl-C)')));
  return Client.local({
    profile: program.opts().profile,
    url: program.opts().url,
    key: sessionKey(),
    agent: program.opts().agent ?? process.env.CLAWD_AGENT,
  }).withSignal(interrupt.signal);
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const valueOptions = new Set(
    program.options
      .filter((option) => option.required || option.optional)
      .flatMap((option) => [option.long, option.short].filter((flag): flag is string => !!flag)),
  );
  const word = commandWordIn(args, valueOptions);
  // `--version` alone needs no command's code; anything else not naming a command (help, a typo) gets them all.
  const versionOnly = word === undefined && args.some((arg) => arg === '-V' || arg === '--version');
  const groups = versionOnly ? [] : groupsFor(word);
  if (groups.length) Client = await loadClient();
  for (const group of groups) (await group.load())(program, client, print);
  await program.parseAsync(process.argv);
}

main().catch((error: unknown) => {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  // A ClawdError of a module loaded from the build (serve, doctor, config.json's) is another copy of the class: known by its details.
  const next = error instanceof ClawdError || (error instanceof Error && 'details' in error) ? nextStepIn(error as ClawdError, 'cli') : undefined;
  console.error(`clawd-browser: ${next ? `${message.replace(/[.\s]+$/, '')} (${next})` : message}`);
  process.exit(interrupt.signal.aborted ? 130 : 1);
});
