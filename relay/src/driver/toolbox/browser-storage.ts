import type { BrowserContext, Frame } from 'playwright-core';
import type { Cookie, StorageState } from '../../api/toolbox-responses.js';
import { NotFoundError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * A profile's storage: cookies of its browser context, a tab's
 * localStorage and sessionStorage per origin, and the whole as Playwright's
 * `storageState` (IndexedDB included when asked). On the extension profile
 * the context is the relay's, which shows and touches the shared tabs'
 * sites only (bridge/cookie-scope.ts).
 */

export interface CookieFilter {
  url?: string;
  /** This domain and its subdomains. */
  domain?: string;
  name?: string;
  path?: string;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A cookie's domain under `domain` (leading dot or not). */
const underDomain = (domain: string) => new RegExp(`(^|\\.)${escapeRegex(domain.replace(/^\./, '').toLowerCase())}$`);

export async function listCookies(context: BrowserContext, filter: CookieFilter): Promise<Cookie[]> {
  const cookies = await context.cookies(filter.url ? [filter.url] : []);
  const domain = filter.domain ? underDomain(filter.domain) : undefined;
  return cookies.filter(
    (cookie) =>
      (!domain || domain.test(cookie.domain)) &&
      (filter.name === undefined || cookie.name === filter.name) &&
      (filter.path === undefined || cookie.path === filter.path),
  );
}

export async function setCookies(context: BrowserContext, cookies: Array<Partial<Cookie> & { name: string; value: string; url?: string }>): Promise<number> {
  await context.addCookies(cookies.map((cookie) => (cookie.url ? cookie : { ...cookie, path: cookie.path ?? '/' })));
  return cookies.length;
}

/** Clears the cookies the filter names (every cookie without one); answers how many went. */
export async function clearCookies(context: BrowserContext, filter: CookieFilter): Promise<number> {
  const before = (await listCookies(context, filter)).length;
  await context.clearCookies({
    ...(filter.name !== undefined ? { name: filter.name } : {}),
    ...(filter.domain !== undefined ? { domain: underDomain(filter.domain) } : {}),
    ...(filter.path !== undefined ? { path: filter.path } : {}),
  });
  return before;
}

export type StorageKind = 'local' | 'session';

/** The tab's frame showing `origin` (the main frame when none is named): 404 when it shows none. */
function frameOf(tab: DriverTab, origin: string | undefined): { frame: Frame; origin: string } {
  const originOf = (frame: Frame) => {
    try {
      return new URL(frame.url()).origin;
    } catch {
      return 'null';
    }
  };
  const main = tab.page.mainFrame();
  const frame = origin === undefined ? main : tab.page.frames().find((candidate) => originOf(candidate) === origin);
  if (!frame || originOf(frame) === 'null') {
    throw new NotFoundError(
      `${origin ? `No frame of the tab shows ${origin}` : `The tab shows no web origin (${main.url() || 'nothing'})`}: storage is read in a page of its origin, so open one there first`,
    );
  }
  return { frame, origin: originOf(frame) };
}

export async function storageItems(tab: DriverTab, kind: StorageKind, origin?: string): Promise<{ origin: string; items: Record<string, string> }> {
  const { frame, origin: shown } = frameOf(tab, origin);
  const items = await frame.evaluate((kind) => {
    const storage = kind === 'local' ? localStorage : sessionStorage;
    const all: Record<string, string> = {};
    for (let index = 0; index < storage.length; index++) {
      const key = storage.key(index)!;
      all[key] = storage.getItem(key) ?? '';
    }
    return all;
  }, kind);
  return { origin: shown, items };
}

export async function setStorageItems(
  tab: DriverTab,
  kind: StorageKind,
  origin: string | undefined,
  items: Record<string, string>,
): Promise<{ origin: string; set: number }> {
  const { frame, origin: shown } = frameOf(tab, origin);
  await frame.evaluate(
    ({ kind, items }) => {
      const storage = kind === 'local' ? localStorage : sessionStorage;
      for (const [key, value] of Object.entries(items)) storage.setItem(key, value);
    },
    { kind, items },
  );
  return { origin: shown, set: Object.keys(items).length };
}

/** Removes one key, or every key; answers how many went. */
export async function clearStorageItems(
  tab: DriverTab,
  kind: StorageKind,
  origin: string | undefined,
  key?: string,
): Promise<{ origin: string; cleared: number }> {
  const { frame, origin: shown } = frameOf(tab, origin);
  const cleared = await frame.evaluate(
    ({ kind, key }) => {
      const storage = kind === 'local' ? localStorage : sessionStorage;
      if (key === undefined) {
        const count = storage.length;
        storage.clear();
        return count;
      }
      const had = storage.getItem(key) !== null;
      storage.removeItem(key);
      return had ? 1 : 0;
    },
    { kind, key },
  );
  return { origin: shown, cleared };
}

export async function exportStorageState(context: BrowserContext, indexedDB: boolean): Promise<StorageState> {
  return (await context.storageState({ indexedDB })) as StorageState;
}

/** Replaces the context's cookies, localStorage and IndexedDB with the state's (Playwright's setStorageState). */
export async function importStorageState(context: BrowserContext, state: StorageState): Promise<{ cookies: number; origins: number }> {
  // Playwright restores origins in a page of its own and closes it; a browser left with no page
  // at all then quits (its session cookies with it), so a blank tab stays open through it.
  if (!context.pages().length) await context.newPage();
  await context.setStorageState(state as Parameters<BrowserContext['setStorageState']>[0]);
  return { cookies: state.cookies.length, origins: state.origins.length };
}
