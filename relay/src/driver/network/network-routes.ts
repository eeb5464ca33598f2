import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { z } from 'zod';
import type { schemas } from '../../api/schemas.js';
import type { RouteInfo } from '../../api/toolbox-responses.js';
import { NotFoundError } from '../../errors.js';
import { resolveHost, type UrlPolicy, urlPolicyProblem } from '../../runtime/url-policy.js';
import type { DriverTab } from '../driver-tab.js';
import type { UploadFile } from '../acts/uploads.js';

/**
 * A profile's network routes (`POST /routes`): requests matching a glob or
 * a regular expression are fulfilled, aborted, or continued with changed
 * headers, in one tab (Playwright's page.route) or in every tab of the
 * profile (context.route). The URL policy is judged first: a request it
 * refuses is aborted, never fulfilled or sent on, so a route can never
 * stand in for, or open, a denied host. A routed request says so in the
 * network log. The newest route that matches answers first (Playwright's
 * order); a `continue` hands the request on to the next.
 */

export type RouteRequest = Omit<z.output<typeof schemas.route>, 'targetId' | 'scope'>;

/** Where a route applies: one tab, or the profile's context. */
export type RouteScope = { scope: 'tab'; tab: DriverTab; targetId: string } | { scope: 'profile'; context: BrowserContext };

interface Installed {
  info: RouteInfo;
  matcher: string | RegExp;
  handler: (route: Route) => Promise<void>;
  where: RouteScope;
}

export class NetworkRoutes {
  private nextId = 1;
  private readonly installed = new Map<string, Installed>();

  constructor(
    private readonly policy: () => UrlPolicy | undefined,
    /** The tab a page is (where a profile route's refusals and routed requests are noted). */
    private readonly tabOf: (page: Page) => DriverTab,
  ) {}

  /** Installs a route; `body` is the fulfil's body already read (inline, or the file's). */
  async add(request: RouteRequest, where: RouteScope, file?: UploadFile): Promise<RouteInfo> {
    const id = `r${this.nextId++}`;
    const info: RouteInfo = {
      id,
      scope: where.scope,
      ...(where.scope === 'tab' ? { targetId: where.targetId } : {}),
      ...(request.url !== undefined ? { url: request.url } : { regex: request.regex }),
      action: request.action,
      ...(request.action === 'fulfill' ? { status: request.status ?? 200 } : {}),
      ...(request.action === 'abort' ? { errorReason: request.errorReason ?? 'blockedbyclient' } : {}),
      ...(request.bodyFile ? { bodyFile: request.bodyFile } : {}),
      ...(request.times ? { times: request.times } : {}),
      hits: 0,
      refused: 0,
    };
    const matcher = request.url ?? new RegExp(request.regex!);
    const body = file?.buffer ?? (request.body !== undefined ? Buffer.from(request.body) : undefined);
    const contentType = request.contentType ?? file?.mimeType;
    const handler = async (route: Route) => {
      const sent = route.request();
      const tab = where.scope === 'tab' ? where.tab : this.tabOfRequest(sent);
      const problem = await urlPolicyProblem(sent.url(), this.policy(), resolveHost);
      if (problem) {
        info.refused++;
        tab?.noteEvent(`route ${id} matched ${sent.url().split(/[?#]/)[0]}, which the URL policy refuses: ${problem}`);
        return route.abort('blockedbyclient');
      }
      info.hits++;
      if (info.times !== undefined && info.hits >= info.times) this.installed.delete(id);
      const how = `${id} ${request.action === 'fulfill' ? 'fulfilled' : request.action === 'abort' ? 'aborted' : 'continued'}`;
      tab?.network.markRouted(sent, how);
      if (request.action === 'fulfill') return route.fulfill({ status: info.status, headers: request.headers, body, contentType });
      if (request.action === 'abort') return route.abort(info.errorReason);
      return route.fallback({ headers: { ...(await sent.allHeaders()), ...request.headers } });
    };
    const options = request.times ? { times: request.times } : undefined;
    if (where.scope === 'tab') await where.tab.page.route(matcher, handler, options);
    else await where.context.route(matcher, handler, options);
    this.installed.set(id, { info, matcher, handler, where });
    if (where.scope === 'tab') where.tab.page.once('close', () => this.installed.delete(id));
    return info;
  }

  list(): RouteInfo[] {
    return [...this.installed.values()].map(({ info }) => ({ ...info }));
  }

  async remove(id: string): Promise<RouteInfo> {
    const held = this.installed.get(id);
    if (!held) throw new NotFoundError(`No route ${id} (GET /routes lists them; one with times ends by itself)`);
    this.installed.delete(id);
    const { where, matcher, handler } = held;
    if (where.scope === 'tab') await where.tab.page.unroute(matcher, handler).catch(() => {});
    else await where.context.unroute(matcher, handler).catch(() => {});
    return { ...held.info };
  }

  /** The browser went: its routes went with it. */
  clear(): void {
    this.installed.clear();
  }

  private tabOfRequest(request: Request): DriverTab | undefined {
    try {
      return this.tabOf(request.frame().page());
    } catch {
      // A service worker's request has no frame.
      return undefined;
    }
  }
}
