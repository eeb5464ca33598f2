import { z } from 'zod';
import { ProfileSchema, ProfileSummarySchema } from './responses.js';
import { schemas } from './schemas.js';
import type { RouteSpec } from './route-spec.js';

/** Profiles: the list, a new one, deleting and resetting one; spread into api/routes.ts's table and bound by server/profile-routes.ts. */

const profileOnly = schemas.profileQuery;

export const PROFILE_ROUTES = {
  'GET /profiles': {
    summary: 'Every profile, and whether its browser runs',
    tag: 'Profiles',
    answer: z.object({ profiles: z.array(ProfileSummarySchema), defaultProfile: z.string() }),
  },
  'POST /profiles/create': {
    summary: 'A new managed profile, or a remote one (cdpUrl)',
    tag: 'Profiles',
    body: schemas.createProfile,
    answer: ProfileSchema,
    status: 201,
    errors: [409],
  },
  'DELETE /profiles/:name': {
    summary: "Delete a profile (its browser stops; a managed one's data dir goes)",
    tag: 'Profiles',
    params: { name: 'The profile' },
    answer: z.object({ deleted: ProfileSchema }),
    errors: [404, 409],
  },
  'POST /reset-profile': {
    summary: "Stop a managed profile's browser, and any process still holding its data dir",
    tag: 'Profiles',
    query: profileOnly,
    answer: z.object({ profile: z.string(), killed: z.array(z.number().int()) }),
    errors: [404, 409],
  },
} satisfies Record<string, RouteSpec>;
