import type { RequestOf, schemas } from './schemas.js';
import type { Cookie, EmulationState, InitScriptInfo, RouteInfo, StorageState } from './toolbox-responses.js';

/** What a caller sends, the profile being the API's own. */
type Request<K extends keyof typeof schemas> = Omit<RequestOf<K>, 'profile'>;

export interface StorageItems {
  targetId: string;
  origin: string;
  kind: 'local' | 'session';
  items: Record<string, string>;
}
export interface StorageChange {
  targetId: string;
  origin: string;
  kind: 'local' | 'session';
  set?: number;
  cleared?: number;
}

/**
 * The toolbox of one profile as an agent's tools use it (spec §16):
 * `BrowserApi.toolbox`. The typed client implements it over HTTP, the
 * control service in process; the MCP tools of the emulation, routes and
 * storage groups call it.
 */
export interface ToolboxApi {
  emulation(query?: Request<'emulationQuery'>): Promise<EmulationState>;
  emulate(request: Request<'emulation'>): Promise<EmulationState>;
  resetEmulation(query?: Request<'emulationReset'>): Promise<EmulationState>;
  routes(): Promise<{ routes: RouteInfo[] }>;
  addRoute(request: Request<'route'>): Promise<RouteInfo>;
  removeRoute(id: string): Promise<{ removed: RouteInfo }>;
  initScripts(): Promise<{ scripts: InitScriptInfo[] }>;
  addInitScript(request: Request<'initScript'>): Promise<InitScriptInfo>;
  removeInitScript(id: string): Promise<{ removed: InitScriptInfo }>;
  cookies(query?: Request<'cookiesQuery'>): Promise<{ cookies: Cookie[]; valuesHidden?: boolean }>;
  setCookies(request: Request<'setCookies'>): Promise<{ set?: number }>;
  clearCookies(query?: Request<'clearCookies'>): Promise<{ cleared?: number }>;
  storage(query?: Request<'storageQuery'>): Promise<StorageItems>;
  setStorage(request: Request<'setStorage'>): Promise<StorageChange>;
  clearStorage(query?: Request<'clearStorage'>): Promise<StorageChange>;
  storageState(query?: { indexedDB?: boolean }): Promise<StorageState & { valuesHidden?: boolean }>;
  setStorageState(request: Request<'setStorageState'>): Promise<{ cookies: number; origins: number }>;
}
