/**
 * What a CDP client of the extension profile may send to a shared tab (spec
 * §9, the consent boundary). chrome.debugger on a tab is nearly as strong as
 * the browser: some methods reach other sites' data (cookies, storage, service
 * workers of any origin), local files, or the browser's own state. So the
 * relay forwards an explicit allowlist, the domains Playwright and Puppeteer
 * use to drive a page, and answers everything else with an error.
 *
 * - `forward`: sent to the tab as is.
 * - `navigate`: forwarded after the URL gate (protocol/url-gate.ts).
 * - `cookies`: cookie and storage methods, rewritten or checked so they see
 *   and touch only the shared tabs' sites (cookie-scope.ts).
 * - `deny`: refused with a message saying why.
 */

export type MethodClass = 'forward' | 'navigate' | 'cookies' | 'upload' | 'deny';

/** Domains forwarded whole (less the exceptions below). */
export const FORWARDED_DOMAINS: ReadonlySet<string> = new Set([
  'Accessibility',
  'Animation',
  'Audits',
  'CSS',
  'Console',
  'DOM',
  'DOMDebugger',
  'DOMSnapshot',
  'Debugger',
  'DeviceOrientation',
  'Emulation',
  'EventBreakpoints',
  'Fetch',
  'HeapProfiler',
  'IO',
  'Input',
  'Inspector',
  'LayerTree',
  'Log',
  'Media',
  'Memory',
  'Network',
  'Overlay',
  'Page',
  'Performance',
  'PerformanceTimeline',
  'Profiler',
  'Runtime',
  'Schema',
  'Security',
  'WebAudio',
  'WebAuthn',
  // The tools the shared page offers agents (where the person's Chrome has WebMCP).
  'WebMCP',
]);

/** Target methods a page session may use: auto-attaching its own frames and workers. */
const FORWARDED_TARGET_METHODS = new Set(['Target.setAutoAttach', 'Target.getTargetInfo', 'Target.detachFromTarget']);

/** Methods of forwarded domains that reach beyond the tab, with the reason given to the client. */
export const DENIED_METHODS: ReadonlyMap<string, string> = new Map([
  ['Page.setDownloadBehavior', 'it writes into folders of this machine'],
  ['Page.getCookies', 'cookies are read with Network.getCookies, scoped to the shared sites'],
  ['Page.deleteCookie', 'cookies are deleted with Network.deleteCookies, scoped to the shared sites'],
  ['Network.loadNetworkResource', "it loads any URL (local files included) with the browser's credentials"],
  ['Network.clearBrowserCache', 'it clears the cache of every site in the browser'],
  ['Network.setCookieControls', 'it changes cookie settings for the whole browser'],
  // The deprecated interception, beside Fetch's (which the relay shares: own-origins.ts): it could send a request anywhere.
  ['Network.setRequestInterception', 'it is deprecated: use the Fetch domain'],
  ['Network.continueInterceptedRequest', 'it is deprecated: use the Fetch domain'],
]);

/** Cookie and storage methods, scoped to the shared tabs' sites. */
export const COOKIE_METHODS: ReadonlySet<string> = new Set([
  'Network.getAllCookies',
  'Network.getCookies',
  'Network.setCookie',
  'Network.setCookies',
  'Network.deleteCookies',
  'Network.clearBrowserCookies',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
  'Storage.clearDataForOrigin',
]);

const NAVIGATION_METHODS = new Set(['Page.navigate']);

/**
 * chrome.debugger refuses these to extensions; the relay does them itself:
 * DOM.setFileInputFiles with the files' contents, read on this machine under
 * the upload-folder rule (driver/acts/uploads.ts), set through the page.
 */
const EMULATED_METHODS = new Set(['DOM.setFileInputFiles']);

export function classifyPageMethod(method: string): MethodClass {
  if (EMULATED_METHODS.has(method)) return 'upload';
  if (COOKIE_METHODS.has(method)) return 'cookies';
  if (NAVIGATION_METHODS.has(method)) return 'navigate';
  if (DENIED_METHODS.has(method)) return 'deny';
  if (FORWARDED_TARGET_METHODS.has(method)) return 'forward';
  const domain = method.slice(0, method.indexOf('.'));
  return FORWARDED_DOMAINS.has(domain) ? 'forward' : 'deny';
}

/** The message a refused method gets. */
export function deniedMessage(method: string): string {
  const why = DENIED_METHODS.get(method);
  if (why) return `'${method}' is not forwarded to shared tabs: ${why}`;
  return `'${method}' is not forwarded to shared tabs: the clawd-browser relay forwards only the domains a page needs (see the allowlist in docs/security.md)`;
}

const REPEATABLE_METHODS: ReadonlySet<string> = new Set(['Page.createIsolatedWorld', 'Runtime.runIfWaitingForDebugger']);

/**
 * Commands that run twice with the effect of once: Chrome keeps one isolated
 * world per name for a debugger session (a second createIsolatedWorld
 * answers the same context id and reports nothing), enabling a domain that
 * is on does nothing, and a target that runs is not resumed again.
 *
 * Whether a command in flight when the extension's worker stopped reached
 * Chrome is unknown. These are sent again once the worker is back, rather
 * than failed: clients send several of them without reading the answer
 * (Playwright's utility world, a worker's Runtime.enable), so a failure
 * would leave them waiting for a context that never comes.
 */
export function isRepeatable(method: string): boolean {
  return REPEATABLE_METHODS.has(method) || method.endsWith('.enable');
}
