import type { BrowserContext } from 'playwright-core';
import type { z } from 'zod';
import type { schemas } from '../../api/schemas.js';
import type { EmulationSettings, StorageState } from '../../api/toolbox-schemas.js';
import type { EmulationState, InitScriptInfo, RouteInfo } from '../../api/toolbox-responses.js';
import { ForbiddenError } from '../../errors.js';
import type { BrowserSecrets } from '../secrets/browser-secrets.js';
import type { Profile } from '../../profiles/profile-registry.js';
import type { UrlPolicy } from '../../runtime/url-policy.js';
import {
  type CookieFilter,
  clearCookies,
  clearStorageItems,
  exportStorageState,
  importStorageState,
  listCookies,
  setCookies,
  setStorageItems,
  storageItems,
  type StorageKind,
} from './browser-storage.js';
import type { DriverTab } from '../driver-tab.js';
import { isPersonsBrowser } from '../browser-endpoint.js';
import { devicePresets, type HeldEmulation, mergeEmulation, presetOf, shownEmulation } from './emulation-plan.js';
import { InitScripts } from './init-scripts.js';
import { asStorageCredential, fromStorageCredential, type VirtualAuthenticators } from '../secrets/virtual-authenticators.js';
import { NetworkRoutes } from '../network/network-routes.js';
import { readUploads, type UploadPolicy } from '../acts/uploads.js';

/**
 * The agent's toolbox on one profile (spec §16): emulation, network routes,
 * init scripts and storage, for one tab or for every tab of the profile (a
 * task session's profile is the session: its defaults are the session's).
 * The profile's emulation is applied to each tab as the driver first sees
 * it, before the driver navigates it.
 */

type Scope = 'tab' | 'profile';

export interface ToolboxHost {
  profile: Profile;
  /** The tab a request means (a targetId or its prefix, else the last used). */
  tab(targetId?: string): Promise<DriverTab>;
  /** Every open tab. */
  allTabs(): Promise<DriverTab[]>;
  context(): Promise<BrowserContext>;
  policy(): { urlPolicy?: UrlPolicy; uploads: UploadPolicy };
  tabOf: ConstructorParameters<typeof NetworkRoutes>[1];
  /** The secrets typed into the browser: while it holds one, nothing that could read it is added or read here. */
  secrets: BrowserSecrets;
  /** Its tabs' virtual authenticators (virtual-authenticators.ts): their passkeys are part of its storage state. */
  passkeys: VirtualAuthenticators;
}

export class ProfileToolbox {
  /** The profile's emulation defaults: every tab has them under its own. */
  private profileEmulation: HeldEmulation = {};
  private readonly settling = new WeakMap<DriverTab, Promise<void>>();
  private readonly routes: NetworkRoutes;
  private readonly scripts = new InitScripts();

  constructor(private readonly host: ToolboxHost) {
    this.routes = new NetworkRoutes(() => host.policy().urlPolicy, host.tabOf);
  }

  private get isExtension(): boolean {
    return isPersonsBrowser(this.host.profile.driver);
  }

  /** A tab the driver sees for the first time: the profile's emulation goes on it. */
  onTab(tab: DriverTab): void {
    if (!Object.keys(this.profileEmulation).length) return;
    const applying = tab.emulation.apply(this.profileEmulation).catch(() => {});
    this.settling.set(tab, applying);
  }

  /** Waits until the profile's emulation is on the tab (before its first navigation). */
  async settle(tab: DriverTab): Promise<void> {
    await this.settling.get(tab);
  }

  // ---- emulation -------------------------------------------------------------

  async emulation(targetId?: string, notes?: string[]): Promise<EmulationState> {
    const tab = await this.tabIfAny(targetId);
    return {
      ...(tab ? { targetId: await tab.targetId() } : {}),
      profile: shownEmulation(this.profileEmulation),
      tab: shownEmulation(tab?.emulation.own ?? {}),
      effective: shownEmulation(tab ? this.effective(tab) : this.profileEmulation),
      ...(notes?.length ? { notes } : {}),
    };
  }

