import { join } from 'node:path';
import { controlAddress, ensureConfig, loadConfig, urlHost } from '../config/config.js';
import { relayPortFor } from '../../../protocol/constants.js';
import { isLoopbackHost } from '../server/request-guard.js';
import { ActionLog } from '../runtime/action-log.js';
import {
  clawdHome,
  loadOrCreateExtensionKey,
  loadOrCreateGrantKey,
  loadOrCreateToken,
  loadOrCreateVaultKey,
  loadOrCreateWebhookKey,
} from '../config/state-dir.js';
import { reapSessions } from '../sessions/session-reaper.js';
import { TaskSessions } from '../sessions/task-sessions.js';
import { AuditLog, type AuditTrail } from '../vault/audit-log.js';
import { type FleetStore, openFleetStore } from '../store/fleet-store.js';
import { FileNoteStore } from '../notes/note-file.js';
import { FileRoutineStore } from '../routines/routine-files.js';
import { FleetSessions } from '../sessions/fleet-sessions.js';
import { FleetCarrier } from '../server/fleet-carrier.js';
import { CookieVault, FileVaultRows } from '../vault/cookie-vault.js';
import { FileSecretRows, SecretStore } from '../vault/secret-store.js';
import { FileRevocations, Grants } from '../vault/grants.js';
import { createLogger, type Logger, type LogLevel } from '../log.js';
import { ProfileManager } from '../driver/profile-manager.js';
import { type ControlServer, startControlServer } from '../server/control-server.js';
import { type RelayServer, startRelayServer } from '../server/relay-server.js';
import { watchIdle } from './idle-watch.js';
import { ensurePortFree, PortInUseError } from '../server/listen.js';
import { announceServer, logFatalErrors, refuseSecondServer, stopOnSignals, withdrawServer } from './server-lifetime.js';

/**
 * What `clawd-browser serve` runs: the control API (spec §6) and, one port
 * above it, the extension relay (spec §7), sharing one ProfileManager.
 */
export interface ClawdServer {
  control: ControlServer;
  relay: RelayServer;
  manager: ProfileManager;
  sessions: TaskSessions;
  token: string;
  extensionKey: string;
  /** Stops managed browsers (nothing is left running), then both servers. */
  close(): Promise<void>;
}

export async function startServer(options: {
  home: string;
  port?: number;
  host?: string;
  logger: Logger;
  relayLogger?: Logger;
  /** Set for a server `mcp` or the native host started: called once nothing has used it for idleStopMinutes. */
  exitWhenIdle?: () => Promise<void>;
  /** How this server's ports are chosen, for the answer when one is taken (default: a person's `serve`). */
  portsFrom?: 'config' | 'flag or config';
}): Promise<ClawdServer> {
  try {
    return await startServerOn(options);
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    throw portTaken(error, options.port ?? controlAddress(loadConfig(options.home)).port, options.portsFrom ?? 'flag or config');
  }
}

