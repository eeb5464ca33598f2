import { TOOLBAR_CLICK_PORT } from './toolbar-click';

/**
 * The toolbar's popup, in the manifest only for the moment before the worker
 * has started: a click then has no listener in the worker yet, and Chrome
 * drops it. This page passes the click on (the active tab of its window) and
 * closes once the worker has it; the worker turns the popup off as soon as it
 * listens itself (toolbar-click.ts).
 */
const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
const port = chrome.runtime.connect({ name: TOOLBAR_CLICK_PORT });
port.onMessage.addListener(() => window.close());
port.postMessage({ tabId: tab?.id });
