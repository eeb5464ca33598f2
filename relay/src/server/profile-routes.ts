import { BadRequestError } from '../errors.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { ControlService } from '../service/control-service.js';
import type { RouteBinder } from './route-binder.js';

/** What the profile routes need: the profiles, the service's list and reset, and whether a URL is this server's own (a remote profile may not loop back). */
export interface ProfileParts {
  manager: Pick<ProfileManager, 'registry' | 'deleteProfile'>;
  service: Pick<ControlService, 'profiles' | 'resetProfile'>;
  pointsAtItself: (url: string) => boolean;
}

/** Profiles over HTTP (api/profile-routes.ts): the list, a new one, deleting one, and resetting a managed one. */
export function bindProfileRoutes(routes: RouteBinder, { manager, service, pointsAtItself }: ProfileParts): void {
  routes.json('GET /profiles', () => service.profiles());
  routes.json('POST /profiles/create', ({ body }) => {
    if (body.cdpUrl && pointsAtItself(body.cdpUrl))
      throw new BadRequestError(`cdpUrl ${JSON.stringify(body.cdpUrl)} points at clawd-browser itself: a remote profile must name another browser`);
    return manager.registry.create(body);
  });
  routes.json('DELETE /profiles/:name', async ({ params }) => ({ deleted: await manager.deleteProfile(params.name) }));
  routes.json('POST /reset-profile', ({ query }) => service.resetProfile(query.profile));
}
