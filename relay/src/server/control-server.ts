import { createServer } from 'node:http';
import { relayPortFor } from '../../../protocol/constants.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { applyServerLimits, LIMITS, SERVER_OPTIONS } from './limits.js';
import { listen } from './listen.js';
import { asHttpFailure, sendError, stackFrames } from './http-errors.js';
import { checkHostAndOrigin, checkRequest, guardFor, isLoopbackHost, refusal } from './request-guard.js';
import { DashboardAuth } from './dashboard-auth.js';
import { dashboardPage } from './dashboard-page.js';
import { schemas } from '../api/schemas.js';
import type { Status } from '../api/responses.js';
import { describeIssues } from '../validation.js';
import { BrowserClient } from '../client/browser-client.js';
import { urlHost } from '../config/config.js';
import { McpHttpSessions } from '../mcp/http-sessions.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import type { ActionLog } from '../runtime/action-log.js';
import { abortable, CallerGoneError, runOperation } from '../runtime/operation.js';
import type { TaskSessions } from '../sessions/task-sessions.js';
import type { AuditLog } from '../vault/audit-log.js';
import { type CookieVault, fromBrowserCookie, underSite } from '../vault/cookie-vault.js';
import { MAX_WAIT_MS } from '../api/schemas.js';
import type { Grants } from '../vault/grants.js';

/**
 * The control API (spec §6, port 18791): JSON in, JSON out, every route with
 * `?profile=`. Routes are the same for every kind of profile: they talk to a
 * ProfileDriver. Errors are ClawdErrors, mapped to statuses in one place below.
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
  credentials: {
    sessions: TaskSessions;
    vault: () => CookieVault;
    grants: () => Grants;
    audit: AuditLog;
    /** The relay's way to ask the person, in the extension, which domains' cookies may be saved. */
    askConsent: (tenant: string, domains: string[], timeoutMs: number) => Promise<string[]>;
  };
}

export interface ControlServer {
  readonly port: number;
  close(): Promise<void>;
}

function parse<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const detail = describeIssues(result.error, what);
  throw new BadRequestError(`Invalid ${what}: ${detail}`);
}

