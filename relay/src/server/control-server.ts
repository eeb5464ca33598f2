import { createServer } from 'node:http';
import { relayPortFor } from '../../../protocol/constants.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BadRequestError, NotFoundError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { applyServerLimits, LIMITS, SERVER_OPTIONS } from './limits.js';
import { listen } from './listen.js';
import { asHttpFailure, sendError, stackFrames } from './http-errors.js';
import { guardFor, isLoopbackHost } from './request-guard.js';
import { parseQueryString } from './request-target.js';
import type { FleetCarrier } from './fleet-carrier.js';
import { ControlDoor } from './control-door.js';
import { fleetAwareApi } from './fleet-api.js';
import { EventStreams } from './event-stream.js';
import { FleetSignals } from './fleet-routes.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { join } from 'node:path';
import { DashboardAuth } from './dashboard-auth.js';
import { HandoffAccess, type HandoffScope } from './handoff-access.js';
import { bindHandoffRoutes } from './handoff-routes.js';
import type { McpHttpSessions } from '../mcp/http-sessions.js';
import type { ActionLog } from '../runtime/action-log.js';
import { CallerGoneError } from '../runtime/operation.js';
import { AGENT_HEADER, SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { AGENT_NAME, asAgent } from '../runtime/agent-context.js';
import { assembleControl } from '../service/control-assembly.js';
import { inProcessApi } from '../service/in-process-api.js';
import { RouteBinder } from './route-binder.js';
import type { Credentials } from '../service/credential-service.js';
import { bindBrowseRoutes } from './browse-routes.js';
import type { TeachingStores } from '../service/teaching.js';
import { bindTeachRoutes } from './teach-routes.js';
import { extensionTeaching } from './extension-teaching.js';
import type { TeachingHandler } from './relay-server.js';
import type { ChromeAttachment } from '../attach/chrome-attachment.js';
import { ChromeService } from '../service/chrome-service.js';
import { PickerAccess } from './picker-access.js';
import { bindChromeRoutes } from './chrome-routes.js';
import { bindAgentRoutes } from './agent-routes.js';
import { bindTabRoutes } from './tab-routes.js';
import { bindRecordingRoutes } from './recording-routes.js';
import { bindReplayRoutes } from './replay-routes.js';
import { bindVisionRoutes } from './vision-routes.js';
import { bindPageToolsRoutes } from './page-tools-routes.js';
import { bindToolboxRoutes } from './toolbox-routes.js';
import { bindLiveViewRoutes } from './live-view-routes.js';
import { bindConsoleRoutes } from './console-routes.js';
import { bindSessionRoutes } from './session-routes.js';
import { bindProfileRoutes } from './profile-routes.js';
import { urlHost } from '../config/config.js';

/**
 * The control API (spec §6, port 18791): JSON in, JSON out, every route with
 * `?profile=`. Routes are thin: each parses its input, calls the service
 * (service/control-service.ts, service/credential-service.ts) with the
 * caller's AbortSignal, and answers. The guard (token, Host, Origin), body
 * limits, the dashboard's session and the live view's stream are HTTP's own
 * and live here. Errors are ClawdErrors, mapped to statuses in one place.
 */

export interface ControlServerOptions {
  token: string;
  host: string;
  port: number;
  manager: ProfileManager;
  logger: Logger;
  /** Where MCP's pdf tool saves files ($CLAWD_HOME/exports). */
  exportDir: string;
  /** $CLAWD_HOME/logs/actions.jsonl. */
  actionLog: ActionLog;
  /** Task sessions, the cookie vault, grants and their audit (spec §11). */
  credentials: Credentials;
  /** $CLAWD_HOME/recordings: HAR exports and traces (service/recording-service.ts). */
  recordingsDir: string;
  /** Where what people taught is kept: routines (routines/routine-store.ts) and notes (notes/note-store.ts), the home's files or the fleet's store. */
  teaching: TeachingStores;
  /** CDP clients connected to the relay now (GET /metrics). */
  cdpClients?: () => number;
  /** With a store: sessions other servers of the fleet hold are carried there (fleet-carrier.ts). */
  fleet?: FleetCarrier;
  /** Host names answered to beyond loopback and the bind address (config hostNames). */
  hostNames?: string[];
  /** The `chrome` profile's attachment to the person's own Chrome (server/chrome-relay.ts). */
  chrome: ChromeAttachment;
}

export interface ControlServer {
  readonly port: number;
  /** When the last request came (for a server that exits once nobody uses it: cli/idle-watch.ts). */
  lastRequestAt(): number;
  /** MCP sessions over Streamable HTTP open now. */
  mcpSessions(): number;
  /** Answers the person's teaching requests from the extension (extension-teaching.ts). */
  readonly teaching: TeachingHandler;
  close(): Promise<void>;
}

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { manager, logger } = options;
  const { sessions } = options.credentials;
  let port = options.port;
  /** This server's port and the relay's (one above): a remote profile may not loop back into them. */
  const ownPorts: number[] = [];
  const pointsAtItself = (url: string) => {
    const target = new URL(url);
    const targetPort = Number(target.port || (target.protocol === 'https:' || target.protocol === 'wss:' ? 443 : 80));
    return isLoopbackHost(target.host) && ownPorts.includes(targetPort);
  };
  const guard = { ...guardFor(options.token, options.host, [], options.hostNames), sessionKeys: (secret: string) => sessions.keyOwner(secret) };
  const app = express();
  app.disable('x-powered-by');
  // One parser for the door and every route (request-target.ts): Node's querystring would keep 1,000 keys of a longer query.
  app.set('query parser', parseQueryString);
  // The token, or the dashboard's session cookie (which stands for it); the login link needs neither.
  const dashboard = new DashboardAuth(() => port);
  const handoffAccess = new HandoffAccess(() => port);
  const pickerAccess = new PickerAccess();
  const door = new ControlDoor({ guard, dashboard, handoffAccess, pickerAccess, token: options.token, fleet: options.fleet, holds: (id) => sessions.has(id) });
  app.use(door.middleware());
  const secretsRefusal = (request: Request) =>
    door.isTokenHolder(request) ? undefined : "Credential headers (Authorization, Cookie, Set-Cookie) are shown only to the token's holder";
  // Use, for a server that exits once unused: only requests the door let in count (a caller without a credential keeps nothing up).
  let lastRequestAt = Date.now();
  app.use((_request, _response, next) => {
    lastRequestAt = Date.now();
    next();
  });
  // A body must arrive whole within the request timeout: Node's own timeout stops at the headers,
  // so a sender that trickles or stalls a body would otherwise hold its connection for ever.
  app.use((request, _response, next) => {
    const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
    if (hasBody) {
      const timer = setTimeout(() => request.socket.destroy(), LIMITS.requestTimeoutMs);
      const done = () => clearTimeout(timer);
      request.once('end', done);
      request.once('close', done);
    }
    next();
  });
  app.use(express.json({ limit: LIMITS.controlBodyBytes }));
  // A request for a named agent (x-clawd-agent) means that agent's own tabs when it names none (runtime/agent-context.ts).
  app.use((request, _response, next) => {
    const agent = request.headers[AGENT_HEADER];
    if (agent === undefined) return next();
    if (typeof agent !== 'string' || !AGENT_NAME.test(agent))
      throw new BadRequestError(
        `Invalid ${AGENT_HEADER} header: an agent's name is 1 to 64 letters, digits, '.', '_', ':' or '-', starting with a letter or digit`,
      );
    asAgent(agent, next);
  });

  // The work is the services' (service/control-assembly.ts builds them); a route parses, calls, answers.
  const handoffLink =
    (host = `127.0.0.1:${port}`) =>
    ({ id, profile, targetId }: Omit<HandoffScope, 'to'>, to: HandoffScope['to']) =>
      `http://${host}/handoff/${id}/open?code=${handoffAccess.newCode({ id, profile, targetId, to })}`;
  const { webhookKey } = options.credentials;
  const events = new EventStreams(options.credentials.audit);
  const services = assembleControl({
    manager,
    credentials: options.credentials,
    actionLog: options.actionLog,
    recordingHome: {
      dirFor: (profile, kept) => join(options.recordingsDir, ...(kept ? ['kept'] : []), profile),
      actionsSince: (profile, since) => options.actionLog.recent({ profile, limit: 1000 }).filter((action) => action.time >= since),
    },
    version: PACKAGE_VERSION,
    teachingStores: options.teaching,
    handoffLink,
    handoffWebhook: () => {
      const hook = manager.registry.config().handoffWebhook;
      return hook && webhookKey ? { url: hook.url, key: webhookKey() } : undefined;
    },
    // A person watching the operator's console can be asked to confirm an act (confirm-service.ts).
    consoleOpen: () => events.watching > 0,
  });
  const { control: service, credentials, recordings, films } = services;

  // MCP over Streamable HTTP: the same tools as `clawd-browser mcp`, calling the service in process.
  // In a fleet, the token's MCP reaches every server's sessions (fleet-api.ts); a session's key is carried whole by the door.
  const tokenApi = (agent: string) =>
    options.fleet
      ? fleetAwareApi(inProcessApi(services, undefined, undefined, { agent }), options.fleet, options.token, (id) => sessions.has(id), agent)
      : inProcessApi(services, undefined, undefined, { agent });
  // Its SDK and tools are loaded with the first /mcp request: a server no MCP client uses does not hold them.
  let mcp: McpHttpSessions | undefined;
  let mcpLoading: Promise<McpHttpSessions> | undefined;
  const mcpReady = () =>
    (mcpLoading ??= import('../mcp/http-sessions.js').then(
      ({ McpHttpSessions }) =>
        (mcp = new McpHttpSessions(
          (session, agent) =>
            session === undefined ? tokenApi(agent) : inProcessApi(services, `${SESSION_PROFILE_PREFIX}${session}`, undefined, { locked: true, agent }),
          options.exportDir,
        )),
    ));
  sessions.whenEnded((id) => mcp?.closeScope(id));

  // Every route is in the table of api/routes.ts, which parses its input and documents it (GET /openapi.json).
  // Signals for a load balancer and Prometheus (spec §18): request latency is observed as each route answers.
  const fleet = new FleetSignals({
    manager,
    sessions,
    handoffsWaiting: () => services.handoffs.list().handoffs.filter((handoff) => handoff.state === 'waiting').length,
    cdpClients: () => options.cdpClients?.() ?? 0,
  });
  // Every answer and error leaves without the secrets typed into its profile's browser (driver/secrets/browser-secrets.ts).
  const shown = (request: Request) => {
    const { profile } = door.queryOf(request);
    return <T>(answer: T): T => manager.secretsOf(profile)?.redactDeep(answer) ?? answer;
  };
  const routes = new RouteBinder(app, (request) => door.queryOf(request), fleet.observe, shown);
  fleet.bind(routes);

  // Each feature's routes are bound beside its table: api/<feature>-routes.ts, server/<feature>-routes.ts.
  bindAgentRoutes(routes, { mcp: mcpReady, door });
  bindTabRoutes(routes, service);
  bindRecordingRoutes(routes, { recordings, service, secretsRefusal });
  bindReplayRoutes(routes, films);
  bindVisionRoutes(routes, services.vision);
  bindPageToolsRoutes(routes, services.pageTools);
  bindToolboxRoutes(routes, services.toolbox, (request) => door.isTokenHolder(request));
  bindLiveViewRoutes(routes, { manager, input: services.liveInput, isPerson: (request) => door.isPerson(request) });
  bindHandoffRoutes(routes, services, handoffAccess, (request) => door.isPerson(request));
  // ---- your own Chrome, attached through its remote-debugging consent: the picker is the person's
  // The person's Chrome runs on this machine: it reaches this server on loopback (or the address it is bound to).
  const controlOrigin = () => `http://${urlHost(options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host)}:${port}`;
  bindChromeRoutes(routes, { chrome: new ChromeService(options.chrome), door, access: pickerAccess, controlOrigin });
  // ---- the browse runtime: a goal in, an answer out, against a configured model (browse/)
  bindBrowseRoutes(routes, { services, credentials, has: (id) => sessions.has(id), actionLog: options.actionLog, exportDir: options.exportDir });
  bindTeachRoutes(routes, services.teaching, (request) => door.sessionOf(request));
  bindConsoleRoutes(routes, { dashboard, events, port: () => port });
  bindSessionRoutes(routes, credentials, services.confirmations);
  bindProfileRoutes(routes, { manager, service, pointsAtItself });
  routes.assertAllBound();

  app.use((request: Request) => {
    throw new NotFoundError(`No route ${request.method} ${request.path}`);
  });

  // Errors become statuses in http-errors.ts, the same for both servers.
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    if (error instanceof CallerGoneError) return; // nobody to answer; the action log has it
    const failure = asHttpFailure(error);
    failure.error.message = shown(request)(failure.error.message);
    const { status, message } = failure.error;
    if (failure.unexpected) logger.error(`${request.method} ${request.path}: ${message}\n${stackFrames(error)}`);
    if (status >= 500) logger.warn(`${request.method} ${request.path} -> ${status} ${message}`);
    sendError(response, failure.error);
  });

  const server = createServer(SERVER_OPTIONS, app);
  applyServerLimits(server);
  port = await listen(server, options.host, options.port);
  ownPorts.push(port, relayPortFor(port));
  // The dashboard's own requests carry this server's origin.
  guard.allowedOrigins.push(`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`);
  logger.info(`control API listening on http://${options.host}:${port}`);
  return {
    port,
    lastRequestAt: () => lastRequestAt,
    mcpSessions: () => mcp?.count ?? 0,
    teaching: extensionTeaching(services.teaching),
    async close() {
      if (mcpLoading) await (await mcpLoading).close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
