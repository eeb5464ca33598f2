import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The agent skill (skills/clawd-browser/SKILL.md) teaches commands an agent
 * will run as written: every `clawd-browser <command> --option` it names must
 * exist in the CLI's own help, and its header must be what coding agents
 * load (a name and a description).
 */

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const skill = readFileSync(new URL('../../skills/clawd-browser/SKILL.md', import.meta.url), 'utf8');

describe('the agent skill', () => {
  it('has the header agents load: a name and a description that says when to use it', () => {
    const header = /^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1] ?? '';
    expect(header).toMatch(/^name: clawd-browser$/m);
    expect(/^description: (.+)$/m.exec(header)?.[1].length).toBeGreaterThan(80);
  });

  it('names only commands and options the CLI has', async () => {
    const global = ['--profile', '--json', '--url', '--help'];
    // Commands are inline code or lines of a code block; prose that names the tool is not a command.
    const blocks = [...skill.matchAll(/```\w*\n([\s\S]*?)```/g)].flatMap((block) => block[1].split('\n'));
    const inline = [...skill.matchAll(/`(clawd-browser [^`]+)`/g)].map((span) => span[1]);
    const uses = [...blocks, ...inline]
      // A command, and its subcommand when it has one (`route fulfill`, `storage set`): a bare word next.
      .map((line) => /^clawd-browser ((?:--profile \S+ )?)([a-z][a-z-]*(?: [a-z][a-z-]*(?=\s|$))?)([^#]*)/.exec(line.trim()))
      .filter((match) => match !== null)
      .map((match) => ({ command: match[2], options: [...match[3].matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((option) => option[1]) }));
    expect(uses.length).toBeGreaterThan(15);
    const commands = [...new Set(uses.map((use) => use.command))];
    const helps = new Map(
      await Promise.all(commands.map(async (command) => [command, (await run(process.execPath, [CLI, ...command.split(' '), '--help'])).stdout] as const)),
    );
    for (const { command, options } of uses) {
      const help = helps.get(command)!;
      expect(help, `clawd-browser ${command}`).toMatch(new RegExp(`^Usage: clawd-browser ${command}\\b`));
      for (const option of options.filter((option) => !global.includes(option))) expect(help, `clawd-browser ${command} ${option}`).toContain(option);
    }
  });
});