async function startServerOn(options: Parameters<typeof startServer>[0]): Promise<ClawdServer> {
  const token = loadOrCreateToken(options.home);
  const extensionKey = loadOrCreateExtensionKey(options.home);
  const config = ensureConfig(options.home);
  const fromConfig = controlAddress(config);
  const host = options.host ?? fromConfig.host;
  const port = options.port ?? fromConfig.port;
  if (!isLoopbackHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host) && !config.allowNonLoopback)
    throw new Error(
      `Refusing to listen on ${host}: anyone who reaches it could drive your browser. Bind 127.0.0.1, or set "allowNonLoopback": true in config.json as well`,
    );
  // Beyond loopback: the Host names it answers to, among them the one the fleet's other servers reach it by.
  const advertise = config.store && advertisedAt(config.store.advertise);
  const hostNames = [...config.hostNames, ...(advertise ? [new URL(advertise).hostname] : [])];
  // The control API's port is the one people chose: looked at first, though the relay binds before it.
  await ensurePortFree(host, port);
  // The fleet's store first: a server that cannot reach it does not start (nothing it writes would be shared).
  const fleetStore = config.store ? await openFleetStore(config.store.postgres, options.logger, config.store.leaseSeconds) : undefined;
  const relay = await startRelayServer({
    token,
    extensionKey,
    host,
    port: relayPortFor(port),
    hostNames,
    allowedUrlSchemes: config.allowedUrlSchemes,
    // Read from config.json at each check, as the control API does, so an edit applies at once.
    urlPolicy: () => {
      try {
        return loadConfig(options.home).urlPolicy;
      } catch {
        return config.urlPolicy;
      }
    },
    chromeSettings: () => {
      try {
        return loadConfig(options.home).chrome;
      } catch {
        return config.chrome;
      }
    },
    logger: options.relayLogger ?? options.logger,
    // Set once the manager exists (the policy comes from the same config.json).
    uploadPolicy: () => manager.policy().uploads,
  }).catch(async (error: unknown) => {
    await fleetStore?.close();
    throw error;
  });
  const manager = new ProfileManager(
    options.home,
    { bridge: relay.bridge, downloads: relay.downloads, cdpUrl: relay.cdpUrl, token, driverKey: relay.driverKey, chrome: relay.chrome },
    options.logger,
  );
  manager.registry.prepare();
  // Every port this server listens on, its proxies' among them, is out of a shared or lent tab's reach too.
  relay.ownPortsOf(manager.ownPorts);
  // Sessions an earlier server left (it stopped, or was killed mid-session) go first.
  // In a fleet, a Grid session another server holds (or will take over) is left running on the Grid.
  await reapSessions(options.home, options.logger, fleetStore && (async (id) => (await fleetStore.sessions.byId(id))?.state === 'live'));
  const credentials = {
    ...credentialsFor(options.home, manager, options.logger, fleetStore),
    askConsent: relay.askConsent,
    noticeHandoff: relay.noticeHandoff,
  };
  // In a fleet, any server answers for any session (spec §18): carried to its holder, or taken over.
  const fleetSessions = fleetStore && new FleetSessions(fleetStore.sessions, credentials.sessions, { log: options.logger, audit: credentials.audit });
  const carrier = fleetSessions && new FleetCarrier(fleetSessions, options.logger);
  // The browsers this server launches answer CDP only here, behind the token or a session's own key.
  relay.serveProfiles({
    mux: async (profile, credential) => {
      if (credential === 'driver') return manager.cdpMux(profile, true);
      // A raw CDP client could read a typed secret in any form: none joins a browser that holds one,
      // and a browser one joined takes no secret for the rest of its life (browser-secrets.ts).
      const held = manager.secretsOf(profile);
      if (held?.holding) throw held.heldError('no raw CDP client joins it');
      const mux = await manager.cdpMux(profile, false);
      const secrets = manager.secretsOf(profile);
      if (secrets?.holding) throw secrets.heldError('no raw CDP client joins it');
      secrets?.callerCodeRan('a raw CDP client');
      return mux;
    },
    sessionKeys: (secret) => credentials.sessions.keyOwner(secret),
    joined: (profile, credential) => {
      const leftSession = credentials.sessions.cdpJoined(profile, credential);
      // A CDP client keeps its browser in use; the driver's own connection does not.
      const left = credential === 'driver' ? () => {} : manager.idle.clientJoined(profile);
      return () => {
        left();
        leftSession();
      };
    },
    ...(carrier ? { fleet: { carrier, holds: (id: string) => credentials.sessions.has(id) } } : {}),
  });
  let control: ControlServer;
  try {
    control = await startControlServer({
      token,
      host,
      port,
      manager,
      logger: options.logger,
      exportDir: join(options.home, 'exports'),
      recordingsDir: join(options.home, 'recordings'),
      // What people taught: the fleet's, shared by every server, or this home's (routines/routine-store.ts, notes/note-store.ts).
      teaching: {
        routines: fleetStore?.routines ?? new FileRoutineStore(join(options.home, 'routines')),
        notes: fleetStore?.notes ?? new FileNoteStore(join(options.home, 'notes.json')),
        ...(fleetStore ? { demonstrations: fleetStore.demonstrations } : {}),
      },
      actionLog: new ActionLog(join(options.home, 'logs')),
      credentials,
      cdpClients: () => relay.cdpClients(),
      chrome: relay.chrome.attachment,
      fleet: carrier,
      hostNames,
    });
  } catch (error) {
    await relay.close();
    await fleetStore?.close();
    throw error;
  }
  relay.serveTeaching(control.teaching);
  if (fleetStore && fleetSessions) {
    // Listening now: the fleet's other servers can be told where.
    await fleetStore.sessions.join(fleetAddress(advertise, host, control.port, relay.port), token).catch(async (error: unknown) => {
      await control.close();
      await relay.close();
      await fleetStore.close();
      throw error;
    });
    fleetSessions.start();
  }
  manager.ownPorts.add(control.port);
  const idle = watchIdle(
    {
      manager,
      sharedTabs: () => relay.bridge.sharedTabs().length + relay.chrome.bridge.sharedTabs().length,
      openSessions: () => credentials.sessions.list().length,
      otherClients: () => control.mcpSessions() + relay.extensionClients() + relay.chrome.socketCount,
      lastRequestAt: () => control.lastRequestAt(),
    },
    options.logger,
    { exitWhenIdle: options.exitWhenIdle },
  );
  return {
    control,
    relay,
    manager,
    token,
    extensionKey,
    sessions: credentials.sessions,
    async close() {
      idle.stop();
      fleetSessions?.stop();
      await credentials.sessions.closeAll();
      await fleetStore?.sessions.leave();
      await manager.stopAll();
      await control.close();
      await relay.close();
      await fleetStore?.close();
    },
  };
}

/** CLAWD_ADVERTISE (each replica its own, from one config.json), else config store.advertise. */
function advertisedAt(configured: string | undefined): string | undefined {
  const given = process.env.CLAWD_ADVERTISE?.trim() || configured;
  if (given !== undefined && !(URL.canParse(given) && /^https?:$/.test(new URL(given).protocol)))
    throw new Error(
      `CLAWD_ADVERTISE must be this server's http(s) address as the fleet's other servers reach it (e.g. http://10.0.0.5:18791), not ${JSON.stringify(given)}`,
    );
  return given;
}

