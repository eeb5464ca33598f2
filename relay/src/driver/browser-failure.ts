import { ClawdError } from '../errors.js';

/**
 * What went wrong in the browser, read in one place from what Playwright and
 * CDP throw. They say it in words only (a class name at best, and the client
 * rebuilds only `TimeoutError` and `TargetClosedError` as their own kinds),
 * so every caller that must tell a closed page from a timeout, or a frame a
 * navigation replaced from a refused value, asks here rather than testing
 * the message itself: when Playwright rewords a failure, this file and its
 * test (tests/unit/browser-failure.test.ts) change, nothing else.
 *
 * Only the message's first line is read: Playwright appends its call log
 * ("Call log: - waiting for …"), whose lines name states along the way, not
 * the failure; the call log has readers of its own below (`actionBlocker`,
 * `inputSent`). A failure of ours (the ClawdError family) is no browser
 * failure: it was already said in our words.
 */
export type FailureKind =
  /** The page, its context or the browser closed or crashed under the call. */
  | 'target-gone'
  /** Playwright's own time for the call ran out. */
  | 'timeout'
  /** The frame or the element the call held is no longer in the document. */
  | 'detached'
  /** A navigation replaced the document (its execution context) the call ran in, or cut this navigation short. */
  | 'navigation-interrupted'
  /** The browser refused the address as no URL at all. */
  | 'invalid-url'
  /** Script source given to run did not compile, or was not a function. */
  | 'bad-script'
  /** A field refused the value `fill` gave it (a date or number field given text it cannot hold). */
  | 'value-refused'
  /** The target has no such CDP method or domain, or its debugger may not use it (an extension's). */
  | 'method-unavailable'
  /** A CDP domain the call needs was not enabled on this session (a new document forgets it). */
  | 'domain-disabled';

/** Each kind with what its messages say, in the order they are tried (a crash's message can also say "closed"). */
const MESSAGES: ReadonlyArray<readonly [FailureKind, RegExp]> = [
  // Playwright: "Target page, context or browser has been closed", "Target crashed", "Page crashed";
  // CDP and its clients: "Target closed", "Session closed", "Session already detached. Most likely the page has been closed.",
  // "Browser closed", "Browser has been closed", "browser has disconnected", a pipe's "Pipe has been closed".
  ['target-gone', /Target crashed|Page crashed|Target closed|has been closed|Browser closed|browser has disconnected|Session closed|Session already detached/i],
  ['timeout', /Timeout \d+ms exceeded/],
  // Playwright: "Frame was detached", "Frame has been detached.", "Element is not attached to the DOM",
  // "Node is detached from document", "Element is not connected"; CDP: "Could not find node with given id", "No node with given id found".
  [
    'detached',
    /Frame (?:was|has been) detached|Element is not attached to the DOM|Node is detached from document|Element is not connected|No node with given id found|Could not find node with given id/i,
  ],
  // Playwright: "Execution context was destroyed, most likely because of a navigation",
  // 'Navigation to "…" is interrupted by another navigation to "…"'; Chromium: net::ERR_ABORTED; CDP: "Cannot find context with specified id".
  ['navigation-interrupted', /Execution context was destroyed|is interrupted by another navigation|net::ERR_ABORTED|Cannot find context with specified id/i],
  // CDP's Page.navigate: "Cannot navigate to invalid URL".
  ['invalid-url', /Cannot navigate to invalid URL|invalid url\b/i],
  // V8 on source that does not compile, or a value called that is not a function.
  ['bad-script', /SyntaxError|is not a function/],
  // Playwright's fill: 'Cannot type text into input[type=number]', 'Input of type "…" cannot be filled', and in older
  // versions "Malformed value" for a date field given a date as a person writes it.
  ['value-refused', /Malformed value|Cannot type text into|cannot be filled/],
  // CDP: "'WebMCP.enable' wasn't found" (-32601), "Unknown method"; an extension's debugger: "Not allowed".
  ['method-unavailable', /wasn't found|method not found|Unknown method|not allowed/i],
  // CDP, e.g. WebAuthn: "The Virtual Authenticator Environment has not been enabled for this session".
  ['domain-disabled', /has not been enabled/i],
];

/** What kind of browser failure `error` is, or undefined for anything else (ours included). */
export function failureKind(error: unknown): FailureKind | undefined {
  if (error instanceof ClawdError) return undefined;
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'TimeoutError') return 'timeout';
  if (name === 'TargetClosedError') return 'target-gone';
  const head = firstLine(typeof message === 'string' ? message : String(error));
  return MESSAGES.find(([, says]) => says.test(head))?.[0];
}

/** The message's first line: what Playwright says went wrong, without its call log (which can hold typed text). */
export function firstLine(message: string): string {
  return message.split('\n')[0];
}

/**
 * What kept an element from being acted on, as the call log of Playwright's
 * actionability checks says when its time ran out: covered by another element
 * (named as Playwright previews it), disabled, invisible, moving, or outside
 * the page.
 */
export type ActionBlocker = { kind: 'covered'; by: string } | { kind: 'not-enabled' | 'not-visible' | 'not-stable' | 'outside-viewport' };

/** Each state the log can name, in the order a reader is told of them: what a person would notice first. */
const BLOCKERS: ReadonlyArray<readonly [Exclude<ActionBlocker['kind'], 'covered'>, RegExp]> = [
  ['not-enabled', /element is not enabled/],
  ['not-visible', /element is not visible/],
  ['not-stable', /element is not stable/],
  ['outside-viewport', /element is outside of the viewport/],
];

/** Every blocker the call log names (over all of Playwright's retries), the one to tell first; empty when it names none. */
export function actionBlockers(error: unknown): ActionBlocker[] {
  const log = callLog(error);
  // "  - <div class="overlay">…</div> intercepts pointer events", or "… from <div …> subtree intercepts pointer events": the last one said.
  const covered = [...log.matchAll(/^\s*-\s*(.+?) (?:from .+? subtree )?intercepts pointer events$/gm)].pop();
  const lines = log.split('\n');
  return [
    ...(covered ? [{ kind: 'covered' as const, by: covered[1] }] : []),
    ...BLOCKERS.filter(([, says]) => lines.some((line) => says.test(line))).map(([kind]) => ({ kind })),
  ];
}

/**
 * What the call log says of the input since Playwright's last retry: not
 * sent, on its way ("performing click action"), or done ("click action
 * done"), so an action that timed out after its input went out is not
 * repeated.
 */
export function inputSent(error: unknown): 'no' | 'sending' | 'done' {
  const log = callLog(error);
  const retried = log.lastIndexOf('retrying ');
  if (log.lastIndexOf(' action done') > retried) return 'done';
  if (log.lastIndexOf('performing ') > retried) return 'sending';
  return 'no';
}

/** The whole message, without the terminal colour codes Playwright dims its call log with. */
function callLog(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return (typeof message === 'string' ? message : String(error)).replace(/\u001b\[\d+m/g, '');
}
