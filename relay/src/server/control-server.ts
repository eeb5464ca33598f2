import { createServer } from 'node:http';
import { relayPortFor } from '../../../protocol/constants.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
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
import { type RecordingHome, RecordingService } from '../service/recording-service.js';
import { FilmService } from '../service/film-service.js';
import { FleetSignals } from './fleet-routes.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { join } from 'node:path';
import { DashboardAuth } from './dashboard-auth.js';
import { HandoffAccess, type HandoffScope } from './handoff-access.js';
import { streamScreencast } from './screencast-stream.js';
import { bindHandoffRoutes } from './handoff-routes.js';
import { dashboardPage } from '../pages/dashboard-page.js';
import { movingOnPage, NOT_FRAMED } from './one-time-logins.js';
import { openApiDocument } from '../api/openapi.js';
import type { McpHttpSessions } from '../mcp/http-sessions.js';
import type { ActionLog } from '../runtime/action-log.js';
import { CallerGoneError } from '../runtime/operation.js';
import { AGENT_HEADER, SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { AGENT_NAME, asAgent } from '../runtime/agent-context.js';
import { ControlService } from '../service/control-service.js';
import { RouteBinder } from './route-binder.js';
import { type Credentials, CredentialService } from '../service/credential-service.js';
import { bindBrowseRoutes } from './browse-routes.js';
import type { TeachingStores } from '../service/teaching.js';
import { bindTeachRoutes } from './teach-routes.js';
import { extensionTeaching } from './extension-teaching.js';
import type { TeachingHandler } from './relay-server.js';
import type { ChromeAttachment } from '../attach/chrome-attachment.js';
import { ChromeService } from '../service/chrome-service.js';
import { PickerAccess } from './picker-access.js';
import { bindChromeRoutes } from './chrome-routes.js';
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
  const secretsRefusal = (request: Request) => (door.isTokenHolder(request) ? undefined : 'Credential headers (Authorization, Cookie, Set-Cookie) are shown only to the token\'s holder');
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
      throw new BadRequestError(`Invalid ${AGENT_HEADER} header: an agent's name is 1 to 64 letters, digits, '.', '_', ':' or '-', starting with a letter or digit`);
    asAgent(agent, next);
  });

  // The work is the service's (service/control-service.ts); a route parses, calls, answers.
  const recordingHome: RecordingHome = {
    dirFor: (profile, kept) => join(options.recordingsDir, ...(kept ? ['kept'] : []), profile),
    actionsSince: (profile, since) => options.actionLog.recent({ profile, limit: 1000 }).filter((action) => action.time >= since),
  };
  const recordings = new RecordingService(manager, recordingHome, PACKAGE_VERSION);
  const films = new FilmService(manager, recordingHome);
  sessions.filmWith(films.sessionFilms());
  const handoffLink = (host = `127.0.0.1:${port}`) => ({ id, profile, targetId }: Omit<HandoffScope, 'to'>, to: HandoffScope['to']) =>
    `http://${host}/handoff/${id}/open?code=${handoffAccess.newCode({ id, profile, targetId, to })}`;
  const { webhookKey } = options.credentials;
  const handoffWebhook = () => {
    const hook = manager.registry.config().handoffWebhook;
    return hook && webhookKey ? { url: hook.url, key: webhookKey() } : undefined;
  };
  const service = new ControlService(manager, sessions, options.actionLog, recordings, films, options.credentials.audit, options.teaching, handoffLink, handoffWebhook);
  const credentials = new CredentialService(options.credentials, manager, options.actionLog);
  const tellChrome = options.credentials.noticeHandoff;
  if (tellChrome) service.handoffs.onExtensionHandoff(tellChrome);
  const events = new EventStreams(options.credentials.audit);
  // A person watching the operator's console can be asked to confirm an act (confirm-service.ts).
  service.confirmations.consoleOpen = () => events.watching > 0;

  // MCP over Streamable HTTP: the same tools as `clawd-browser mcp`, calling the service in process.
  // In a fleet, the token's MCP reaches every server's sessions (fleet-api.ts); a session's key is carried whole by the door.
  const tokenApi = (agent: string) => (options.fleet ? fleetAwareApi(service.api(undefined, undefined, { agent }), options.fleet, options.token, (id) => sessions.has(id), agent) : service.api(undefined, undefined, { agent }));
  // Its SDK and tools are loaded with the first /mcp request: a server no MCP client uses does not hold them.
  let mcp: McpHttpSessions | undefined;
  let mcpLoading: Promise<McpHttpSessions> | undefined;
  const mcpReady = () =>
    (mcpLoading ??= import('../mcp/http-sessions.js').then(
      ({ McpHttpSessions }) => (mcp = new McpHttpSessions((session, agent) => (session === undefined ? tokenApi(agent) : service.api(`${SESSION_PROFILE_PREFIX}${session}`, undefined, { locked: true, agent })), options.exportDir)),
    ));
  sessions.whenEnded((id) => mcp?.closeScope(id));

  // Every route is in the table of api/routes.ts, which parses its input and documents it (GET /openapi.json).
  // Signals for a load balancer and Prometheus (spec §18): request latency is observed as each route answers.
  const fleet = new FleetSignals({
    manager,
    sessions,
    handoffsWaiting: () => service.handoffs.list().handoffs.filter((handoff) => handoff.state === 'waiting').length,
    cdpClients: () => options.cdpClients?.() ?? 0,
  });
  // Every answer and error leaves without the secrets typed into its profile's browser (driver/secrets/browser-secrets.ts).
  const shown = (request: Request) => {
    const { profile } = door.queryOf(request);
    return <T>(answer: T): T => manager.secretsOf(profile)?.redactDeep(answer) ?? answer;
  };
  const routes = new RouteBinder(app, (request) => door.queryOf(request), fleet.observe, shown);
  fleet.bind(routes);

  routes.media('POST /mcp', async ({ request }, response) => {
    await (await mcpReady()).handle(request, response, request.body, door.sessionOf(request), door.queryOf(request).caps);
  }, { everyMethod: true });
  routes.json('GET /openapi.json', () => openApiDocument(PACKAGE_VERSION));

  // ---- status and lifecycle --------------------------------------------------

  routes.media('GET /', async ({ request, query }, response) => {
    // A browser asking for a page gets the dashboard; clients asking for JSON, the status.
    if (request.accepts(['json', 'html']) === 'html') {
      response.type('html').set({ 'cache-control': 'no-store', ...NOT_FRAMED }).send(dashboardPage());
      return;
    }
    response.json(await service.status(query.profile));
  });
  routes.json('POST /start', ({ query, signal }) => service.start(query.profile, signal));
  routes.json('POST /stop', ({ query }) => service.stop(query.profile));

  // ---- tabs and inspection ---------------------------------------------------

  routes.json('GET /tabs', async ({ query }) => service.tabList(query.profile));
  routes.json('POST /tabs/open', ({ query, body, signal }) => service.openTab(query.profile, body.url, signal));
  routes.json('POST /tabs/focus', ({ query, body, signal }) => service.focusTab(query.profile, body.targetId, signal));
  routes.json('DELETE /tabs/:targetId', async ({ query, params, signal }) => ({ closed: await service.closeTab(query.profile, params.targetId, signal) }));
  routes.json('POST /navigate', ({ query, body, signal }) => service.navigate(query.profile, body.url, body.targetId, signal));
  routes.json('POST /screenshot', ({ query, body, signal }) => service.screenshot(query.profile, body, signal));
  routes.json('POST /pdf', ({ query, body, signal }) => service.pdf(query.profile, body.targetId, signal));
  routes.json('GET /console', ({ query: { profile, ...options } }) => service.console(profile, options));
  routes.json('GET /downloads', ({ query }) => service.downloads(query.profile));

  // ---- snapshots, actions, hooks ---------------------------------------------

  routes.json('GET /snapshot', ({ query: { profile, ...options }, signal }) => service.snapshot(profile, options, signal));
  routes.json('GET /text', ({ query: { profile, ...options }, signal }) => service.text(profile, options, signal));
  routes.json('POST /act', ({ query, body, signal }) => service.act(query.profile, body, signal, { diffMaxChars: query.diff, person: query.person === true }));
  routes.json('POST /hooks/file-chooser', ({ query, body, signal }) => service.fileChooser(query.profile, body, signal));
  routes.json('POST /hooks/dialog', ({ query, body, signal }) => service.armDialog(query.profile, body, signal));

  // ---- a record of what happened: network log, HAR, trace --------------------

  routes.json('POST /network/record', ({ query, body }) => recordings.networkRecord(query.profile, body));
  routes.json('GET /script', ({ query: { profile, ...rest } }) => service.script(profile, rest));
  routes.json('GET /network', ({ query: { profile, ...filters }, request }) => recordings.network(profile, filters, secretsRefusal(request)));
  routes.json('GET /network/body', ({ query: { profile, ...which } }) => recordings.networkBody(profile, which));
  routes.json('POST /network/har', ({ query, body, request }) => recordings.har(query.profile, body, secretsRefusal(request)));
  routes.json('POST /trace/start', ({ query }) => recordings.traceStart(query.profile));
  routes.json('POST /trace/stop', ({ query, body }) => recordings.traceStop(query.profile, body));
  routes.json('POST /video/start', ({ query, body }) => films.start(query.profile, body));
  routes.json('POST /video/stop', ({ query, body }) => films.stop(query.profile, body));
  routes.json('GET /videos', ({ query }) => films.list(query.profile));
  /** A film's bytes, with ranges (send's own), so a player seeks without fetching the whole film. */
  routes.media('GET /videos/file', ({ query: { profile, name } }, response) => {
    response.set('cache-control', 'no-store').sendFile(films.file(profile, name), { dotfiles: 'deny' });
  });
  routes.json('GET /actions', ({ query }) => service.actions(query));

  // ---- for agents that look: labelled screenshots, computer use -------------------

  routes.json('POST /screenshot/labelled', ({ query, body, signal }) => service.vision.labelledScreenshot(query.profile, body, signal));
  routes.json('POST /computer/openai', ({ query, body, signal }) => service.vision.computer(query.profile, 'openai', body, signal, { person: query.person === true }));
  // ---- the tools pages offer agents (WebMCP) ------------------------------------

  routes.json('GET /page-tools', ({ query: { profile, ...rest }, signal }) => service.pageTools.list(profile, rest, signal));
  routes.json('POST /page-tools/call', ({ query, body, signal }) => service.pageTools.call(query.profile, body, signal, { person: query.person === true }));

  routes.json('POST /computer/anthropic', ({ query, body, signal }) => service.vision.computer(query.profile, 'anthropic', body, signal, { person: query.person === true }));

  // ---- the toolbox: emulation, network routes, init scripts, storage ------------

  const toolbox = service.toolbox;
  routes.json('GET /emulation', ({ query: { profile, ...rest } }) => toolbox.emulation(profile, rest));
  routes.json('POST /emulation', ({ query, body, signal }) => toolbox.emulate(query.profile, body, signal));
  routes.json('DELETE /emulation', ({ query: { profile, ...rest }, signal }) => toolbox.resetEmulation(profile, rest, signal));
  routes.json('GET /routes', ({ query }) => toolbox.routes(query.profile));
  routes.json('POST /routes', ({ query, body, signal }) => toolbox.addRoute(query.profile, body, signal));
  routes.json('DELETE /routes/:id', ({ query, params }) => toolbox.removeRoute(query.profile, params.id));
  routes.json('GET /init-scripts', ({ query }) => toolbox.initScripts(query.profile));
  routes.json('POST /init-scripts', ({ query, body, signal }) => toolbox.addInitScript(query.profile, body, signal));
  routes.json('DELETE /init-scripts/:id', ({ query, params }) => toolbox.removeInitScript(query.profile, params.id));
  routes.json('GET /storage/cookies', ({ query: { profile, ...filter }, request }) => toolbox.cookies(profile, filter, door.isTokenHolder(request)));
  routes.json('POST /storage/cookies', ({ query, body, signal }) => toolbox.setCookies(query.profile, body, signal));
  routes.json('DELETE /storage/cookies', ({ query: { profile, ...filter }, signal }) => toolbox.clearCookies(profile, filter, signal));
  routes.json('GET /storage/items', ({ query: { profile, ...rest }, signal }) => toolbox.storage(profile, rest, signal));
  routes.json('POST /storage/items', ({ query, body, signal }) => toolbox.setStorage(query.profile, body, signal));
  routes.json('DELETE /storage/items', ({ query: { profile, ...rest }, signal }) => toolbox.clearStorage(profile, rest, signal));
  routes.json('GET /storage/state', ({ query: { profile, ...rest }, request, signal }) => toolbox.storageState(profile, rest, door.isTokenHolder(request), signal));
  routes.json('POST /storage/state', ({ query, body, signal }) => toolbox.setStorageState(query.profile, body, signal));

  // ---- live view and dashboard -----------------------------------------------

  /** A tab as multipart/x-mixed-replace JPEG (an <img> shows it); the screencast stops when the last viewer leaves. */
  routes.media('GET /screencast', async ({ query: { profile, targetId } }, response) => {
    await streamScreencast((await manager.driver(profile).screencast(targetId)).cast, response);
  });
  /**
   * One JPEG of a tab, for the dashboard's thumbnails: refreshed by reloading,
   * since each open stream would hold one of the browser's few connections
   * per host. Not an action (not logged).
   */
  routes.media('GET /screencast/frame', async ({ query: { profile, targetId } }, response) => {
    const jpeg = await manager.driver(profile).thumbnail(targetId);
    if (!jpeg) return void response.status(204).end();
    response.set('cache-control', 'no-store').type('image/jpeg').send(jpeg);
  });
  /** A person's input through the live view: logged as the person's. */
  // The console's person's input; the token's or a session key's is the agent's, held to the confirm rules.
  routes.json('POST /screencast/input', ({ query, body, signal, request }) => {
    const by = door.isPerson(request) ? ('person' as const) : ('agent' as const);
    return service.viewInput(query.profile, body, signal, { by, actor: by });
  });
  bindHandoffRoutes(routes, service, handoffAccess, (request) => door.isPerson(request));
  // ---- your own Chrome, attached through its remote-debugging consent: the picker is the person's
  // The person's Chrome runs on this machine: it reaches this server on loopback (or the address it is bound to).
  const controlOrigin = () => `http://${urlHost(options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host)}:${port}`;
  bindChromeRoutes(routes, { chrome: new ChromeService(options.chrome), door, access: pickerAccess, controlOrigin });
  // ---- the browse runtime: a goal in, an answer out, against a configured model (browse/)
  bindBrowseRoutes(routes, { service, credentials, has: (id) => sessions.has(id), actionLog: options.actionLog, exportDir: options.exportDir });
  bindTeachRoutes(routes, service, (request) => door.sessionOf(request));
  /** A one-time link into the dashboard, for `clawd-browser dashboard` (a token holder). */
  routes.json('POST /dashboard/link', ({ request }) => {
    const host = request.headers.host ?? `127.0.0.1:${port}`;
    return { url: `http://${host}/dashboard/login?code=${dashboard.newCode()}`, expiresInSeconds: 60 };
  });
  routes.media('GET /dashboard/login', ({ query }, response) => {
    const login = dashboard.login(query.code ?? '');
    if (!login) throw new UnauthorizedError('This dashboard link is used or expired: run `clawd-browser dashboard` for a new one');
    // Its own page moves on to the console: a link opened from another site's page still carries the new cookie there.
    const page = movingOnPage(login.home);
    response.set({ 'set-cookie': login.cookie, ...page.headers }).type('html').send(page.html);
  });
  /** Server-sent events for the operator's console: each audit entry as it is written (sessions, grants, the vault). */
  routes.media('GET /events', ({ request }, response) => {
    events.stream(request, response);
  });

  // ---- task sessions, grants, the cookie vault (spec §11) -------------------

  routes.json('POST /sessions', ({ body, signal }) => credentials.openSession(body, signal));
  routes.json('GET /sessions', () => credentials.listSessions());
  routes.json('DELETE /sessions/:id', ({ params }) => credentials.closeSession(params.id));
  routes.json('POST /sessions/:id/approvals', ({ params, body }) => service.confirmations.approve(params.id, body.rule));
  routes.json('POST /sessions/:id/extend', ({ params, body }) => credentials.extendSession(params.id, body.ttl));
  routes.json('GET /audit', ({ query }) => credentials.audit(query));
  /** A session's recorded screenshots (record: audit), and one of them as a JPEG with `file`. */
  routes.media('GET /audit/recording', ({ query: { session, file } }, response) => {
    if (file === undefined) return void response.json(credentials.recording(session));
    response.set('cache-control', 'no-store').type('image/jpeg').send(credentials.recordedShot(session, file));
  });
  routes.json('GET /grants', () => credentials.liveGrants());
  routes.json('POST /grants', ({ body }) => credentials.issueGrant(body));
  routes.json('DELETE /grants/:id', ({ params }) => credentials.revokeGrant(params.id));
  routes.json('POST /secrets', ({ body }) => credentials.setSecret(body));
  routes.json('GET /secrets', ({ query }) => credentials.secrets(query.tenant));
  routes.json('DELETE /secrets', ({ query }) => {
    if (!query.tenant) throw new BadRequestError('tenant: say which tenant\'s secret to forget');
    return credentials.forgetSecret(query.tenant, query.name);
  });
  routes.json('GET /vault', ({ query }) => credentials.vault(query.tenant));
  routes.json('DELETE /vault', ({ query }) => credentials.forget(query.tenant, query.domain));
  routes.json('POST /vault/refresh', ({ body, signal }) => credentials.refresh(body, signal));
  routes.json('POST /vault/refresh/:id/done', ({ params, body }) => credentials.refreshDone(params.id, body.domains));
  routes.json('POST /vault/from-extension', ({ body }) => credentials.fromExtension(body));

  // ---- profiles --------------------------------------------------------------

  routes.json('GET /profiles', () => service.profiles());
  routes.json('POST /profiles/create', ({ body }) => {
    if (body.cdpUrl && pointsAtItself(body.cdpUrl))
      throw new BadRequestError(`cdpUrl ${JSON.stringify(body.cdpUrl)} points at clawd-browser itself: a remote profile must name another browser`);
    return manager.registry.create(body);
  });
  routes.json('DELETE /profiles/:name', async ({ params }) => ({ deleted: await manager.deleteProfile(params.name) }));
  routes.json('POST /reset-profile', ({ query }) => service.resetProfile(query.profile));
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
    teaching: extensionTeaching(service),
    async close() {
      if (mcpLoading) await (await mcpLoading).close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
