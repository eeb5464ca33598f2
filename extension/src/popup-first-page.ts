import { isBlankUrl } from './blank-navigation';

/**
 * A popup a shared tab opens (window.open, target=_blank) is shared once its
 * first page has committed, not as soon as Chrome creates its tab. Attached
 * during that first navigation, the debugger can miss the commit's
 * `Page.frameNavigated` when the page lands in another site's renderer
 * process (seen here under load: a popup from 127.0.0.1 to localhost), and
 * Playwright, which reports a popup only after its first real navigation,
 * then never shows it to its client. The first request leaves before any
 * extension may attach in either case; the URL policy judges the page that
 * committed (driver/network/url-policy-guard.ts).
 */

/** Past this, the popup is shared as it is: a first navigation that never ends must not hide it for good. */
const FIRST_PAGE_TIMEOUT_MS = 5_000;

export interface PopupFirstPages {
  /** Resolves when the tab's first page committed or failed, the tab closed, or the wait ran out. */
  settled(tabId: number, url: string): Promise<void>;
}

/** Registers its listeners at once: called at the worker's top level, like every listener there. */
export function watchPopupFirstPages(): PopupFirstPages {
  const waiting = new Map<number, () => void>();
  const done = (tabId: number) => {
    waiting.get(tabId)?.();
    waiting.delete(tabId);
  };
  chrome.webNavigation.onCommitted.addListener(({ tabId, frameId }) => frameId === 0 && done(tabId));
  chrome.webNavigation.onErrorOccurred.addListener(({ tabId, frameId }) => frameId === 0 && done(tabId));
  chrome.tabs.onRemoved.addListener((tabId) => done(tabId));
  return {
    settled(tabId, url) {
      // Nothing to wait for: a blank popup is there already, and its opener writes into it.
      if (!url || isBlankUrl(url)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(tabId), FIRST_PAGE_TIMEOUT_MS);
        waiting.set(tabId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