/**
 * Where the fleet's other servers reach this one: CLAWD_ADVERTISE or config store.advertise
 * (its relay one port above), else the address it listens on.
 */
function fleetAddress(advertise: string | undefined, host: string, controlPort: number, relayPort: number): { controlUrl: string; relayUrl: string } {
  if (advertise) {
    const control = new URL(advertise);
    const relay = new URL(advertise);
    relay.port = String(relayPortFor(Number(control.port || (control.protocol === 'https:' ? 443 : 80))));
    return { controlUrl: control.origin, relayUrl: relay.origin };
  }
  const reachable = urlHost(reachableAt(host));
  return { controlUrl: `http://${reachable}:${controlPort}`, relayUrl: `http://${reachable}:${relayPort}` };
}

/** A server bound to every interface is reached through loopback; one bound to an address, at it. */
function reachableAt(bound: string): string {
  return bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
}

/** Task sessions, the vault and grants: keys are read (or made) when first needed, never at import. */
function credentialsFor(home: string, manager: ProfileManager, logger: Logger, fleetStore?: FleetStore) {
  let vault: CookieVault | undefined;
  let grants: Grants | undefined;
  let secrets: SecretStore | undefined;
  // The fleet's store keeps the audit when there is one; else a file of this home.
  const audit: AuditTrail = fleetStore?.audit ?? new AuditLog(join(home, 'logs', 'audit.jsonl'));
  const revocations = fleetStore?.revocations ?? new FileRevocations(join(home, 'vault', 'revoked-grants.json'));
  const vaultOf = () => (vault ??= new CookieVault(fleetStore?.vault ?? new FileVaultRows(join(home, 'vault', 'cookies.json')), loadOrCreateVaultKey(home)));
  const secretsOf = () =>
    (secrets ??= new SecretStore(fleetStore?.secrets ?? new FileSecretRows(join(home, 'vault', 'secrets.json')), loadOrCreateVaultKey(home)));
  const grantsOf = () => (grants ??= new Grants(loadOrCreateGrantKey(home), revocations));
  const sessions = new TaskSessions(home, {
    log: logger,
    manager,
    audit,
    registry: fleetStore?.sessions,
    vault: vaultOf,
    secrets: secretsOf,
    grants: grantsOf,
    settings: () => {
      const config = manager.registry.config();
      return {
        maxSessions: config.maxSessions,
        queue: config.sessionQueue,
        defaultTtl: config.sessionTtlSeconds,
        spares: config.sessionSpare === false ? 0 : config.sessionSpares,
        enabled: config.enabled,
        grid: config.grid,
        isolation: { mode: config.sessionIsolation, limits: config.sessionLimits },
      };
    },
  });
  return { sessions, vault: vaultOf, secrets: secretsOf, grants: grantsOf, audit, webhookKey: () => loadOrCreateWebhookKey(home) };
}

export async function serve(options: { port?: number; host?: string; logLevel: LogLevel; json?: boolean; exitWhenIdle?: boolean }): Promise<void> {
  const home = clawdHome();
  const logger = createLogger(options.logLevel, 'clawd-browser');
  logFatalErrors(logger);
  await refuseSecondServer(home, logger);
  let stop: (reason: string) => Promise<void> = async () => {};
  const server = await startServer({
    home,
    port: options.port,
    host: options.host,
    logger,
    relayLogger: createLogger(options.logLevel, 'relay'),
    exitWhenIdle: options.exitWhenIdle ? () => stop('idle') : undefined,
    // `mcp` and the native host start serve themselves (with --exit-when-idle): there, no --port to give.
    portsFrom: options.exitWhenIdle ? 'config' : 'flag or config',
  });
  const bound = options.host ?? controlAddress(loadConfig(home)).host;
  announceServer(home, { controlUrl: `http://${urlHost(reachableAt(bound))}:${server.control.port}`, relayPort: server.relay.port }, logger);
  if (options.json) console.log(JSON.stringify({ controlPort: server.control.port, relayPort: server.relay.port, cdpUrl: server.relay.cdpUrl }));
  let stopping = false;
  stop = async () => {
    if (stopping) return;
    stopping = true;
    withdrawServer(home);
    await server.close();
    process.exit(0);
  };
  stopOnSignals(logger, stop);
}

/**
 * A port taken, said with which of the two it is and how this server's
 * ports are chosen: a person who ran `serve` can pass --port; `mcp` and the
 * native host read config.json only.
 */
function portTaken(error: PortInUseError, controlPort: number, portsFrom: 'config' | 'flag or config'): Error {
  const which = error.port === controlPort ? "the control API's" : `the relay's, one above the control API's ${controlPort}`;
  const choose = portsFrom === 'config' ? 'set controlUrl in config.json' : 'run `serve --port N`, or set controlUrl in config.json';
  return new Error(
    `Port ${error.port} on ${error.host} (${which}) is already in use: another clawd-browser server (another CLAWD_HOME's; \`clawd-browser doctor\` says) or another program holds it. Stop it, or choose other ports: ${choose} (the relay takes the port above)`,
  );
}
