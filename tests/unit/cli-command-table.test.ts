import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, commandWordIn, groupsFor } from '../../relay/src/cli/command-table.js';

/**
 * The CLI's command table (relay/src/cli/command-table.ts): a command loads
 * only its own group, so the table must name every command each group
 * defines, as the group itself defines it.
 */

const noClient = () => {
  throw new Error('no command runs here');
};

async function commandsOf(group: (typeof COMMAND_GROUPS)[number]): Promise<string[]> {
  const program = new Command();
  (await group.load())(program, noClient, () => {});
  return program.commands.map((command) => command.name());
}

describe('the command table', () => {
  it("names each group's commands as the group defines them, in its order", async () => {
    for (const group of COMMAND_GROUPS) expect(group.commands).toEqual(await commandsOf(group));
  });

  it('puts every command in one group only, and no command has an alias the table would not find', async () => {
    const names = COMMAND_GROUPS.flatMap((group) => group.commands);
    expect(new Set(names).size).toBe(names.length);
    for (const group of COMMAND_GROUPS) {
      const program = new Command();
      (await group.load())(program, noClient, () => {});
      expect(program.commands.flatMap((command) => command.aliases())).toEqual([]);
    }
  });

  it('loads the one group of a command it names, and every group for help or a name it does not know', () => {
    const [click] = groupsFor('click');
    expect(groupsFor('click')).toHaveLength(1);
    expect(click.commands).toContain('snapshot');
    expect(groupsFor('serve')[0].commands).toContain('mcp');
    expect(groupsFor(undefined)).toBe(COMMAND_GROUPS);
    expect(groupsFor('help')).toBe(COMMAND_GROUPS);
    expect(groupsFor('clik')).toBe(COMMAND_GROUPS);
  });
});

describe('the command a command line names', () => {
  const values = new Set(['--profile', '--url', '--agent', '--key']);

  it('is its first word past the global options and their values', () => {
    expect(commandWordIn(['click', 'e5'], values)).toBe('click');
    expect(commandWordIn(['--profile', 'work', 'click', 'e5'], values)).toBe('click');
    expect(commandWordIn(['--json', '--agent', 'a1', '--key', 'k', 'tabs'], values)).toBe('tabs');
    expect(commandWordIn(['--profile=work', '--json', 'snapshot', '-i'], values)).toBe('snapshot');
    // A value that looks like a command is still the option's.
    expect(commandWordIn(['--profile', 'tabs', 'open', 'https://example.com'], values)).toBe('open');
    expect(commandWordIn(['--', 'tabs'], values)).toBe('tabs');
  });

  it('is none when only options are given', () => {
    expect(commandWordIn([], values)).toBeUndefined();
    expect(commandWordIn(['--version'], values)).toBeUndefined();
    expect(commandWordIn(['--json', '--help'], values)).toBeUndefined();
    // The value is missing: commander says so.
    expect(commandWordIn(['--profile'], values)).toBeUndefined();
  });
});
