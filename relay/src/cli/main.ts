import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { BrowserClient } from '../client/browser-client.js';
import { ClawdError, nextStepIn } from '../errors.js';
import { controlAddress, ensureConfig, loadConfig, urlHost } from '../config/config.js';
import { DEFAULT_CONTROL_PORT, EXTENSION_ID, relayPortFor } from '../../../protocol/constants.js';
import { CLI_PATH, EXTENSION_DIR, PACKAGE_VERSION } from '../config/package-root.js';
import { controlUrlFor, relayAddressFor } from '../config/server-record.js';
import { currentPlatform } from '../config/platform.js';
import { clawdHome, loadOrCreateExtensionKey, loadOrCreateToken, loadOrCreateWebhookKey, webhookSecretText } from '../config/state-dir.js';
import { createLogger, type LogLevel } from '../log.js';
import { runNativeHost } from '../native-host/host.js';
import { BROWSERS, type BrowserName, installNativeHost, type InstallOptions, uninstallNativeHost } from '../native-host/install.js';
import { addBrowserCommands } from './browser-commands.js';
import { addSessionCommands } from './session-commands.js';
import { addVideoCommands } from './video-commands.js';
import { addTeachCommands } from './teach-commands.js';
import { addBrowseCommands } from './browse-commands.js';
import { addPointerCommands } from './pointer-commands.js';
import { addToolboxCommands } from './toolbox-commands.js';
import { addPageToolsCommands } from './page-tools-commands.js';
import { addChromeCommands } from './chrome-commands.js';
import { describeChecks, runDoctor } from './doctor.js';
import { CAPABILITY_GROUPS } from '../mcp/capabilities.js';
import { serve } from './serve.js';

/** `clawd-browser <command>`: one line of reason and a non-zero exit on failure (spec §10). */

const VERSION = PACKAGE_VERSION;

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65534) throw new InvalidArgumentError('must be a port number (0-65534)');
  return n;
}

const program = new Command()
  .name('clawd-browser')
  .description('A browser for AI agents: managed Chromium profiles and your own Chrome, behind one local API.')
  .version(VERSION)
  .option('--profile <name>', 'the profile to act on (default: config.json defaultProfile)')
  .option('--json', 'machine-readable output')
  .option('--url <url>', "the control API to talk to (default: CLAWD_URL, else the address this home's server wrote to server.json, else config.json controlUrl)")
  .option('--agent <name>', "act as this agent (default: CLAWD_AGENT): without --target, commands mean this agent's own tabs, never another agent's")
  .option('--key <key>', "act with a task session's key instead of this home's token: that session only, its profile meant when --profile is left out (default: CLAWD_KEY)")
  // A usage error is one line and a pointer to the help, not the whole help.
  .showHelpAfterError('(run with --help for usage)');

/** A task session's key, when the caller holds one instead of the token. */
const sessionKey = (): string | undefined => program.opts().key ?? (process.env.CLAWD_KEY?.trim() || undefined);
const print = (value: unknown, human: () => string) => console.log(program.opts().json ? JSON.stringify(value) : human());
// Ctrl-C cancels the request in flight: the server stops the work (a wait, a navigation) for us.
const interrupt = new AbortController();
const client = () => {
  if (!process.listenerCount('SIGINT')) process.once('SIGINT', () => interrupt.abort(new Error('cancelled (Ctrl-C)')));
  return BrowserClient.local({ profile: program.opts().profile, url: program.opts().url, key: sessionKey(), agent: program.opts().agent ?? process.env.CLAWD_AGENT }).withSignal(interrupt.signal);
};

program
  .command('serve')
  .description(`run the control API (default 127.0.0.1:${DEFAULT_CONTROL_PORT}) and the extension relay (one port above) until interrupted`)
  .option('--port <port>', 'control API port (default: config.json controlUrl); the relay listens on port + 1', port)
  .option('--host <host>', 'address to bind (default: the controlUrl host); anything but loopback exposes the browser')
  .option('--log-level <level>', 'debug | info | warn | error | silent', 'info')
  // Given by `mcp` and the native host when they start the server themselves: it exits once unused (config idleStopMinutes).
  .addOption(new Option('--exit-when-idle').hideHelp())
  .action((options: { port?: number; host?: string; logLevel: LogLevel; exitWhenIdle?: boolean }) => serve({ ...options, json: program.opts().json }));

program
  .command('token')
  .description('print the token CDP clients and the control API need (created on first use)')
  .action(() => {
    const token = loadOrCreateToken(clawdHome());
    print({ token }, () => token);
  });

program
  .command('webhook-secret')
  .description("print the secret a hand-off webhook's receiver checks signatures with (whsec_…, Standard Webhooks; created on first use)")
  .action(() => {
    const secret = webhookSecretText(loadOrCreateWebhookKey(clawdHome()));
    print({ secret }, () => secret);
  });

