import type { Command } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import type { Print } from './print.js';

/**
 * Every `clawd-browser` command by name, and the group that defines it: a
 * command loads its own group's code and nothing else (a second of start-up
 * was spent loading every command's code, the servers' included, before any
 * command ran). The groups are in `--help`'s order. A name missing here
 * still works (an unknown name loads every group, as help does), only
 * slower; tests/unit/cli-command-table.test.ts says which.
 *
 * The groups are bundled into the CLI (scripts/build-cli.ts); any other
 * `import()` in a command's code is loaded from the build in dist/node when
 * the command runs (the servers, the native host, doctor, config.json's
 * schema), as it always was.
 */

/** What each group is handed: the program to add its commands to, a client of the server, and how to print an answer. */
export type AddCommands = (program: Command, client: () => BrowserClient, print: Print) => void;

export interface CommandGroup {
  /** Its top-level commands, as `program.command(…)` names them. */
  commands: readonly string[];
  load(): Promise<AddCommands>;
}

export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    commands: ['serve', 'token', 'webhook-secret', 'extension-key', 'cdp-url', 'extension-path', 'mcp', 'doctor'],
    load: async () => (await import('./home-commands.js')).addHomeCommands,
  },
  {
    commands: [
      ...['status', 'dashboard', 'start', 'stop', 'reset-profile', 'profiles', 'create-profile', 'delete-profile'],
      ...['tabs', 'open', 'focus', 'close', 'navigate', 'screenshot', 'script', 'pdf', 'console', 'snapshot', 'find', 'text'],
      ...['click', 'type', 'press', 'hover', 'drag', 'select', 'fill', 'resize', 'wait', 'evaluate', 'upload', 'downloads', 'dialog'],
    ],
    load: async () => (await import('./browser-commands.js')).addBrowserCommands,
  },
  {
    commands: ['click-at', 'mousemove', 'mousedown', 'mouseup', 'drag-at', 'select-text', 'select-text-at', 'scroll'],
    load: async () => (await import('./pointer-commands.js')).addPointerCommands,
  },
  {
    commands: [
      'sessions',
      'session-open',
      'session-close',
      'session-approve',
      'grant',
      'vault-list',
      'vault-forget',
      'secret-set',
      'secret-list',
      'secret-forget',
      'reap',
    ],
    load: async () => (await import('./session-commands.js')).addSessionCommands,
  },
  {
    commands: ['emulate', 'route', 'init-script', 'cookies', 'storage', 'storage-state'],
    load: async () => (await import('./toolbox-commands.js')).addToolboxCommands,
  },
  { commands: ['page-tools', 'page-tool'], load: async () => (await import('./page-tools-commands.js')).addPageToolsCommands },
  { commands: ['video'], load: async () => (await import('./video-commands.js')).addVideoCommands },
  { commands: ['demonstration', 'routines', 'routine', 'notes'], load: async () => (await import('./teach-commands.js')).addTeachCommands },
  { commands: ['chrome'], load: async () => (await import('./chrome-commands.js')).addChromeCommands },
  { commands: ['browse'], load: async () => (await import('./browse-commands.js')).addBrowseCommands },
  {
    commands: ['install-native-host', 'uninstall-native-host', 'native-host'],
    load: async () => (await import('./native-host-commands.js')).addNativeHostCommands,
  },
];

/** The client of the server, loaded with the groups (and node:http with it): `--version` goes without. */
export async function loadClient(): Promise<typeof BrowserClient> {
  return (await import('../client/browser-client.js')).BrowserClient;
}

/**
 * The command a command line names: its first word that is not a global
 * option or a global option's value (`--profile work click e5` → `click`).
 * `valueOptions` are the global options that take a value.
 */
export function commandWordIn(args: readonly string[], valueOptions: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return args[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (valueOptions.has(arg)) i++;
  }
  return undefined;
}

/** The groups a command line needs: its command's, or every group when it names none of them (help, a typo to suggest for). */
export function groupsFor(word: string | undefined, groups: readonly CommandGroup[] = COMMAND_GROUPS): readonly CommandGroup[] {
  const own = word === undefined ? undefined : groups.find((group) => group.commands.includes(word));
  return own ? [own] : groups;
}
