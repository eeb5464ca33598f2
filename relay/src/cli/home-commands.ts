import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import { DEFAULT_CONTROL_PORT, relayPortFor } from '../../../protocol/constants.js';
import { EXTENSION_DIR } from '../config/package-root.js';
import { clawdHome, loadOrCreateExtensionKey, loadOrCreateToken, loadOrCreateWebhookKey, webhookSecretText } from '../config/state-dir.js';
import type { LogLevel } from '../log.js';
import { CAPABILITY_GROUPS } from '../mcp/capabilities.js';
import type { Print } from './print.js';

/**
 * This home's own commands: its server (`serve`, `mcp`), its secrets, its
 * doors (`cdp-url`, `extension-path`) and `doctor`. What the servers and
 * doctor run, and config.json's schema, are imported when their command
 * runs: `serve` loads what it always did, the other commands none of it.
 */

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65534) throw new InvalidArgumentError('must be a port number (0-65534)');
  return n;
}

export function addHomeCommands(program: Command, client: () => BrowserClient, print: Print): void {
  /** A task session's key, when the caller holds one instead of the token. */
  const sessionKey = (): string | undefined => program.opts().key ?? (process.env.CLAWD_KEY?.trim() || undefined);

  program
    .command('serve')
    .description(`run the control API (default 127.0.0.1:${DEFAULT_CONTROL_PORT}) and the extension relay (one port above) until interrupted`)
    .option('--port <port>', 'control API port (default: config.json controlUrl); the relay listens on port + 1', port)
    .option('--host <host>', 'address to bind (default: the controlUrl host); anything but loopback exposes the browser')
    .option('--log-level <level>', 'debug | info | warn | error | silent', 'info')
    // Given by `mcp` and the native host when they start the server themselves: it exits once unused (config idleStopMinutes).
    .addOption(new Option('--exit-when-idle').hideHelp())
    .action(async (options: { port?: number; host?: string; logLevel: LogLevel; exitWhenIdle?: boolean }) => {
      const { serve } = await import('./serve.js');
      await serve({ ...options, json: program.opts().json });
    });

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
    .description('print the extension key, for pairing the extension by hand on its options page (CDP clients never need it)')
    .action(() => {
      const key = loadOrCreateExtensionKey(clawdHome());
      print({ extensionKey: key }, () => key);
    });

  program
    .command('cdp-url')
    .description("print a CDP endpoint for connectOverCDP / puppeteer.connect, token included: the extension relay, or with --profile that profile's browser")
    .option('--port <port>', 'control API port (the relay is one above)', port)
    .action(async (options: { port?: number }) => {
      const home = clawdHome();
      const { relayAddressFor } = await import('../config/server-address.js');
      const { controlAddress, loadConfig, urlHost } = await import('../config/config.js');
      const relay =
        options.port === undefined ? relayAddressFor(home).relayUrl : `ws://${urlHost(controlAddress(loadConfig(home)).host)}:${relayPortFor(options.port)}`;
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
      if (!existsSync(join(EXTENSION_DIR, 'manifest.json')))
        throw new Error(`The extension is not built at ${EXTENSION_DIR}: run \`npm run build\` in the checkout`);
      print({ path: EXTENSION_DIR }, () => EXTENSION_DIR);
    });

  program
    .command('mcp')
    .description('serve the browser tools over MCP on stdio (starts `serve` in the background when it is not running)')
    .option('--caps <groups>', `tool groups beyond the default list, comma-separated: ${Object.keys(CAPABILITY_GROUPS).join(', ')}, or all`)
    // MCP's SDK is loaded for this command only: `serve`, which every other way in talks to, starts without it.
    .action(async (options: { caps?: string }) => {
      const { runMcpStdio } = await import('./mcp.js');
      await runMcpStdio({
        home: clawdHome(),
        profile: program.opts().profile,
        url: program.opts().url ?? process.env.CLAWD_URL,
        caps: options.caps,
        agent: program.opts().agent ?? process.env.CLAWD_AGENT,
      });
    });

  program
    .command('doctor')
    .description(
      'check what a first run needs (the browser, the home, ports, the server, the native host, the extension, jails, the Grid) and say how to fix each problem',
    )
    .action(async () => {
      const home = clawdHome();
      const [{ describeChecks, runDoctor }, { controlUrlFor }] = await Promise.all([import('./doctor.js'), import('../config/server-address.js')]);
      const checks = await runDoctor(home, program.opts().url?.replace(/\/+$/, '') ?? controlUrlFor(home));
      const healthy = checks.every((check) => check.verdict !== 'fail');
      print({ ok: healthy, checks }, () => describeChecks(checks));
      process.exitCode = healthy ? 0 : 1;
    });
}
