/**
 * A click on the toolbar button is a person's consent, so none may be lost.
 * `action.onClicked` reaches the worker only once its script has registered
 * the listener: on the extension's first start (just installed, or loaded
 * unpacked) a click in the first moments found no listener, and Chrome
 * dropped it without a trace. The manifest therefore names a popup
 * (first-click.html), which Chrome opens whatever the worker's state; it
 * hands the click to the worker, and the worker turns the popup off here as
 * soon as it listens itself, so every later click is an ordinary onClicked.
 */

/** The name of the port the popup hands a click over on. */
export const TOOLBAR_CLICK_PORT = 'toolbar-click';

export function watchToolbarClicks(onClick: (tabId: number) => void): void {
  chrome.action.onClicked.addListener((tab) => {
    if (tab.id !== undefined) onClick(tab.id);
  });
  chrome.runtime.onConnect.addListener((port) => {
    // Only the extension's own pages can connect (no externally_connectable): the popup.
    if (port.name !== TOOLBAR_CLICK_PORT) return;
    port.onMessage.addListener((message: { tabId?: unknown }) => {
      if (typeof message.tabId === 'number') onClick(message.tabId);
      port.postMessage({ received: true });
    });
  });
  void chrome.action.setPopup({ popup: '' });
}
