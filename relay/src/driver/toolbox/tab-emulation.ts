import type { Route } from 'playwright-core';
import type { TabPort } from '../tab-port.js';
import { devicePresets, emulationCommands, type HeldEmulation, originHeaders } from './emulation-plan.js';

/**
 * One tab's emulation: its own settings (over the profile's, which the
 * driver holds), put in place through the tab's own CDP session, which
 * lives as long as the tab, so the overrides do too. Headers for one origin
 * (and HTTP credentials) are a Playwright route on the tab that adds them to
 * that origin's requests only.
 */
export class TabEmulation {
  /** Set on this tab alone. */
  own: HeldEmulation = {};
  /** Whether anything was ever applied: a tab nobody emulates costs no command at all. */
  private applied = false;
  private defaultUserAgent: string | undefined;
  private headerRoute: { matches: (url: URL) => boolean; handler: (route: Route) => Promise<void> } | undefined;
  private networkEnabled = false;

  constructor(private readonly tab: TabPort) {}

  /** Puts the tab in the state `effective` says, every category stated whole. */
  async apply(effective: HeldEmulation): Promise<void> {
    if (!this.applied && !Object.keys(effective).length) return;
    this.applied = true;
    const session = await this.tab.cdp();
    const device = effective.device ? (await devicePresets())[effective.device] : undefined;
    // The tab's own agent, read before any override of ours: what a locale alone keeps.
    this.defaultUserAgent ??= await this.tab.page.evaluate(() => navigator.userAgent).catch(() => '');
    if (!this.networkEnabled) {
      // Throttling and extra headers act on a session that has the Network domain on.
      await session.send('Network.enable');
      this.networkEnabled = true;
    }
    for (const [method, params] of emulationCommands(effective, device, this.defaultUserAgent)) {
      await session.send(method, params as never);
    }
    await this.routeOriginHeaders(originHeaders(effective));
  }

  private async routeOriginHeaders(byOrigin: Map<string, Record<string, string>>): Promise<void> {
    const { page } = this.tab;
    if (this.headerRoute) await page.unroute(this.headerRoute.matches, this.headerRoute.handler).catch(() => {});
    this.headerRoute = undefined;
    if (!byOrigin.size) return;
    const matches = (url: URL) => byOrigin.has(url.origin);
    const handler = async (route: Route) => {
      const extra = byOrigin.get(new URL(route.request().url()).origin);
      if (!extra) return route.fallback();
      return route.fallback({ headers: { ...(await route.request().allHeaders()), ...extra } });
    };
    // Only requests to the named origins are held; the others never pause for this route.
    await page.route(matches, handler);
    this.headerRoute = { matches, handler };
  }
}
