/**
 * The one URL gate (spec §9): every way a tab is opened or navigated, on every
 * profile, asks it first: `Target.createTarget`, `Page.navigate`, `/json/new`,
 * `POST /tabs/open` and `POST /navigate`. By default a tab may show `http:`,
 * `https:` and `about:blank`, nothing else: a `file:` URL reads this machine's
 * files, `chrome-extension:` pages run with an extension's powers, `chrome:`
 * and `devtools:` pages reach the browser itself, and top-level `javascript:`
 * and `data:` URLs run whatever the caller wrote in the tab's origin.
 *
 * config.json's `allowedUrlSchemes` (e.g. `["file:"]`) opens more schemes on
 * managed profiles. The extension keeps a floor of its own that no setting
 * lowers (see `shareableUrlProblem`), because it runs in the user's browser.
 *
 * The extension bundles this file too: no Node imports.
 */

export const DEFAULT_URL_SCHEMES: readonly string[] = ['http:', 'https:'];

/** Normalises "file", "FILE:" and "file:" to "file:". */
export function normaliseScheme(scheme: string): string {
  const lower = scheme.trim().toLowerCase();
  return lower.endsWith(':') ? lower : `${lower}:`;
}

function isBlank(url: URL): boolean {
  return url.protocol === 'about:' && url.pathname === 'blank';
}

/**
 * Why a tab may not be opened at or navigated to `raw`, or undefined when it
 * may. `extraSchemes` are the config's `allowedUrlSchemes`.
 */
export function navigationProblem(raw: string, extraSchemes: readonly string[] = []): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not an absolute URL`;
  }
  if (isBlank(url)) return undefined;
  const allowed = [...DEFAULT_URL_SCHEMES, ...extraSchemes.map(normaliseScheme)];
  if (allowed.includes(url.protocol)) return undefined;
  return `${url.protocol} URLs are refused: tabs may show ${allowed.join(', ')} and about:blank (config.json's allowedUrlSchemes adds schemes on managed profiles)`;
}

/** Schemes the extension never shares, attaches to or stays attached to, whatever the config says. */
const NEVER_SHARED_SCHEMES = new Set(['chrome-extension:', 'chrome:', 'chrome-untrusted:', 'devtools:', 'file:', 'edge:', 'brave:', 'view-source:']);

/**
 * The extension's floor: why a tab showing `raw` must not be shared (or stay
 * shared), or undefined when it may. Its own pages would hand a client the
 * extension's powers (every tab, the debugger, its storage); other
 * extensions', the browser's own pages and local files are not the user's
 * to lend by a click on a web page.
 */
export function shareableUrlProblem(raw: string | undefined): string | undefined {
  // A tab still loading its first page has no URL yet; what it loads is checked when it commits.
  if (!raw) return undefined;
  // The extension asks before every command, for the few URLs its tabs show: parsing one each
  // time was 8% of its worker's time under load (bench: BENCH_PROFILE_WORKER).
  if (shareableAnswers.has(raw)) return shareableAnswers.get(raw);
  const problem = schemeProblem(raw);
  if (shareableAnswers.size >= SHAREABLE_ANSWERS_KEPT) shareableAnswers.delete(shareableAnswers.keys().next().value!);
  shareableAnswers.set(raw, problem);
  return problem;
}

const SHAREABLE_ANSWERS_KEPT = 64;
const shareableAnswers = new Map<string, string | undefined>();
/** The ports of the clawd-browser the extension is paired with (its relay's, and the control API's below it). */
let ownPorts: readonly number[] = [];

/**
 * The extension's relay is at `relayUrl`: from now on, that clawd-browser's
 * own pages are not shared either (clawdOwnPage).
 */
export function pairedWith(relayUrl: string | undefined): void {
  const port = relayUrl && URL.canParse(relayUrl) ? Number(new URL(relayUrl).port || 80) : undefined;
  ownPorts = port ? [port - 1, port] : [];
}

/**
 * Why a tab whose page is `raw` must not be shared (or stay shared): the
 * floor above, and the paired clawd-browser's own pages. (A frame of a
 * shared page may show those: it carries no cookie there, since they refuse
 * to be framed.)
 */
export function tabUrlProblem(raw: string | undefined): string | undefined {
  return lendableUrlProblem(raw, ownPorts);
}

/**
 * Why a tab whose page is `raw` must not be lent (or stay lent) by a
 * clawd-browser listening on `ports`: the floor above, and its own pages.
 * The extension asks through tabUrlProblem; the server, which attaches to
 * a person's Chrome itself, asks with its own ports.
 */
export function lendableUrlProblem(raw: string | undefined, ports: readonly number[]): string | undefined {
  return shareableUrlProblem(raw) ?? (raw && clawdOwnPage(raw, ports) ? CLAWD_OWN_PAGE : undefined);
}

export const CLAWD_OWN_PAGE = "clawd-browser's own pages (its console, hand-off pages and API) are never lent: they carry its own logins";

const LOOPBACK_NAME = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0|\[::\])$/;

/**
 * Whether `raw` is a page of clawd-browser itself: a loopback host at its
 * control API's or relay's port (the relay is always one above the control
 * API). Such a tab holds clawd's own login cookies (the console's, a
 * hand-off link's): lent to a client, or opened for one, it would hand over
 * what those open. Cookies ignore ports, so the ports are what tells.
 */
export function clawdOwnPage(raw: string, ports: readonly number[]): boolean {
  if (!ports.length) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return ports.includes(port) && LOOPBACK_NAME.test(url.hostname.toLowerCase());
}

function schemeProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined; // an opaque origin ("null") or no URL at all: no scheme to refuse
  }
  if (NEVER_SHARED_SCHEMES.has(url.protocol))
    return `clawd-browser does not share ${url.protocol} pages (extension pages, browser pages and local files stay private)`;
  return undefined;
}
