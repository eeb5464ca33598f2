import { z } from 'zod';
import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import { schemas } from './schemas.js';
import {
  CookieChangeSchema,
  CookieListSchema,
  EmulationStateSchema,
  InitScriptInfoSchema,
  InitScriptListSchema,
  RouteInfoSchema,
  RouteListSchema,
  StorageChangeSchema,
  StorageImportSchema,
  StorageItemsSchema,
  StorageStateAnswerSchema,
} from './toolbox-responses.js';

/** The toolbox's routes (spec §16), spread into api/routes.ts's table. */

const profileOnly = schemas.profileQuery;
const tag = 'Toolbox' as const;

export const TOOLBOX_ROUTES = {
  'GET /emulation': {
    summary: "The emulation in effect on a tab: the profile's defaults, the tab's own, and both together",
    tag,
    query: schemas.emulationQuery,
    answer: EmulationStateSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /emulation': {
    summary:
      'Emulate a device, a place, a time, a language, a colour scheme, network and CPU conditions, headers or HTTP credentials, on a tab or every tab of the profile',
    tag,
    query: profileOnly,
    body: schemas.emulation,
    answer: EmulationStateSchema,
    errors: BROWSER_ERRORS,
  },
  'DELETE /emulation': {
    summary: "Stop emulating (a tab's own settings, or the profile's defaults)",
    tag,
    query: schemas.emulationReset,
    answer: EmulationStateSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /routes': { summary: 'The network routes of the profile and its tabs', tag, query: profileOnly, answer: RouteListSchema, errors: [404] },
  'POST /routes': {
    summary: 'Fulfil, abort or change requests matching a pattern (the URL policy is judged first)',
    tag,
    query: profileOnly,
    body: schemas.route,
    answer: RouteInfoSchema,
    status: 201,
    errors: [403, ...BROWSER_ERRORS],
  },
  'DELETE /routes/:id': {
    summary: 'Remove a network route',
    tag,
    query: profileOnly,
    params: { id: "The route's id (r1, r2, …)" },
    answer: z.object({ removed: RouteInfoSchema }),
    errors: [404],
  },
  'GET /init-scripts': { summary: 'The init scripts of the profile and its tabs', tag, query: profileOnly, answer: InitScriptListSchema, errors: [404] },
  'POST /init-scripts': {
    summary: "A script run before the page's own in every document, from the next navigation on",
    tag,
    query: profileOnly,
    body: schemas.initScript,
    answer: InitScriptInfoSchema,
    status: 201,
    errors: BROWSER_ERRORS,
  },
  'DELETE /init-scripts/:id': {
    summary: 'Remove an init script',
    tag,
    query: profileOnly,
    params: { id: "The script's id (s1, s2, …)" },
    answer: z.object({ removed: InitScriptInfoSchema }),
    errors: [404],
  },
  'GET /storage/cookies': {
    summary: "The browser's cookies (a URL's, a domain's, by name); values only to the token's holder",
    tag,
    query: schemas.cookiesQuery,
    answer: CookieListSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /storage/cookies': { summary: 'Set cookies', tag, query: profileOnly, body: schemas.setCookies, answer: CookieChangeSchema, errors: BROWSER_ERRORS },
  'DELETE /storage/cookies': {
    summary: 'Clear cookies (by name, domain, path; every cookie without a filter)',
    tag,
    query: schemas.clearCookies,
    answer: CookieChangeSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /storage/items': {
    summary: "A tab's localStorage or sessionStorage, for its page's origin or a frame's",
    tag,
    query: schemas.storageQuery,
    answer: StorageItemsSchema,
    errors: BROWSER_ERRORS,
  },
  'POST /storage/items': {
    summary: 'Set localStorage or sessionStorage items',
    tag,
    query: profileOnly,
    body: schemas.setStorage,
    answer: StorageChangeSchema,
    errors: BROWSER_ERRORS,
  },
  'DELETE /storage/items': {
    summary: 'Remove one item, or all, of localStorage or sessionStorage',
    tag,
    query: schemas.clearStorage,
    answer: StorageChangeSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /storage/state': {
    summary: "The browser's storage state in Playwright's format (cookies, localStorage, IndexedDB with indexedDB=true, and the passkeys it holds)",
    tag,
    query: schemas.storageStateQuery,
    answer: StorageStateAnswerSchema,
    errors: [403, ...BROWSER_ERRORS],
  },
  'POST /storage/state': {
    summary:
      "Replace the browser's cookies, localStorage and IndexedDB with a storage state in Playwright's format (its passkeys go to the browser's virtual authenticators)",
    tag,
    query: profileOnly,
    body: schemas.setStorageState,
    answer: StorageImportSchema,
    errors: [403, ...BROWSER_ERRORS],
  },
} satisfies Record<string, RouteSpec>;