/** Views, not actions: a recorded session keeps no screenshot of them. */
const NOT_RECORDED = new Set(['snapshot', 'screenshot', 'pdf', 'start', 'focus', 'close', 'dialog']);

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { manager, logger } = options;
  const { sessions, vault, grants, audit, askConsent } = options.credentials;
  let port = options.port;
  /** This server's port and the relay's (one above): a remote profile may not loop back into them. */
  const ownPorts: number[] = [];
  const pointsAtItself = (url: string) => {
    const target = new URL(url);
    const targetPort = Number(target.port || (target.protocol === 'https:' || target.protocol === 'wss:' ? 443 : 80));
    return isLoopbackHost(target.host) && ownPorts.includes(targetPort);
  };
  const guard = guardFor(options.token, options.host);
  const app = express();
  app.disable('x-powered-by');

  // The token, or the dashboard's session cookie (which stands for it); the login link needs neither.
  const dashboard = new DashboardAuth();
  app.use((request, response, next) => {
    if (request.path === '/dashboard/login' || dashboard.hasSession(request)) {
      const refused = checkHostAndOrigin(request, guard);
      return refused && !refused.ok ? sendError(response, refusal(refused)) : next();
    }
    const verdict = checkRequest(request, guard);
    if (verdict.ok) return next();
    sendError(response, refusal(verdict));
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

  // MCP over Streamable HTTP: the same tools as `clawd-browser mcp`, calling
  // this server's own routes (as any client would) with its token.
  let self: BrowserClient | undefined;
  const mcp = new McpHttpSessions(() => self!, options.exportDir);
  app.all('/mcp', async (request, response) => {
    await mcp.handle(request, response, request.body);
  });

  const profileOf = (request: Request) => parse(schemas.profileQuery, request.query, 'query').profile;
  const body = <T>(schema: z.ZodType<T>, request: Request) => parse(schema, request.body, 'body');

  /** A request that acts on a browser: cancelled with its caller, bounded, logged (runtime/operation.ts). */
  const operation = <T>(response: Response, profile: string | undefined, meta: { kind: string; targetId?: string; ref?: string }, work: (driver: ProfileDriver, signal: AbortSignal) => Promise<T>) => {
    const driver = manager.driver(profile);
    const settings = { actionTimeoutMs: manager.registry.config().actionTimeoutMs, log: options.actionLog };
    return runOperation({ profile: driver.profile.name, ...meta }, response, settings, async (signal) => {
      const result = await work(driver, signal);
      // A recorded task session keeps a screenshot per action (outside its dir).
      if (!NOT_RECORDED.has(meta.kind)) await sessions.recordAction(driver.profile.name, meta.kind, meta.targetId ?? (result as { targetId?: string })?.targetId);
      return result;
    });
  };

  // ---- status and lifecycle --------------------------------------------------

  app.get('/', async (request, response) => {
    // A browser asking for a page gets the dashboard; clients asking for JSON, the status.
    if (request.accepts(['json', 'html']) === 'html') {
      response.type('html').set('cache-control', 'no-store').send(dashboardPage());
      return;
    }
    const driver = manager.peek(profileOf(request));
    const { profile } = driver;
    const config = manager.registry.config();
    const status: Status = {
      profile: profile.name,
      driver: profile.driver,
      enabled: config.enabled,
      color: profile.color,
      ...(profile.cdpPort ? { cdpPort: profile.cdpPort } : {}),
      ...(profile.cdpUrl ? { cdpUrl: profile.cdpUrl } : {}),
      ...(config.enabled ? await driver.status() : { running: false }),
    };
    response.json(status);
  });
  app.post('/start', async (request, response) => {
    response.json(
      await operation(response, profileOf(request), { kind: 'start' }, async (driver, signal) => {
        await abortable(driver.start(), signal);
        return { profile: driver.profile.name, ...(await driver.status()) };
      }),
    );
  });
  app.post('/stop', async (request, response) => {
    const driver = manager.driver(profileOf(request));
    await driver.stop();
    response.json({ profile: driver.profile.name, ...(await driver.status()) });
  });

  // ---- tabs and inspection ---------------------------------------------------

  app.get('/tabs', async (request, response) => {
    response.json({ tabs: await manager.driver(profileOf(request)).tabs() });
  });
  app.post('/tabs/open', async (request, response) => {
    const { url } = body(schemas.open, request);
    response.json(await operation(response, profileOf(request), { kind: 'open' }, (driver, signal) => driver.openTab(url, signal)));
  });
  app.post('/tabs/focus', async (request, response) => {
    const { targetId } = body(schemas.focus, request);
    response.json(await operation(response, profileOf(request), { kind: 'focus', targetId }, (driver) => driver.focusTab(targetId)));
  });
  app.delete('/tabs/:targetId', async (request, response) => {
    const targetId = String(request.params.targetId);
    response.json({ closed: await operation(response, profileOf(request), { kind: 'close', targetId }, (driver) => driver.closeTab(targetId)) });
  });
  app.post('/navigate', async (request, response) => {
    const { url, targetId } = body(schemas.navigate, request);
    response.json(await operation(response, profileOf(request), { kind: 'navigate', targetId }, (driver, signal) => driver.navigate(url, targetId, signal)));
  });
  app.post('/screenshot', async (request, response) => {
    const options = body(schemas.screenshot, request);
    response.json(await operation(response, profileOf(request), { kind: 'screenshot', targetId: options.targetId, ref: options.ref }, (driver) => driver.screenshot(options)));
  });
  app.post('/pdf', async (request, response) => {
    const { targetId } = body(schemas.pdf, request);
    response.json(await operation(response, profileOf(request), { kind: 'pdf', targetId }, (driver) => driver.pdf(targetId)));
  });
  app.get('/console', async (request, response) => {
    const { profile, targetId, level } = parse(schemas.consoleQuery, request.query, 'query');
    response.json(await manager.driver(profile).console({ targetId, level }));
  });

  // ---- snapshots, actions, hooks ---------------------------------------------

  app.get('/snapshot', async (request, response) => {
    const { profile, ...options } = parse(schemas.snapshotQuery, request.query, 'query');
    response.json(await operation(response, profile, { kind: 'snapshot', targetId: options.targetId }, (driver) => driver.snapshot(options)));
  });
  app.post('/act', async (request, response) => {
    const action = body(schemas.act, request);
    const ref = 'ref' in action ? action.ref : undefined;
    response.json(await operation(response, profileOf(request), { kind: action.kind, targetId: action.targetId, ref }, (driver, signal) => driver.act(action, signal)));
  });
  app.post('/hooks/file-chooser', async (request, response) => {
    const hook = body(schemas.fileChooser, request);
    const meta = { kind: 'file-chooser', targetId: hook.targetId, ref: hook.ref ?? hook.inputRef };
    response.json(await operation(response, profileOf(request), meta, (driver, signal) => driver.fileChooser(hook, signal)));
  });
  app.post('/hooks/dialog', async (request, response) => {
    const hook = body(schemas.dialog, request);
    response.json(await operation(response, profileOf(request), { kind: 'dialog', targetId: hook.targetId }, (driver) => driver.armDialog(hook)));
  });

  // ---- live view and dashboard -----------------------------------------------

  /** A tab as multipart/x-mixed-replace JPEG (an <img> shows it); the screencast stops when the last viewer leaves. */
  app.get('/screencast', async (request, response) => {
    const { profile, targetId } = parse(schemas.screencastQuery, request.query, 'query');
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
    const { profile, targetId } = parse(schemas.screencastQuery, request.query, 'query');
    const jpeg = await manager.driver(profile).thumbnail(targetId);
    if (!jpeg) return void response.status(204).end();
    response.set('cache-control', 'no-store').type('image/jpeg').send(jpeg);
  });
  /** A person's input through the live view: logged as the person's. */
  app.post('/screencast/input', async (request, response) => {
    const input = body(schemas.viewInput, request);
    const meta = { kind: `view-${input.type}`, targetId: input.targetId, actor: 'person' as const };
    response.json(await operation(response, profileOf(request), meta, (driver) => driver.viewInput(input)));
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
    response.status(201).json(await sessions.open(body(schemas.openSession, request)));
  });
  app.get('/sessions', (_request, response) => {
    response.json({ sessions: sessions.list() });
  });
  app.delete('/sessions/:id', async (request, response) => {
    response.json({ closed: await sessions.close(String(request.params.id)) });
  });
  app.post('/grants', (request, response) => {
    const { tenant, domains, ttl, origin_session_id } = body(schemas.issueGrant, request);
    const issued = grants().issue({ tenant, domains, ttlMs: ttl * 1000, originSessionId: origin_session_id });
    audit.record({ event: 'grant', tenant, domains: issued.grant.allowed_domains, grantId: issued.grant.id, outcome: 'ok', detail: `expires ${new Date(issued.grant.expires_at).toISOString()}` });
    response.status(201).json(issued);
  });
  app.delete('/grants/:id', (request, response) => {
    const id = String(request.params.id);
    grants().revoke(id);
    audit.record({ event: 'grant-revoked', grantId: id, outcome: 'ok' });
    response.json({ revoked: id });
  });
  app.get('/vault', (request, response) => {
    const { tenant } = parse(schemas.vaultQuery, request.query, 'query');
    response.json({ entries: vault().list(tenant) });
  });
  app.delete('/vault', (request, response) => {
    const { tenant, domain } = parse(schemas.vaultQuery, request.query, 'query');
    if (!tenant) throw new BadRequestError('Give the tenant whose cookies to forget (and a domain, or all of its domains go)');
    const forgotten = vault().forget(tenant, domain);
    audit.record({ event: 'vault-forget', tenant, domains: forgotten.map((entry) => entry.domain), outcome: 'ok' });
    response.json({ forgotten });
  });
  /** A session a person drives to log in; `done` saves its cookies for the domains and ends it. */
  app.post('/vault/refresh', async (request, response) => {
    const { tenant, domains, ttl } = body(schemas.vaultRefresh, request);
    const session = await sessions.open({ credential_mode: 'clean', tenant, domains, ttl: ttl ?? 900 }, { refresh: true });
    response.status(201).json({ ...session, liveView: `/screencast?profile=${session.profile}`, done: `/vault/refresh/${session.id}/done` });
  });
  app.post('/vault/refresh/:id/done', async (request, response) => {
    const { domains } = body(schemas.vaultRefreshDone, request);
    response.json({ saved: await sessions.saveRefresh(String(request.params.id), domains) });
  });

  /**
   * Saves cookies from the user's own browser: the person confirms in the
   * extension which of the domains may go; only those are read (through the
   * extension profile, scoped to the shared tabs' sites) and saved.
   */
  app.post('/vault/from-extension', async (request, response) => {
    const { tenant, domains, timeoutMs } = body(schemas.vaultFromExtension, request);
    const allowed = await askConsent(tenant, domains, timeoutMs ?? MAX_WAIT_MS);
    if (!allowed.length) {
      audit.record({ event: 'extension-saved', tenant, domains, outcome: 'refused', detail: 'not confirmed in the extension' });
      throw new ForbiddenError(`Not saved: the person did not allow ${domains.join(', ')} in the clawd-browser extension`);
    }
    const cookies = await manager.driver('extension').cookies();
    const saved = allowed.map((domain) => {
      const own = cookies.filter((cookie) => underSite(cookie.domain, domain));
      vault().save(tenant, domain, own.map(fromBrowserCookie));
      return { domain, cookies: own.length };
    });
    audit.record({ event: 'extension-saved', tenant, domains: allowed, outcome: 'ok', detail: saved.map((s) => `${s.domain}: ${s.cookies}`).join(', ') });
    response.json({ saved, refused: domains.filter((domain) => !allowed.includes(domain)) });
  });

  /** The action log's recent records, newest last (never what was typed: runtime/action-log.ts). */
  app.get('/actions', (request, response) => {
    const { profile, limit } = parse(schemas.actionsQuery, request.query, 'query');
    response.json({ actions: options.actionLog.recent({ profile, limit }) });
  });

  app.get('/downloads', async (request, response) => {
    response.json(manager.driver(profileOf(request)).downloads());
  });

  // ---- profiles --------------------------------------------------------------

  app.get('/profiles', async (_request, response) => {
    const profiles = await Promise.all(
      manager.registry.list().map(async (profile) => ({ ...profile, running: (await manager.peek(profile.name).status()).running ?? false })),
    );
    response.json({ profiles, defaultProfile: manager.defaultProfile });
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
    const name = profileOf(request) ?? manager.defaultProfile;
    response.json({ profile: name, ...(await manager.resetProfile(name)) });
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
  self = new BrowserClient({ baseUrl: `http://${urlHost(options.host)}:${port}`, token: options.token });
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
