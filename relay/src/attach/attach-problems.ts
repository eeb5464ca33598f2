import { UnavailableError } from '../errors.js';
import { type HomeReport, majorVersion } from './user-data.js';

/**
 * Why clawd-browser is not attached to the person's Chrome, each with the one
 * thing to do about it: the same words in the API's answers, the CLI, the
 * picker and `clawd-browser doctor`.
 */

export const CHROME_MINIMUM_MAJOR = 144;
const INSPECT = 'chrome://inspect/#remote-debugging (edge:// in Edge, brave:// in Brave)';

export type AttachProblemKind = 'not-found' | 'not-running' | 'not-allowed' | 'too-old' | 'stale' | 'not-devtools' | 'refused' | 'unanswered' | 'lost';

interface Facts {
  port?: number;
  seconds?: number;
  detail?: string;
  version?: string;
  where?: string;
}

const PROBLEMS: Record<AttachProblemKind, (facts: Facts) => { message: string; fix: string }> = {
  'not-found': ({ where }) => ({
    message: `No Chrome, Chromium, Edge or Brave user data folder found${where ? ` (looked in ${where})` : ''}`,
    fix: 'install Chrome (144 or later), or set chrome.userDataDir in config.json to the folder your browser keeps its profiles in',
  }),
  'not-running': ({ where }) => ({
    message: `Your browser is not running${where ? ` (${where})` : ''}`,
    fix: `start it, then allow remote debugging at ${INSPECT}`,
  }),
  'not-allowed': ({ where }) => ({
    message: `Your browser runs${where ? ` (${where})` : ''}, but remote debugging is not allowed in it (it wrote no DevToolsActivePort)`,
    fix: `open ${INSPECT} and allow remote debugging, then attach again`,
  }),
  'too-old': ({ version }) => ({
    message: `Your browser is version ${version ?? 'unknown'}: allowing remote debugging from its inspect page needs version ${CHROME_MINIMUM_MAJOR} or later`,
    fix: `update it (chrome://settings/help), then allow remote debugging at ${INSPECT}`,
  }),
  stale: ({ port }) => ({
    message: `DevToolsActivePort names port ${port}, where nothing listens: it was left by a browser that has stopped, or remote debugging was turned off`,
    fix: `start your browser again (it writes a fresh DevToolsActivePort), or allow remote debugging again at ${INSPECT}`,
  }),
  'not-devtools': ({ port, detail }) => ({
    message:
      port === undefined
        ? `Your browser's DevToolsActivePort cannot be used: ${detail}`
        : `Port ${port}, which DevToolsActivePort names, is not your browser's DevTools (${detail}): the file is left from an earlier run, and another program holds the port now`,
    fix: 'restart your browser: it writes a fresh DevToolsActivePort',
  }),
  refused: ({ detail }) => ({
    message: `Chrome refused the connection${detail ? ` (${detail})` : ''}: its "Allow remote debugging?" prompt was declined, or its policy forbids remote debugging`,
    fix: "attach again (`clawd-browser chrome attach`) and choose Allow in Chrome's prompt",
  }),
  unanswered: ({ seconds }) => ({
    message: `Nobody answered Chrome's "Allow remote debugging?" prompt within ${seconds} s`,
    fix: 'attach again (`clawd-browser chrome attach`) and answer the prompt in Chrome',
  }),
  lost: ({ detail }) => ({
    message: `The connection to your browser ended${detail ? ` (${detail})` : ''}: it quit or restarted, and every lent tab was taken back`,
    fix: 'attach again once it runs (Chrome asks you again), and lend the tabs again in the picker',
  }),
};

/** A problem's words, for those (doctor) that report it without failing anything. */
export function describeProblem(kind: AttachProblemKind, facts: Facts = {}): { message: string; fix: string } {
  return PROBLEMS[kind](facts);
}

/** An attach that failed: a 503 whose details say which problem and what to do. */
export class AttachFailure extends UnavailableError {
  constructor(
    readonly kind: AttachProblemKind,
    /** What is wrong, without the fix. */
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`${reason}: ${fix}`, { attach: kind, fix });
  }

  static of(kind: AttachProblemKind, facts: Facts = {}): AttachFailure {
    const { message, fix } = PROBLEMS[kind](facts);
    return new AttachFailure(kind, message, fix);
  }
}

/** What every request for the `chrome` profile hears while Chrome asks the person. */
export const ASKING_MESSAGE =
  'Waiting for you to allow remote debugging in Chrome: answer its "Allow remote debugging?" prompt (nothing of your browser is reachable until you do)';

/**
 * Why no browser offers a DevTools port, from what their folders say
 * (nothing connected, nobody asked): no folder, nothing running, remote
 * debugging not allowed (or the browser too old to allow it), or a port
 * file that is not what Chrome writes. `home` is the folder it is about.
 */
export function whyNotDebuggable(reports: HomeReport[]): { failure: AttachFailure; home?: HomeReport } {
  const found = reports.filter((report) => report.exists);
  const where = (list: HomeReport[]) => list.map((report) => `${report.title}: ${report.userDataDir}`).join('; ');
  if (!found.length) return { failure: AttachFailure.of('not-found', { where: where(reports) }) };
  const running = found.filter((report) => report.running !== false);
  if (!running.length) return { failure: AttachFailure.of('not-running', { where: where(found) }), home: found[0] };
  const malformed = running.find((report) => report.activePortProblem);
  if (malformed) return { failure: AttachFailure.of('not-devtools', { detail: malformed.activePortProblem }), home: malformed };
  const old = running.find((report) => (majorVersion(report.version) ?? CHROME_MINIMUM_MAJOR) < CHROME_MINIMUM_MAJOR);
  if (old) return { failure: AttachFailure.of('too-old', { version: old.version }), home: old };
  return { failure: AttachFailure.of('not-allowed', { where: where(running) }), home: running[0] };
}
