import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, relayAddress } from '../config/config.js';
import { DEFAULT_RELAY_PORT } from '../config/defaults.js';
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
    if (program.opts().json) console.log(JSON.stringify({ relayPort: relay.port, cdpUrl: relay.cdpUrl }));
    const stop = async () => {
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

program.parseAsync(process.argv).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`clawd-browser: ${message.split('\n')[0]}`);
  process.exit(1);
});
