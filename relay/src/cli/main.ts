import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, relayAddress } from '../config/config.js';
import { DEFAULT_RELAY_PORT, EXTENSION_ID } from '../config/defaults.js';
import { runNativeHost } from '../native-host/host.js';
import { BROWSERS, type BrowserName, installNativeHost, type InstallOptions, type Platform, uninstallNativeHost } from '../native-host/install.js';
import { clawdHome, loadOrCreateToken } from '../config/state-dir.js';
import { createLogger, type LogLevel } from '../log.js';
import { startRelayServer } from '../server/relay-server.js';

/** `clawd-browser <command>`: one line of reason and a non-zero exit on failure. */

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

/** Where the relay is: --port/--host, then $CLAWD_RELAY_PORT, then config.json's controlUrl + 1. */
function relayEndpoint(options: { port?: number; host?: string }): { host: string; port: number } {
  const fromConfig = relayAddress(loadConfig(clawdHome()));
  const fromEnv = process.env.CLAWD_RELAY_PORT;
  return {
    host: options.host ?? fromConfig.host,
    port: options.port ?? (fromEnv ? port(fromEnv) : fromConfig.port),
  };
}

const CLI_PATH = fileURLToPath(new URL('../../../bin/clawd-browser.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const program = new Command()
  .name('clawd-browser')
  .description('A browser for AI agents: managed Chromium profiles and your own Chrome, behind one local API.')
  .option('--json', 'machine-readable output')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the extension relay (WS /extension, WS /cdp, HTTP /json/*) until interrupted')
  .option('--port <port>', `relay port (default: config.json controlUrl port + 1 = ${DEFAULT_RELAY_PORT}, or $CLAWD_RELAY_PORT)`, port)
  .option('--host <host>', 'address to bind (default: the controlUrl host, 127.0.0.1); anything but loopback exposes the relay')
  .option('--log-level <level>', 'debug | info | warn | error | silent', 'info')
  .action(async (options: { port?: number; host?: string; logLevel: LogLevel }) => {
    const logger = createLogger(options.logLevel, 'relay');
    const token = loadOrCreateToken(clawdHome());
    const { host, port: relayPort } = relayEndpoint(options);
    const relay = await startRelayServer({ token, host, port: relayPort, logger });
    // Lets people (and the native host's callers) find the relay a host started.
    const pidFile = join(clawdHome(), 'relay.pid');
    writeFileSync(pidFile, `${process.pid}\n`);
    if (program.opts().json) console.log(JSON.stringify({ relayPort: relay.port, cdpUrl: relay.cdpUrl }));
    const stop = async () => {
      rmSync(pidFile, { force: true });
      await relay.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('token')
  .description('print the token clients and the extension need (created on first use)')
  .action(() => {
    const token = loadOrCreateToken(clawdHome());
    console.log(program.opts().json ? JSON.stringify({ token }) : token);
  });

program
  .command('cdp-url')
  .description('print the CDP endpoint for connectOverCDP / puppeteer.connect, token included')
  .option('--port <port>', 'relay port', port)
  .action((options: { port?: number }) => {
    const token = loadOrCreateToken(clawdHome());
    const { host, port: relayPort } = relayEndpoint(options);
    const url = `ws://${host.includes(':') ? `[${host}]` : host}:${relayPort}/cdp?token=${token}`;
    console.log(program.opts().json ? JSON.stringify({ cdpUrl: url }) : url);
  });

function installOptions(options: { browser: string; userDataDir?: string; extensionId?: string[] }): InstallOptions {
  return {
    browsers: options.browser === 'all' ? [...BROWSERS] : [options.browser as BrowserName],
    userDataDir: options.userDataDir,
    extensionIds: options.extensionId?.length ? options.extensionId : [EXTENSION_ID],
    platform: process.platform as Platform,
    home: homedir(),
    xdgConfigHome: process.env.XDG_CONFIG_HOME,
    clawdHome: clawdHome(),
    nodePath: process.execPath,
    cliPath: CLI_PATH,
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const browserOption = () =>
  new Option('--browser <name>', 'which browser to register with').choices([...BROWSERS, 'all']).default('all');

program
  .command('install-native-host')
  .description('register the native messaging host so the extension finds (and starts) the relay by itself')
  .addOption(browserOption())
  .option('--user-data-dir <dir>', 'write the manifest into <dir>/NativeMessagingHosts (a specific profile)')
  .option('--extension-id <id>', `extension ID allowed to call the host (default ${EXTENSION_ID}; repeatable)`, collect)
  .action((options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
    loadOrCreateToken(clawdHome());
    loadConfig(clawdHome());
    const result = installNativeHost(installOptions(options));
    if (program.opts().json) return console.log(JSON.stringify(result));
    console.log(`launcher: ${result.launcher}`);
    for (const path of result.manifests) console.log(`manifest: ${path}`);
    for (const key of result.registryKeys) console.log(`registry: ${key}`);
  });

program
  .command('uninstall-native-host')
  .description('remove what install-native-host wrote')
  .addOption(browserOption())
  .option('--user-data-dir <dir>', 'the profile directory given at install time')
  .option('--extension-id <id>', 'as given at install time', collect)
  .action((options: { browser: string; userDataDir?: string; extensionId?: string[] }) => {
    const result = uninstallNativeHost(installOptions(options));
    if (program.opts().json) return console.log(JSON.stringify(result));
    for (const path of result.manifests) console.log(`removed: ${path}`);
    if (!result.manifests.length && !result.registryKeys.length) console.log('nothing to remove');
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
  const message = error instanceof Error ? error.message : String(error);
  console.error(`clawd-browser: ${message.split('\n')[0]}`);
  process.exit(1);
});
