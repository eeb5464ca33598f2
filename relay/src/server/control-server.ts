import { createServer } from 'node:http';
import { relayPortFor } from '../../../protocol/constants.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { z } from 'zod';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { applyServerLimits, LIMITS, SERVER_OPTIONS } from './limits.js';
import { listen } from './listen.js';
import { asHttpFailure, sendError, stackFrames } from './http-errors.js';
import { checkHostAndOrigin, checkRequest, guardFor, isLoopbackHost, refusal } from './request-guard.js';
import { EventStreams } from './event-stream.js';
import { RecordingService } from '../service/recording-service.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { join } from 'node:path';
import { DashboardAuth } from './dashboard-auth.js';
import { dashboardPage } from './dashboard-page.js';
import { schemas } from '../api/schemas.js';
import { McpHttpSessions } from '../mcp/http-sessions.js';
import type { ActionLog } from '../runtime/action-log.js';
import { CallerGoneError } from '../runtime/operation.js';
import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { ControlService, validated } from '../service/control-service.js';
import { admitSessionRequest } from './session-scope.js';
import { type Credentials, CredentialService } from '../service/credential-service.js';

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
}

export interface ControlServer {
  readonly port: number;
  close(): Promise<void>;
}

/** The caller's signal: it fires when the HTTP client goes before its answer is written. */
function callerSignal(response: Response): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new CallerGoneError());
  });
  return controller.signal;
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
  const guard = { ...guardFor(options.token, options.host), sessionKeys: (secret: string) => sessions.keyOwner(secret) };
  const app = express();
  app.disable('x-powered-by');
  /** Requests made with a task session's key → that session's id. */
  const scopes = new WeakMap<Request, string>();
  /** Requests made with the token itself (not a session's key, not the dashboard's cookie): only these see credential headers. */
  const tokenHolders = new WeakSet<Request>();
  const secretsRefusal = (request: Request) => (tokenHolders.has(request) ? undefined : 'Credential headers (Authorization, Cookie, Set-Cookie) are shown only to the token\'s holder');

  // The token, or the dashboard's session cookie (which stands for it); the login link needs neither.
  const dashboard = new DashboardAuth();
  app.use((request, response, next) => {
    if (request.path === '/dashboard/login' || dashboard.hasSession(request)) {
      const refused = checkHostAndOrigin(request, guard);
      return refused && !refused.ok ? sendError(response, refusal(refused)) : next();
    }
    const verdict = checkRequest(request, guard);
    if (!verdict.ok) return sendError(response, refusal(verdict));
    if (verdict.session === undefined) {
      tokenHolders.add(request);
      return next();
    }
    // A task session's key: its own session's routes only (session-scope.ts).
    try {
      admitSessionRequest(request, verdict.session);
    } catch (error) {
      return sendError(response, asHttpFailure(error).error);
    }
    scopes.set(request, verdict.session);
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

  // The work is the service's (service/control-service.ts); a route parses, calls, answers.
  const recordings = new RecordingService(
    manager,
    {
      dirFor: (profile, kept) => join(options.recordingsDir, ...(kept ? ['kept'] : []), profile),
      actionsSince: (profile, since) => options.actionLog.recent({ profile, limit: 1000 }).filter((action) => action.time >= since),
    },
    PACKAGE_VERSION,
  );
  const service = new ControlService(manager, sessions, options.actionLog, recordings);
  const credentials = new CredentialService(options.credentials, manager, options.actionLog);
  const events = new EventStreams(options.credentials.audit);

  // MCP over Streamable HTTP: the same tools as `clawd-browser mcp`, calling the service in process.
  const mcp = new McpHttpSessions((session) => (session === undefined ? service.api() : service.api(`${SESSION_PROFILE_PREFIX}${session}`, undefined, { locked: true })), options.exportDir);
  app.all('/mcp', async (request, response) => {
    await mcp.handle(request, response, request.body, scopes.get(request));
  });

  const profileOf = (request: Request) => validated(schemas.profileQuery, request.query, 'query').profile;
  const query = <T>(schema: z.ZodType<T>, request: Request) => validated(schema, request.query, 'query');
  const body = <T>(schema: z.ZodType<T>, request: Request) => validated(schema, request.body, 'body');

  // ---- status and lifecycle --------------------------------------------------

  app.get('/', async (request, response) => {
    // A browser asking for a page gets the dashboard; clients asking for JSON, the status.
    if (request.accepts(['json', 'html']) === 'html') {
      response.type('html').set('cache-control', 'no-store').send(dashboardPage());
      return;
    }
    response.json(await service.status(profileOf(request)));
  });
  app.post('/start', async (request, response) => {
    response.json(await service.start(profileOf(request), callerSignal(response)));
  });
  app.post('/stop', async (request, response) => {
    response.json(await service.stop(profileOf(request)));
  });

  // ---- tabs and inspection ---------------------------------------------------

  app.get('/tabs', async (request, response) => {
    response.json({ tabs: await service.tabs(profileOf(request)) });
  });
  app.post('/tabs/open', async (request, response) => {
    response.json(await service.openTab(profileOf(request), body(schemas.open, request).url, callerSignal(response)));
  });
  app.post('/tabs/focus', async (request, response) => {
    response.json(await service.focusTab(profileOf(request), body(schemas.focus, request).targetId, callerSignal(response)));
  });
  app.delete('/tabs/:targetId', async (request, response) => {
    response.json({ closed: await service.closeTab(profileOf(request), String(request.params.targetId), callerSignal(response)) });
  });
  app.post('/navigate', async (request, response) => {
    const { url, targetId } = body(schemas.navigate, request);
    response.json(await service.navigate(profileOf(request), url, targetId, callerSignal(response)));
  });
  app.post('/screenshot', async (request, response) => {
    response.json(await service.screenshot(profileOf(request), body(schemas.screenshot, request), callerSignal(response)));
  });
  app.post('/pdf', async (request, response) => {
    response.json(await service.pdf(profileOf(request), body(schemas.pdf, request).targetId, callerSignal(response)));
  });
  app.get('/console', async (request, response) => {
    const { profile, ...options } = query(schemas.consoleQuery, request);
    response.json(await service.console(profile, options));
  });

  // ---- snapshots, actions, hooks ---------------------------------------------

  app.get('/snapshot', async (request, response) => {
    const { profile, ...options } = query(schemas.snapshotQuery, request);
    response.json(await service.snapshot(profile, options, callerSignal(response)));
  });
  app.post('/act', async (request, response) => {
    const { profile, diff } = query(schemas.actQuery, request);
    response.json(await service.act(profile, body(schemas.act, request), callerSignal(response), { diffMaxChars: diff }));
  });
  app.post('/hooks/file-chooser', async (request, response) => {
    response.json(await service.fileChooser(profileOf(request), body(schemas.fileChooser, request), callerSignal(response)));
  });
  app.post('/hooks/dialog', async (request, response) => {
    response.json(await service.armDialog(profileOf(request), body(schemas.dialog, request), callerSignal(response)));
  });

  // ---- a record of what happened: network log, HAR, trace (issue 22) ---------

  app.post('/network/record', async (request, response) => {
    response.json(await recordings.networkRecord(profileOf(request), body(schemas.networkRecord, request)));
  });
  app.get('/network', async (request, response) => {
    const { profile, ...filters } = query(schemas.networkQuery, request);
    response.json(await recordings.network(profile, filters, secretsRefusal(request)));
  });
  app.get('/network/body', async (request, response) => {
    const { profile, ...which } = query(schemas.networkBody, request);
    response.json(await recordings.networkBody(profile, which));
  });
  app.post('/network/har', async (request, response) => {
    response.json(await recordings.har(profileOf(request), body(schemas.har, request), secretsRefusal(request)));
  });
  app.post('/trace/start', async (request, response) => {
    response.json(await recordings.traceStart(profileOf(request)));
  });
  app.post('/trace/stop', async (request, response) => {
    response.json(await recordings.traceStop(profileOf(request), body(schemas.traceStop, request)));
  });

  // ---- live view and dashboard -----------------------------------------------

  /** A tab as multipart/x-mixed-replace JPEG (an <img> shows it); the screencast stops when the last viewer leaves. */
  app.get('/screencast', async (request, response) => {
    const { profile, targetId } = query(schemas.screencastQuery, request);
    const { cast } = await manager.driver(profile).screencast(targetId);
    const boundary = 'clawdframe';
    response.writeHead(200, { 'content-type': `multipart/x-mixed-replace; boundary=${boundary}`, 'cache-control': 'no-store', connection: 'close' });
    // Each frame is followed by the next boundary at once: a browser shows a part only when it sees the part end.
    response.write(`--${boundary}\r\n`);
    const write = (jpeg: Buffer, capturedAt: number) => {
      // A viewer that does not keep up misses frames rather than growing the buffer.
      if (response.writableLength > LIMITS.screencastBufferedBytes) return;
      response.write(`Content-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\nX-Captured-At: ${Math.round(capturedAt)}\r\n\r\n`);
      response.write(jpeg);
      response.write(`\r\n--${boundary}\r\n`);
    };
    // Browsers show a part once the next one starts: a still page (one frame) is sent once more.
    let repeat: NodeJS.Timeout | undefined;
    const stop = await cast.watch(({ jpeg, capturedAt }) => {
      clearTimeout(repeat);
      write(jpeg, capturedAt);
      repeat = setTimeout(() => write(jpeg, capturedAt), 250);
    });
    const end = () => {
      clearTimeout(repeat);
      stop().catch(() => {});
    };
    // The viewer may have gone while the screencast started: then it stops at once.
    if (response.destroyed) end();
    else response.once('close', end);
  });
  /**
   * One JPEG of a tab, for the dashboard's thumbnails: refreshed by reloading,
   * since each open stream would hold one of the browser's few connections
   * per host. Not an action (not logged).
   */
  app.get('/screencast/frame', async (request, response) => {
    const { profile, targetId } = query(schemas.screencastQuery, request);
    const jpeg = await manager.driver(profile).thumbnail(targetId);
    if (!jpeg) return void response.status(204).end();
    response.set('cache-control', 'no-store').type('image/jpeg').send(jpeg);
  });
  /** A person's input through the live view: logged as the person's. */
  app.post('/screencast/input', async (request, response) => {
    response.json(await service.viewInput(profileOf(request), body(schemas.viewInput, request), callerSignal(response)));
  });
  /** A one-time link into the dashboard, for `clawd-browser dashboard` (a token holder). */
  app.post('/dashboard/link', (request, response) => {
    const host = request.headers.host ?? `127.0.0.1:${port}`;
    response.json({ url: `http://${host}/dashboard/login?code=${dashboard.newCode()}`, expiresInSeconds: 60 });
  });
  app.get('/dashboard/login', (request, response) => {
    const session = dashboard.login(String(request.query.code ?? ''));
    if (!session) throw new UnauthorizedError('This dashboard link is used or expired: run `clawd-browser dashboard` for a new one');
    response.set('set-cookie', dashboard.cookieFor(session)).redirect(302, '/');
  });

  // ---- task sessions, grants, the cookie vault (spec §11) -------------------

  app.post('/sessions', async (request, response) => {
    response.status(201).json(await credentials.openSession(body(schemas.openSession, request), callerSignal(response)));
  });
  app.get('/sessions', (_request, response) => {
    response.json(credentials.listSessions());
  });
  app.delete('/sessions/:id', async (request, response) => {
    response.json(await credentials.closeSession(String(request.params.id)));
  });
  app.post('/sessions/:id/extend', (request, response) => {
    response.json(credentials.extendSession(String(request.params.id), body(schemas.extendSession, request).ttl));
  });
  app.get('/grants', (_request, response) => {
    response.json(credentials.liveGrants());
  });
  app.get('/audit', (request, response) => {
    response.json(credentials.audit(query(schemas.auditQuery, request)));
  });
  /** A session's recorded screenshots (record: audit), and one of them as a JPEG with `file`. */
  app.get('/audit/recording', (request, response) => {
    const { session, file } = query(schemas.recordingQuery, request);
    if (file === undefined) return void response.json(credentials.recording(session));
    response.set('cache-control', 'no-store').type('image/jpeg').send(credentials.recordedShot(session, file));
  });
  /** Server-sent events for the operator's console: each audit entry as it is written (sessions, grants, the vault). */
  app.get('/events', (request, response) => {
    events.stream(request, response);
  });
  app.post('/grants', (request, response) => {
    response.status(201).json(credentials.issueGrant(body(schemas.issueGrant, request)));
  });
  app.delete('/grants/:id', (request, response) => {
    response.json(credentials.revokeGrant(String(request.params.id)));
  });
  app.get('/vault', (request, response) => {
    response.json(credentials.vault(query(schemas.vaultQuery, request).tenant));
  });
  app.delete('/vault', (request, response) => {
    const { tenant, domain } = query(schemas.vaultQuery, request);
    response.json(credentials.forget(tenant, domain));
  });
  app.post('/vault/refresh', async (request, response) => {
    response.status(201).json(await credentials.refresh(body(schemas.vaultRefresh, request), callerSignal(response)));
  });
  app.post('/vault/refresh/:id/done', async (request, response) => {
    response.json(await credentials.refreshDone(String(request.params.id), body(schemas.vaultRefreshDone, request).domains));
  });
  app.post('/vault/from-extension', async (request, response) => {
    response.json(await credentials.fromExtension(body(schemas.vaultFromExtension, request)));
  });

  app.get('/actions', (request, response) => {
    response.json(service.actions(query(schemas.actionsQuery, request)));
  });
  app.get('/downloads', async (request, response) => {
    response.json(service.downloads(profileOf(request)));
  });

  // ---- profiles --------------------------------------------------------------

  app.get('/profiles', async (_request, response) => {
    response.json(await service.profiles());
  });
  app.post('/profiles/create', async (request, response) => {
    const profile = body(schemas.createProfile, request);
    if (profile.cdpUrl && pointsAtItself(profile.cdpUrl))
      throw new BadRequestError(`cdpUrl ${JSON.stringify(profile.cdpUrl)} points at clawd-browser itself: a remote profile must name another browser`);
    response.status(201).json(manager.registry.create(profile));
  });
  app.delete('/profiles/:name', async (request, response) => {
    response.json({ deleted: await manager.deleteProfile(String(request.params.name)) });
  });
  app.post('/reset-profile', async (request, response) => {
    response.json(await service.resetProfile(profileOf(request)));
  });

  app.use((request: Request) => {
    throw new NotFoundError(`No route ${request.method} ${request.path}`);
  });

  // Errors become statuses in http-errors.ts, the same for both servers.
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    if (error instanceof CallerGoneError) return; // nobody to answer; the action log has it
    const failure = asHttpFailure(error);
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
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
