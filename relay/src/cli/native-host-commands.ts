import { homedir } from 'node:os';
import { type Command, Option } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import { EXTENSION_ID } from '../../../protocol/constants.js';
import { BROWSERS, type BrowserName } from '../config/browser-homes.js';
import { CLI_PATH, PACKAGE_VERSION } from '../config/package-root.js';
import { currentPlatform } from '../config/platform.js';
import { clawdHome, loadOrCreateExtensionKey, loadOrCreateToken } from '../config/state-dir.js';
import { createLogger } from '../log.js';
import type { InstallOptions } from '../native-host/install.js';
import type { Print } from './print.js';

/** The native messaging host (spec §8): registering it, and the host itself, which Chrome starts. Its code is imported when its command runs. */

function installOptions(options: { browser: string; userDataDir?: string; extensionId?: string[] }): InstallOptions {
  return {
    browsers: options.browser === 'all' ? [...BROWSERS] : [options.browser as BrowserName],
    userDataDir: options.userDataDir,
    extensionIds: options.extensionId?.length ? options.extensionId : [EXTENSION_ID],
    platform: currentPlatform(),
    home: homedir(),
    xdgConfigHome: process.env.XDG_CONFIG_HOME,
    clawdHome: clawdHome(),
    nodePath: process.execPath,
    cliPath: CLI_PATH,
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const browserOption = () => new Option('--browser <name>', 'which browser to register with').choices([...BROWSERS, 'all']).default('all');

export function addNativeHostCommands(program: Command, _client: () => BrowserClient, print: Print): void {
  program
    .command('install-native-host')
    .description('register the native messaging host so the extension finds (and starts) the relay by itself')
    .addOption(browserOption())
    .option('--user-data-dir <dir>', 'write the manifest into <dir>/NativeMessagingHosts (a specific profile)')
    .option('--extension-id <id>', `extension ID allowed to call the host (default ${EXTENSION_ID}; repeatable)`, collect)
    .action(async (options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
      const [{ installNativeHost }, { ensureConfig }] = await Promise.all([import('../native-host/install.js'), import('../config/config.js')]);
      loadOrCreateToken(clawdHome());
      loadOrCreateExtensionKey(clawdHome());
      ensureConfig(clawdHome());
      const result = installNativeHost(installOptions(options));
      print(result, () =>
        [`launcher: ${result.launcher}`, ...result.manifests.map((p) => `manifest: ${p}`), ...result.registryKeys.map((k) => `registry: ${k}`)].join('\n'),
      );
    });

  program
    .command('uninstall-native-host')
    .description('remove what install-native-host wrote')
    .addOption(browserOption())
    .option('--user-data-dir <dir>', 'the profile directory given at install time')
    .option('--extension-id <id>', 'as given at install time', collect)
    .action(async (options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
      const { uninstallNativeHost } = await import('../native-host/install.js');
      const result = uninstallNativeHost(installOptions(options));
      print(result, () => result.manifests.map((p) => `removed: ${p}`).join('\n') || 'nothing to remove');
    });

  // Started by Chrome through the launcher, never by hand: stdout carries frames only.
  program
    .command('native-host', { hidden: true })
    .argument('[origin]', 'the calling extension origin, passed by Chrome')
    .allowUnknownOption()
    .action(async (origin: string | undefined) => {
      const { runNativeHost } = await import('../native-host/host.js');
      const ids = (process.env.CLAWD_EXTENSION_IDS || EXTENSION_ID).split(',').filter(Boolean);
      const code = await runNativeHost({
        input: process.stdin,
        output: process.stdout,
        origin,
        allowedOrigins: ids.map((id) => `chrome-extension://${id}/`),
        context: { home: clawdHome(), version: PACKAGE_VERSION, cliPath: CLI_PATH },
        log: createLogger('warn', 'native-host'),
      });
      process.exit(code);
    });
}
