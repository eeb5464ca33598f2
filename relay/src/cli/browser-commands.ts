import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BrowserClient } from '../client/browser-client.js';

/** The commands that talk to a running server through the typed client (spec §10). */

type Print = (value: unknown, human: () => string) => void;

export function addBrowserCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const tabLine = (tab: { targetId: string; url: string; title: string }) => `${tab.targetId}  ${tab.title || '(untitled)'}  ${tab.url}`;

  program
    .command('status')
    .description("the profile's browser: enabled, running, pid, CDP port or URL, attached tabs")
    .action(async () => {
      const status = await client().status();
      print(status, () =>
        Object.entries(status)
          .map(([key, value]) => `${key}: ${value}`)
          .join('\n'),
      );
    });
  program
    .command('start')
    .description("start (or connect to) the profile's browser")
    .action(async () => print(await client().start(), () => 'started'));
  program
    .command('stop')
    .description("stop the profile's browser (managed) or disconnect from it")
    .action(async () => print(await client().stop(), () => 'stopped'));
  program
    .command('reset-profile')
    .description("kill an orphan browser holding a managed profile's port or data")
    .action(async () => {
      const result = await client().resetProfile();
      print(result, () => (result.killed.length ? `killed ${result.killed.join(', ')}` : 'nothing to kill'));
    });

  program
    .command('profiles')
    .description('list profiles')
    .action(async () => {
      const { profiles, defaultProfile } = await client().profiles();
      print({ profiles, defaultProfile }, () =>
        profiles
          .map((p) => `${p.name === defaultProfile ? '*' : ' '} ${p.name}  ${p.driver}  ${p.color}  ${p.cdpPort ?? p.cdpUrl ?? ''}  ${p.running ? 'running' : 'stopped'}`)
          .join('\n'),
      );
    });
  program
    .command('create-profile')
    .description('create a managed profile (or a remote one with --cdp-url)')
    .requiredOption('--name <name>', 'lowercase letters, digits, hyphens; at most 64')
    .option('--color <hex>', 'e.g. #1E88E5')
    .option('--cdp-url <url>', 'attach to a browser elsewhere instead of launching one')
    .action(async (options: { name: string; color?: string; cdpUrl?: string }) => {
      const profile = await client().createProfile(options);
      print(profile, () => `created ${profile.name} (${profile.driver}, ${profile.cdpPort ?? profile.cdpUrl})`);
    });
  program
    .command('delete-profile')
    .description("delete a profile: stops its browser and removes a local profile's data")
    .requiredOption('--name <name>', 'the profile')
    .action(async (options: { name: string }) => print(await client().deleteProfile(options.name), () => `deleted ${options.name}`));

  program
    .command('tabs')
    .description('list tabs')
    .action(async () => {
      const tabs = await client().tabs();
      print(tabs, () => tabs.map(tabLine).join('\n') || '(no tabs)');
    });
  program
    .command('open')
    .description('open a tab')
    .argument('<url>')
    .action(async (url: string) => {
      const tab = await client().openTab(url);
      print(tab, () => tabLine(tab));
    });
  program
    .command('focus')
    .description('bring a tab to the front (a unique targetId prefix will do)')
    .argument('<targetId>')
    .action(async (targetId: string) => {
      const tab = await client().focusTab(targetId);
      print(tab, () => tabLine(tab));
    });
  program
    .command('close')
    .description('close a tab')
    .argument('<targetId>')
    .action(async (targetId: string) => {
      const tab = await client().closeTab(targetId);
      print(tab, () => `closed ${tabLine(tab)}`);
    });
  program
    .command('navigate')
    .description('navigate a tab (the last used one by default)')
    .argument('<url>')
    .option('--target <targetId>', 'the tab')
    .action(async (url: string, options: { target?: string }) => {
      const tab = await client().navigate(url, options.target);
      print(tab, () => tabLine(tab));
    });
  program
    .command('screenshot')
    .description('save a screenshot of a tab')
    .option('--target <targetId>', 'the tab')
    .option('--full-page', 'the whole page, not just the viewport')
    .option('--element <selector>', 'just this element')
    .option('--type <type>', 'png or jpeg', 'png')
    .option('--out <file>', 'where to write it (default: ./screenshot-<time>.<type>)')
    .action(async (options: { target?: string; fullPage?: boolean; element?: string; type: 'png' | 'jpeg'; out?: string }) => {
      const shot = await client().screenshot({ targetId: options.target, fullPage: options.fullPage, element: options.element, type: options.type });
      const path = resolve(options.out ?? `screenshot-${Date.now()}.${shot.type}`);
      writeFileSync(path, Buffer.from(shot.data, 'base64'));
      print({ path, targetId: shot.targetId, mimeType: shot.mimeType }, () => path);
    });
  program
    .command('pdf')
    .description('save a tab as PDF')
    .option('--target <targetId>', 'the tab')
    .option('--out <file>', 'where to write it (default: ./page-<time>.pdf)')
    .action(async (options: { target?: string; out?: string }) => {
      const pdf = await client().pdf(options.target);
      const path = resolve(options.out ?? `page-${Date.now()}.pdf`);
      writeFileSync(path, Buffer.from(pdf.data, 'base64'));
      print({ path, targetId: pdf.targetId }, () => path);
    });
  program
    .command('console')
    .description("a tab's console messages")
    .option('--level <level>', 'this level and worse: debug, log, info, warning, error')
    .option('--target <targetId>', 'the tab')
    .action(async (options: { level?: string; target?: string }) => {
      const result = await client().console({ level: options.level, targetId: options.target });
      print(result, () => result.messages.map((m) => `${m.level}: ${m.text}`).join('\n') || '(no messages)');
    });
}