  /**
   * A change on one tab or on the profile (which needs no tab: a task
   * session's defaults are set before its first page). A device name that is
   * not one is refused before anything changes.
   */
  async emulate(request: EmulationSettings & { targetId?: string; scope: Scope }): Promise<EmulationState> {
    const { targetId, scope, ...change } = request;
    if (change.device) presetOf(change.device, await devicePresets());
    const notes: string[] = [];
    if (scope === 'profile') {
      const before = this.profileEmulation;
      this.profileEmulation = mergeEmulation(before, change);
      await this.applyEverywhere(() => (this.profileEmulation = before));
    } else {
      const tab = await this.host.tab(targetId);
      const before = tab.emulation.own;
      tab.emulation.own = mergeEmulation(before, change);
      await tab.emulation.apply(this.effective(tab)).catch(async (error: unknown) => {
        // Nothing half-applied: the tab goes back to what it had.
        tab.emulation.own = before;
        await tab.emulation.apply(this.effective(tab)).catch(() => {});
        throw error;
      });
    }
    if (change.geolocation) notes.push(...(await this.grantGeolocation()));
    return this.emulation(targetId, notes);
  }

  async resetEmulation(targetId: string | undefined, scope: Scope): Promise<EmulationState> {
    if (scope === 'profile') {
      this.profileEmulation = {};
      await this.applyEverywhere(() => {});
    } else {
      const tab = await this.host.tab(targetId);
      tab.emulation.own = {};
      await tab.emulation.apply(this.effective(tab));
    }
    return this.emulation(targetId);
  }

  /** The tab named, or the tab a request means; none when none is named and the profile has no tab. */
  private async tabIfAny(targetId?: string): Promise<DriverTab | undefined> {
    if (targetId === undefined && !(await this.host.allTabs()).length) return undefined;
    return this.host.tab(targetId);
  }

  private effective(tab: DriverTab): HeldEmulation {
    return { ...this.profileEmulation, ...tab.emulation.own };
  }

  private async applyEverywhere(undo: () => void): Promise<void> {
    const tabs = await this.host.allTabs();
    try {
      for (const tab of tabs) await tab.emulation.apply(this.effective(tab));
    } catch (error) {
      undo();
      for (const tab of tabs) await tab.emulation.apply(this.effective(tab)).catch(() => {});
      throw error;
    }
  }

  /** A page asking for its position gets the emulated one without a prompt: the permission is granted where the browser allows it. */
  private async grantGeolocation(): Promise<string[]> {
    if (this.isExtension)
      return [
        'geolocation: the position is emulated, but on a shared or lent tab your Chrome still asks you for the permission (clawd-browser does not grant your browser permissions)',
      ];
    await (await this.host.context()).grantPermissions(['geolocation']);
    return [];
  }

  // ---- routes and init scripts ------------------------------------------------

  async addRoute(request: z.output<typeof schemas.route>): Promise<RouteInfo> {
    // A fulfilled page is the caller's own page on the site: it could read what is typed there.
    if (request.action === 'fulfill') {
      this.refuseWhileHolding("a route that fulfils requests (it would put the caller's page on the site) is not added");
      // And from now on the browser takes no secret: the caller's page may be on the site (browser-secrets.ts).
      this.host.secrets.callerCodeRan('a route that fulfils requests');
    }
    const { targetId, scope, ...route } = request;
    const file = route.bodyFile ? (await readUploads([route.bodyFile], this.host.policy().uploads))[0] : undefined;
    if (scope === 'profile') return this.routes.add(route, { scope, context: await this.host.context() }, file);
    const tab = await this.host.tab(targetId);
    return this.routes.add(route, { scope, tab, targetId: await tab.targetId() }, file);
  }
  listRoutes(): { routes: RouteInfo[] } {
    return { routes: this.routes.list() };
  }
  removeRoute(id: string): Promise<RouteInfo> {
    return this.routes.remove(id);
  }

  async addInitScript(request: z.output<typeof schemas.initScript>): Promise<InitScriptInfo> {
    this.refuseWhileHolding('init scripts are not added');
    this.host.secrets.callerCodeRan('an init script');
    if (request.scope === 'profile') return this.scripts.add(request.script, { scope: 'profile', context: await this.host.context() });
    const tab = await this.host.tab(request.targetId);
    return this.scripts.add(request.script, { scope: 'tab', tab, targetId: await tab.targetId() });
  }
  listInitScripts(): { scripts: InitScriptInfo[] } {
    return { scripts: this.scripts.list() };
  }
  removeInitScript(id: string): Promise<InitScriptInfo> {
    return this.scripts.remove(id);
  }

