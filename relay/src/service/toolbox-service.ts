import type { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { ToolboxApi } from '../api/toolbox-api.js';
import type { Cookie, StorageState } from '../api/toolbox-responses.js';
import type { ProfileToolbox } from '../driver/toolbox/profile-toolbox.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { validated } from '../validation.js';
import type { Operations } from './operation-runner.js';

/**
 * The toolbox (spec §16) for HTTP and MCP alike: emulation, network routes,
 * init scripts, storage. What changes a browser goes through an
 * operation (operation-runner.ts: cancelled with its caller, bounded, logged);
 * readings do not.
 *
 * Cookie values are shown only to the token's holder, as credential headers
 * are: a task session's key, MCP and the dashboard see names, domains and
 * expiry, never a value, so a login lent to a session is used there and
 * never handed over. A storage state exported without values cannot log in
 * anywhere else.
 */

type Query<K extends keyof typeof schemas> = Omit<z.output<(typeof schemas)[K]>, 'profile'>;

export class ToolboxService {
  constructor(
    private readonly operations: Operations,
    private readonly drivers: Pick<ProfileManager, 'driver'>,
  ) {}

  private box(profile: string | undefined): ProfileToolbox {
    return this.drivers.driver(profile).toolbox;
  }

  private act<T>(
    profile: string | undefined,
    kind: string,
    targetId: string | undefined,
    signal: AbortSignal | undefined,
    work: (box: ProfileToolbox) => Promise<T>,
  ): Promise<T> {
    return this.operations.operation(profile, { kind, targetId }, signal, (driver) => work(driver.toolbox));
  }

  // ---- emulation

  async emulation(profile: string | undefined, query: Query<'emulationQuery'>) {
    await this.drivers.driver(profile).start();
    return this.box(profile).emulation(query.targetId);
  }
  emulate(profile: string | undefined, request: z.output<typeof schemas.emulation>, signal?: AbortSignal) {
    return this.act(profile, 'emulate', request.targetId, signal, (box) => box.emulate(request));
  }
  resetEmulation(profile: string | undefined, query: Query<'emulationReset'>, signal?: AbortSignal) {
    return this.act(profile, 'emulate', query.targetId, signal, (box) => box.resetEmulation(query.targetId, query.scope));
  }

  // ---- routes and init scripts

  routes(profile: string | undefined) {
    return this.box(profile).listRoutes();
  }
  addRoute(profile: string | undefined, request: z.output<typeof schemas.route>, signal?: AbortSignal) {
    return this.act(profile, 'route', request.targetId, signal, (box) => box.addRoute(request));
  }
  async removeRoute(profile: string | undefined, id: string) {
    return { removed: await this.box(profile).removeRoute(id) };
  }
  initScripts(profile: string | undefined) {
    return this.box(profile).listInitScripts();
  }
  addInitScript(profile: string | undefined, request: z.output<typeof schemas.initScript>, signal?: AbortSignal) {
    return this.act(profile, 'init-script', request.targetId, signal, (box) => box.addInitScript(request));
  }
  async removeInitScript(profile: string | undefined, id: string) {
    return { removed: await this.box(profile).removeInitScript(id) };
  }

  // ---- storage

  async cookies(profile: string | undefined, filter: Query<'cookiesQuery'>, showValues: boolean): Promise<{ cookies: Cookie[]; valuesHidden?: boolean }> {
    const cookies = await this.box(profile).cookies(filter);
    return showValues ? { cookies } : { cookies: cookies.map(withoutValue), valuesHidden: true };
  }
  setCookies(profile: string | undefined, request: z.output<typeof schemas.setCookies>, signal?: AbortSignal) {
    return this.act(profile, 'cookies', undefined, signal, (box) => box.setCookies(request.cookies));
  }
  clearCookies(profile: string | undefined, filter: Query<'clearCookies'>, signal?: AbortSignal) {
    return this.act(profile, 'cookies', undefined, signal, (box) => box.clearCookies(filter));
  }
  storage(profile: string | undefined, query: Query<'storageQuery'>, signal?: AbortSignal) {
    return this.act(profile, 'storage-read', query.targetId, signal, (box) => box.storage(query));
  }
  setStorage(profile: string | undefined, request: z.output<typeof schemas.setStorage>, signal?: AbortSignal) {
    return this.act(profile, 'storage', request.targetId, signal, (box) => box.setStorage(request));
  }
  clearStorage(profile: string | undefined, query: Query<'clearStorage'>, signal?: AbortSignal) {
    return this.act(profile, 'storage', query.targetId, signal, (box) => box.clearStorage(query));
  }
  async storageState(
    profile: string | undefined,
    query: Query<'storageStateQuery'>,
    showValues: boolean,
    signal?: AbortSignal,
  ): Promise<StorageState & { valuesHidden?: boolean }> {
    const state = await this.act(profile, 'storage-read', undefined, signal, (box) => box.storageState(query.indexedDB ?? false));
    // A passkey's private key is a value like a cookie's: the token's holder's only.
    return showValues
      ? state
      : {
          ...state,
          cookies: state.cookies.map(withoutValue),
          ...(state.credentials ? { credentials: state.credentials.map((credential) => ({ ...credential, privateKey: '' })) } : {}),
          valuesHidden: true,
        };
  }
  setStorageState(profile: string | undefined, request: z.output<typeof schemas.setStorageState>, signal?: AbortSignal) {
    return this.act(profile, 'storage-state', undefined, signal, (box) => box.setStorageState(request.state));
  }

  /** The toolbox as an agent's tools see it, in process: arguments checked as the HTTP routes check them; cookie values hidden (not the token's holder's door). */
  api(profile: string | undefined, signal?: AbortSignal): ToolboxApi {
    const checked = <K extends keyof typeof schemas>(key: K, input: unknown) => {
      const { profile: _ignored, ...rest } = validated(schemas[key] as z.ZodType<Record<string, unknown>>, input, 'arguments');
      return rest as never;
    };
    return {
      emulation: (query = {}) => this.emulation(profile, checked('emulationQuery', query)),
      emulate: (request) => this.emulate(profile, checked('emulation', request), signal),
      resetEmulation: (query = {}) => this.resetEmulation(profile, checked('emulationReset', query), signal),
      routes: async () => this.routes(profile),
      addRoute: (request) => this.addRoute(profile, checked('route', request), signal),
      removeRoute: (id) => this.removeRoute(profile, id),
      initScripts: async () => this.initScripts(profile),
      addInitScript: (request) => this.addInitScript(profile, checked('initScript', request), signal),
      removeInitScript: (id) => this.removeInitScript(profile, id),
      cookies: (query = {}) => this.cookies(profile, checked('cookiesQuery', query), false),
      setCookies: (request) => this.setCookies(profile, checked('setCookies', request), signal),
      clearCookies: (query = {}) => this.clearCookies(profile, checked('clearCookies', query), signal),
      storage: (query = {}) => this.storage(profile, checked('storageQuery', query), signal),
      setStorage: (request) => this.setStorage(profile, checked('setStorage', request), signal),
      clearStorage: (query = {}) => this.clearStorage(profile, checked('clearStorage', query), signal),
      storageState: (query = {}) => this.storageState(profile, { indexedDB: query.indexedDB }, false, signal),
      setStorageState: (request) => this.setStorageState(profile, checked('setStorageState', request), signal),
    };
  }
}

function withoutValue(cookie: Cookie): Cookie {
  return { ...cookie, value: '' };
}