program
  .command('extension-key')
  .description("print the extension key, for pairing the extension by hand on its options page (CDP clients never need it)")
  .action(() => {
    const key = loadOrCreateExtensionKey(clawdHome());
    print({ extensionKey: key }, () => key);
  });

program
  .command('cdp-url')
  .description('print a CDP endpoint for connectOverCDP / puppeteer.connect, token included: the extension relay, or with --profile that profile\'s browser')
  .option('--port <port>', 'control API port (the relay is one above)', port)
  .action(async (options: { port?: number }) => {
    const home = clawdHome();
    const relay = options.port === undefined ? relayAddressFor(home).relayUrl : `ws://${urlHost(controlAddress(loadConfig(home)).host)}:${relayPortFor(options.port)}`;
    const key = sessionKey();
    // A key reaches its own session's browser: the server says which that is.
    const profile: string | undefined = program.opts().profile ?? (key ? (await client().status()).profile : undefined);
    const query = new URLSearchParams({ ...(profile && profile !== 'extension' ? { profile } : {}), token: key ?? loadOrCreateToken(home) });
    const url = `${relay}/cdp?${query}`;
    print({ cdpUrl: url }, () => url);
  });

program
  .command('extension-path')
  .description("print the extension's folder, to load in Chrome (chrome://extensions, Developer mode, Load unpacked)")
  .action(() => {
    if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) throw new Error(`The extension is not built at ${EXTENSION_DIR}: run \`npm run build\` in the checkout`);
    print({ path: EXTENSION_DIR }, () => EXTENSION_DIR);
  });

program
  .command('mcp')
  .description('serve the browser tools over MCP on stdio (starts `serve` in the background when it is not running)')
  .option('--caps <groups>', `tool groups beyond the default list, comma-separated: ${Object.keys(CAPABILITY_GROUPS).join(', ')}, or all`)
  // MCP's SDK is loaded for this command only: `serve`, which every other way in talks to, starts without it.
  .action(async (options: { caps?: string }) => {
    const { runMcpStdio } = await import('./mcp.js');
    await runMcpStdio({ home: clawdHome(), profile: program.opts().profile, url: program.opts().url ?? process.env.CLAWD_URL, caps: options.caps, agent: program.opts().agent ?? process.env.CLAWD_AGENT });
  });

program
  .command('doctor')
  .description('check what a first run needs (the browser, the home, ports, the server, the native host, the extension, jails, the Grid) and say how to fix each problem')
  .action(async () => {
    const home = clawdHome();
    const checks = await runDoctor(home, program.opts().url?.replace(/\/+$/, '') ?? controlUrlFor(home));
    const healthy = checks.every((check) => check.verdict !== 'fail');
    print({ ok: healthy, checks }, () => describeChecks(checks));
    process.exitCode = healthy ? 0 : 1;
  });

addBrowserCommands(program, client, print);
addPointerCommands(program, client, print);
addSessionCommands(program, client, print);
addToolboxCommands(program, client, print);
addPageToolsCommands(program, client, print);
addVideoCommands(program, client, print);
addTeachCommands(program, client, print);
addChromeCommands(program, client, print);
addBrowseCommands(program, client, print);

// ---- the native messaging host (spec §8) ------------------------------------

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

program
  .command('install-native-host')
  .description('register the native messaging host so the extension finds (and starts) the relay by itself')
  .addOption(browserOption())
  .option('--user-data-dir <dir>', 'write the manifest into <dir>/NativeMessagingHosts (a specific profile)')
  .option('--extension-id <id>', `extension ID allowed to call the host (default ${EXTENSION_ID}; repeatable)`, collect)
  .action((options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
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
  .action((options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
    const result = uninstallNativeHost(installOptions(options));
    print(result, () => result.manifests.map((p) => `removed: ${p}`).join('\n') || 'nothing to remove');
  });

// Started by Chrome through the launcher, never by hand: stdout carries frames only.
program
  .command('native-host', { hidden: true })
  .argument('[origin]', 'the calling extension origin, passed by Chrome')
  .allowUnknownOption()
  .action(async (origin: string | undefined) => {
    const ids = (process.env.CLAWD_EXTENSION_IDS || EXTENSION_ID).split(',').filter(Boolean);
    const code = await runNativeHost({
      input: process.stdin,
      output: process.stdout,
      origin,
      allowedOrigins: ids.map((id) => `chrome-extension://${id}/`),
      context: { home: clawdHome(), version: VERSION, cliPath: CLI_PATH },
      log: createLogger('warn', 'native-host'),
    });
    process.exit(code);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const next = error instanceof ClawdError ? nextStepIn(error, 'cli') : undefined;
  console.error(`clawd-browser: ${next ? `${message.replace(/[.\s]+$/, '')} (${next})` : message}`);
  process.exit(interrupt.signal.aborted ? 130 : 1);
});