  // ---- storage -------------------------------------------------------------------

  async cookies(filter: CookieFilter) {
    this.refuseWhileHolding('its cookies are not read');
    return listCookies(await this.host.context(), filter);
  }
  async setCookies(cookies: z.output<typeof schemas.setCookies>['cookies']): Promise<{ set: number }> {
    return { set: await setCookies(await this.host.context(), cookies) };
  }
  async clearCookies(filter: CookieFilter): Promise<{ cleared: number }> {
    return { cleared: await clearCookies(await this.host.context(), filter) };
  }

  async storage(query: { targetId?: string; kind: StorageKind; origin?: string }) {
    this.refuseWhileHolding('its storage is not read');
    const tab = await this.host.tab(query.targetId);
    return { targetId: await tab.targetId(), kind: query.kind, ...(await storageItems(tab, query.kind, query.origin)) };
  }
  async setStorage(request: { targetId?: string; kind: StorageKind; origin?: string; items: Record<string, string> }) {
    const tab = await this.host.tab(request.targetId);
    return { targetId: await tab.targetId(), kind: request.kind, ...(await setStorageItems(tab, request.kind, request.origin, request.items)) };
  }
  async clearStorage(request: { targetId?: string; kind: StorageKind; origin?: string; key?: string }) {
    const tab = await this.host.tab(request.targetId);
    return { targetId: await tab.targetId(), kind: request.kind, ...(await clearStorageItems(tab, request.kind, request.origin, request.key)) };
  }

  async storageState(indexedDB: boolean): Promise<StorageState> {
    this.refuseWhileHolding('its storage state is not read');
    this.refuseOnExtension('read');
    const state = await exportStorageState(await this.host.context(), indexedDB);
    if (!this.host.passkeys.holding) return state;
    return { ...state, credentials: (await this.host.passkeys.held()).map(asStorageCredential) };
  }
  async setStorageState(state: StorageState): Promise<{ cookies: number; origins: number; credentials?: number }> {
    this.refuseOnExtension('replace');
    // Passkeys go to Chrome's authenticators, not to Playwright's (which would replace navigator.credentials in the page).
    const { credentials, ...rest } = state;
    const set = await importStorageState(await this.host.context(), rest);
    if (!credentials?.length) return set;
    await this.host.passkeys.hold(credentials.map(fromStorageCredential), await this.host.allTabs());
    return { ...set, credentials: credentials.length };
  }

  /**
   * Adds origins' storage (localStorage, IndexedDB) to what the browser
   * holds, its cookies untouched: a task session's lent storage, put in
   * before its first page.
   */
  async addOriginStorage(origins: StorageState['origins']): Promise<void> {
    const context = await this.host.context();
    const cookies = await context.cookies();
    await importStorageState(context, { cookies: cookies as StorageState['cookies'], origins });
  }

  /** The localStorage of every origin an open tab shows (the extension profile's shared tabs, for the vault). */
  async openTabsStorage(): Promise<StorageState['origins']> {
    const byOrigin = new Map<string, StorageState['origins'][number]>();
    for (const tab of await this.host.allTabs()) {
      const shown = await storageItems(tab, 'local').catch(() => undefined);
      if (!shown || byOrigin.has(shown.origin) || !Object.keys(shown.items).length) continue;
      byOrigin.set(shown.origin, { origin: shown.origin, localStorage: Object.entries(shown.items).map(([name, value]) => ({ name, value })) });
    }
    return [...byOrigin.values()];
  }

  /** The browser went: what was installed in it went too (the profile's emulation stays, for its next tabs). */
  browserGone(): void {
    this.routes.clear();
    this.scripts.clear();
  }

  /** While the browser holds a typed secret, `what` is refused: a script or a read could carry it out in any form. */
  private refuseWhileHolding(what: string): void {
    if (this.host.secrets.holding) throw this.host.secrets.heldError(what);
  }

  private refuseOnExtension(verb: string): void {
    if (!this.isExtension) return;
    throw new ForbiddenError(
      `The ${this.host.profile.name} profile's storage state would ${verb} the storage of your own Chrome: use /storage/cookies and /storage/items, which reach the shared tabs' sites only`,
    );
  }
}
