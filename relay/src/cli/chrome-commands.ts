import { type Command, InvalidArgumentError } from 'commander';
import type { ChromeStatus } from '../api/chrome-schemas.js';
import type { BrowserClient } from '../client/browser-client.js';
import { withProgress } from './progress.js';
import type { Print } from './print.js';

/**
 * `clawd-browser chrome`: your own running Chrome, attached through its
 * remote-debugging consent (spec §25). `attach` (Chrome asks you), `pick`
 * (the tab picker opens in your Chrome, where you lend tabs), `detach`, and
 * without a subcommand, the state. Lending is yours alone, in the picker.
 */

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 120) throw new InvalidArgumentError('must be a number of seconds (0-120)');
  return n;
}

/** One line for a person. */
export function chromeLine(status: ChromeStatus): string {
  const browser = status.browser ? `${status.browser.product ?? status.browser.title} (${status.browser.userDataDir})` : 'your browser';
  switch (status.state) {
    case 'attached':
      return `attached to ${browser}: ${status.lentTabs} tab(s) lent${status.otherDebuggers ? `; another DevTools client is attached to ${status.otherDebuggers} other tab(s)` : ''}`;
    case 'asking':
      return `Chrome is asking you to allow remote debugging (${browser}): answer its "Allow remote debugging?" prompt`;
    case 'connecting':
      return `attaching to ${browser}…`;
    case 'failed':
      return `not attached: ${status.problem!.message}\nfix: ${status.problem!.fix}`;
    case 'detached':
      return 'not attached (`clawd-browser chrome attach` attaches; Chrome asks you to allow it)';
  }
}

export function addChromeCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const json = () => program.opts().json === true;
  const chrome = program
    .command('chrome')
    .description('your own running Chrome, attached through its remote-debugging consent: attach, pick the tabs to lend, detach')
    .action(async () => {
      const status = await client().chrome.status();
      print(status, () => chromeLine(status));
    });
  chrome
    .command('attach')
    .description('attach to your running Chrome (allow remote debugging at chrome://inspect/#remote-debugging first); Chrome asks you to allow it')
    .option('--wait <seconds>', 'how long to wait for your answer', seconds, 120)
    .action(async (options: { wait: number }) => {
      const status = await withProgress('waiting for you to allow remote debugging in Chrome', client().chrome.attach(options.wait), { json: json() });
      print(status, () => chromeLine(status));
      if (status.state !== 'attached') process.exitCode = 1;
    });
  chrome
    .command('pick')
    .description('attach if need be (Chrome asks you), and open the tab picker in your Chrome: you lend tabs there, and take them back')
    .option('--wait <seconds>', "how long to wait for your answer to Chrome's prompt", seconds, 120)
    .action(async (options: { wait: number }) => {
      const status = await withProgress('waiting for you to allow remote debugging in Chrome', client().chrome.attach(options.wait), { json: json() });
      if (status.state !== 'attached') {
        print(status, () => chromeLine(status));
        process.exitCode = 1;
        return;
      }
      const opened = await client().chrome.openPicker();
      print(opened, () => 'the tab picker is open in your Chrome: lend tabs there (agents reach those only)');
    });
  chrome
    .command('detach')
    .description('let go of your Chrome: every lent tab is taken back')
    .action(async () => {
      const status = await client().chrome.detach();
      print(status, () => 'detached: no tab is lent');
    });
}
