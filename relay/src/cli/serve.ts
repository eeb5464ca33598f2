import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { controlAddress, ensureConfig, loadConfig } from '../config/config.js';
import { relayPortFor } from '../../../protocol/constants.js';
import { ActionLog } from '../runtime/action-log.js';
import { clawdHome, loadOrCreateExtensionKey, loadOrCreateToken } from '../config/state-dir.js';
import { createLogger, type Logger, type LogLevel } from '../log.js';
import { ProfileManager } from '../driver/profile-manager.js';
import { type ControlServer, startControlServer } from '../server/control-server.js';
import { type RelayServer, startRelayServer } from '../server/relay-server.js';

/**
 * What `clawd-browser serve` runs: the control API (spec §6) and, one port
 * above it, the extension relay (spec §7), sharing one ProfileManager.
 */
export interface ClawdServer {
  control: ControlServer;
  relay: RelayServer;
  manager: ProfileManager;
  token: string;
  extensionKey: string;
  /** Stops managed browsers (nothing is left running), then both servers. */
  close(): Promise<void>;
}

export async function startServer(options: { home: string; port?: number; host?: string; logger: Logger; relayLogger?: Logger }): Promise<ClawdServer> {
  const token = loadOrCreateToken(options.home);
  const extensionKey = loadOrCreateExtensionKey(options.home);
  const config = ensureConfig(options.home);
  const fromConfig = controlAddress(config);
  const host = options.host ?? fromConfig.host;
  const port = options.port ?? fromConfig.port;
  const relay = await startRelayServer({
    token,
    extensionKey,
    host,
    port: relayPortFor(port),
    allowedUrlSchemes: config.allowedUrlSchemes,
    // Read from config.json at each check, as the control API does, so an edit applies at once.
    urlPolicy: () => {
      try {
        return loadConfig(options.home).urlPolicy;
      } catch {
        return config.urlPolicy;
      }
    },
    logger: options.relayLogger ?? options.logger,
  });
  const manager = new ProfileManager(options.home, { bridge: relay.bridge, downloads: relay.downloads, cdpUrl: relay.cdpUrl, token }, options.logger);
  manager.registry.prepare();
  let control: ControlServer;
  try {
    control = await startControlServer({ token, host, port, manager, logger: options.logger, exportDir: join(options.home, 'exports'), actionLog: new ActionLog(join(options.home, 'logs')) });
  } catch (error) {
    await relay.close();
    throw error;
  }
  return {
    control,
    relay,
    manager,
    token,
    extensionKey,
    async close() {
      await manager.stopAll();
      await control.close();
      await relay.close();
    },
  };
}

export async function serve(options: { port?: number; host?: string; logLevel: LogLevel; json?: boolean }): Promise<void> {
  const home = clawdHome();
  const server = await startServer({
    home,
    port: options.port,
    host: options.host,
    logger: createLogger(options.logLevel, 'clawd-browser'),
    relayLogger: createLogger(options.logLevel, 'relay'),
  });
  // Lets people (and the native host's callers) find the server a host started.
  const pidFile = join(home, 'relay.pid');
  writeFileSync(pidFile, `${process.pid}\n`);
  if (options.json) console.log(JSON.stringify({ controlPort: server.control.port, relayPort: server.relay.port, cdpUrl: server.relay.cdpUrl }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    rmSync(pidFile, { force: true });
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
