import type { ChromeStatus } from '../api/chrome-schemas.js';
import { ASKING_MESSAGE, describeProblem, whyNotDebuggable } from '../attach/attach-problems.js';
import { portAnswers } from '../attach/devtools-socket.js';
import { browserHomes, describeHome, type HomeReport } from '../attach/user-data.js';
import type { Config } from '../config/config.js';
import type { Platform } from '../config/platform.js';

/**
 * Doctor's check of the `chrome` profile: whether a browser with remote
 * debugging allowed runs (Chrome, Chromium, Edge, Brave in their default
 * folders, or config.json's chrome.userDataDir), for which profiles, whether
 * clawd-browser is attached or waits for the person's answer, and the one
 * thing to do for each failure. It never connects to the browser itself: a
 * connection would make Chrome ask the person. A problem is a warning, since
 * this way in is optional, unless config.json names the folder to use.
 */

export interface ChromeCheck {
  name: 'chrome';
  verdict: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

export async function checkChrome(config: Config, server: ChromeStatus | undefined, platform: Platform, home: string): Promise<ChromeCheck[]> {
  const configured = config.chrome.userDataDir;
  const ok = (detail: string): ChromeCheck => ({ name: 'chrome', verdict: 'ok', detail });
  const problem = (detail: string, fix: string): ChromeCheck => ({ name: 'chrome', verdict: configured ? 'fail' : 'warn', detail, fix });
  if (server?.state === 'attached') {
    const browser = server.browser!;
    const checks = [ok(`attached to ${browser.product ?? browser.title} (${browser.userDataDir}${opened(browser.profiles)}); ${server.lentTabs} tab(s) lent`)];
    if (server.otherDebuggers)
      checks.push({
        name: 'chrome',
        verdict: 'warn',
        detail: `another DevTools client (another tool) is attached to ${server.otherDebuggers} of your tabs`,
        fix: "close that tool if it is not yours: two clients driving one browser get in each other's way",
      });
    return checks;
  }
  if (server?.state === 'asking')
    return [{ name: 'chrome', verdict: 'warn', detail: ASKING_MESSAGE, fix: "choose Allow in Chrome's prompt; `clawd-browser chrome` says when it is done" }];
  // The server's own attempt says what the person answered, or that the browser went away.
  if (server?.state === 'failed' && server.problem && ['refused', 'unanswered', 'lost'].includes(server.problem.kind))
    return [problem(server.problem.message, server.problem.fix)];

  const reports = browserHomes(configured, platform, home).map((each) => describeHome(each, platform));
  const live = await debuggable(reports);
  if (live)
    return [
      ok(
        `${live.title} allows remote debugging (port ${live.activePort!.port}, ${live.userDataDir}${live.version ? `, version ${live.version}` : ''}${opened(openProfiles(live))}): \`clawd-browser chrome attach\` attaches, and Chrome asks you to allow it`,
      ),
    ];
  const stale = reports.find((report) => report.activePort);
  if (stale) {
    const { message, fix } = describeProblem('stale', { port: stale.activePort!.port });
    return [problem(`${stale.title}: ${message}`, fix)];
  }
  // The configured folder is not the one: a browser allows remote debugging in its default folder instead.
  if (configured) {
    const elsewhere = await debuggable(browserHomes(undefined, platform, home).map((each) => describeHome(each, platform)));
    if (elsewhere)
      return [
        problem(
          `config.json's chrome.userDataDir (${configured}) is not where your browser allows remote debugging: ${elsewhere.title} does, in ${elsewhere.userDataDir}`,
          `set chrome.userDataDir to ${elsewhere.userDataDir}, or remove it`,
        ),
      ];
  }
  const { failure } = whyNotDebuggable(reports);
  return [problem(failure.reason, failure.fix)];
}

/** The first folder whose DevToolsActivePort names a port that answers. */
async function debuggable(reports: HomeReport[]): Promise<HomeReport | undefined> {
  for (const report of reports) if (report.activePort && (await portAnswers(report.activePort.port))) return report;
  return undefined;
}

function openProfiles(report: HomeReport): string[] {
  return report.profiles.filter((profile) => profile.open).map((profile) => profile.name);
}

function opened(profiles: string[]): string {
  return profiles.length ? `; profiles open: ${profiles.join(', ')}` : '';
}
