import type { BrowserApi } from '../api/browser-api.js';
import { BrowserClient } from '../client/browser-client.js';
import { type FleetCarrier, sessionOfProfile } from './fleet-carrier.js';

/**
 * MCP over `/mcp` with the token, in a fleet (spec §18): a tool that names a
 * session another server holds acts there, through that server's control
 * API (the typed client, with the fleet's token), as the HTTP routes are
 * carried. Every other profile is this server's, as without a fleet. (MCP
 * with a session's own key is carried whole, before it gets here.)
 */
export function fleetAwareApi(api: BrowserApi, carrier: FleetCarrier, token: string, holds: (id: string) => boolean, agent?: string): BrowserApi {
  const forProfile = (profile: string): BrowserApi => {
    const id = sessionOfProfile(profile);
    if (id === undefined || holds(id)) return api.withProfile(profile);
    let target: Promise<BrowserApi> | undefined;
    const where = () =>
      (target ??= carrier
        .locate(id)
        .then((place) => ('here' in place ? api.withProfile(profile) : new BrowserClient({ baseUrl: place.carry.controlUrl, token, profile, agent }))));
    // Every method but withProfile answers a promise: each waits for where the session is, then asks there
    // (the toolbox's and vision's methods too, one level down).
    const methods = (part?: 'toolbox' | 'vision' | 'pageTools' | 'teach'): object =>
      new Proxy(
        {},
        {
          get: (_target, name) => {
            if (name === 'then') return undefined; // not a promise itself
            if (part === undefined && (name === 'toolbox' || name === 'vision' || name === 'pageTools' || name === 'teach')) return methods(name);
            if (part === undefined && name === 'withProfile') return forProfile;
            return (...args: unknown[]) =>
              where().then((there) => ((part ? there[part] : there) as unknown as Record<string | symbol, (...rest: unknown[]) => unknown>)[name](...args));
          },
        },
      );
    return methods() as BrowserApi;
  };
  return new Proxy(api, { get: (target, name, receiver) => (name === 'withProfile' ? forProfile : Reflect.get(target, name, receiver)) });
}
