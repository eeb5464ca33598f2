/**
 * `Page.navigate` to about:blank, done so that the blank page is the tab's
 * own. A blank document takes the origin of whoever started its navigation,
 * and through chrome.debugger that is this extension: the tab would hold a
 * page of the extension's origin, which clawd-browser never shares (the
 * tab is suspended at once, and the agent loses it). The page is asked to
 * go there itself instead, so the blank page has the origin the tab had,
 * and the answer is the one Chrome gives for a navigation: the main frame's
 * id and the new document's loader id, known from its `frameNavigated`.
 */

const BLANK = /^about:blank([?#].*)?$/i;
const COMMIT_TIMEOUT_MS = 10_000;

/** Whether a URL is a blank page (any query or fragment). */
export function isBlankUrl(url: string): boolean {
  return BLANK.test(url);
}

/** Whether this command is a tab's top-level navigation to a blank page. */
export function isBlankNavigation(method: string, params: object | undefined, sessionId: string | undefined): boolean {
  const url = (params as { url?: unknown } | undefined)?.url;
  return method === 'Page.navigate' && sessionId === undefined && typeof url === 'string' && isBlankUrl(url);
}

export async function navigateToBlank(tabId: number, url: string): Promise<{ frameId: string; loaderId: string }> {
  const target = { tabId };
  const { frameTree } = (await chrome.debugger.sendCommand(target, 'Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const frameId = frameTree.frame.id;
  let listener: ((source: chrome.debugger.Debuggee, method: string, params?: object) => void) | undefined;
  const committed = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the tab did not reach ${url} within ${COMMIT_TIMEOUT_MS / 1000} s`)), COMMIT_TIMEOUT_MS);
    listener = (source, method, params) => {
      const frame = (params as { frame?: { id: string; url: string; loaderId: string; parentId?: string } } | undefined)?.frame;
      if (source.tabId !== tabId || method !== 'Page.frameNavigated' || !frame || frame.parentId || !isBlankUrl(frame.url)) return;
      clearTimeout(timer);
      resolve(frame.loaderId);
    };
    chrome.debugger.onEvent.addListener(listener);
  });
  try {
    // frameNavigated comes only with the Page domain on (a client that drives the tab has it on already;
    // otherwise it stays on, and the relay passes Page events only to sessions that enabled it).
    await chrome.debugger.sendCommand(target, 'Page.enable');
    const answer = (await chrome.debugger.sendCommand(target, 'Runtime.evaluate', { expression: `location.href = ${JSON.stringify(url)}` })) as {
      exceptionDetails?: { text?: string };
    };
    if (answer.exceptionDetails) throw new Error(`the page did not go to ${url}: ${answer.exceptionDetails.text ?? 'it threw'}`);
    return { frameId, loaderId: await committed };
  } finally {
    chrome.debugger.onEvent.removeListener(listener!);
  }
}
