import type { Page } from 'playwright-core';
import { pageSession } from './own-world.js';

/**
 * The elements of a page that listen for a press of their own: a jQuery
 * `$(span).on('click', …)`, a Vue `@click`, an `addEventListener('mousedown')`
 * on a `<div>`. Nothing in their markup or style says so (no role, no
 * pointer cursor), yet a person clicks them; the walk gives each a ref
 * (page-runtime/element-kind.ts).
 *
 * Only the page's own world knows its listeners: DevTools'
 * `getEventListeners` (the console's command-line API, which CDP lends one
 * `Runtime.evaluate`) answers there, and in a world of clawd's own it sees
 * none. So one evaluate runs in the page's world, bounded in time, and
 * answers index paths (`[i]` is `document.getElementsByTagName('*')[i]`; a
 * shadow root's elements follow their host's path), which the walk turns
 * back into elements in its own world. A page that rewrites the DOM methods
 * this reads changes which of its elements get a ref, as its markup and
 * styles already decide; it reads nothing of clawd's. Any failure leaves the
 * walk as it was: the snapshot never fails for want of this.
 *
 * Left out: the document's root and body (where a page delegates every
 * click), and a node that listens to many kinds of events (a framework's
 * delegation root: React puts some forty on its container). Delegated
 * clicks are not seen this way (a pointer cursor still says "clickable").
 * The main frame only: a child frame's controls are reached by markup and
 * cursor. And not in a tab shared from the person's Chrome: Chrome lends an
 * extension's debugger no command-line API (`getEventListeners is not
 * defined`), and the protocol's own `DOMDebugger.getEventListeners`, whose
 * nodes must then be resolved one by one into objects, left the renderer
 * crashing on a long page's next walk (Chromium 156).
 */

/** At most this many listening elements (a page with more marks its controls otherwise too). */
const MOST = 1_500;
/** The scan stops past this, the page's scripts never waiting on it (a 16,000-element page takes about 30 ms). */
const SCAN_MS = 500;

const SCAN = `(() => {
  const POINTER = ['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend'];
  const out = [];
  const scan = (root, prefix) => {
    const all = root === document ? document.getElementsByTagName('*') : root.querySelectorAll('*');
    for (let i = 0; i < all.length && out.length < ${MOST}; i++) {
      const el = all[i];
      if (el !== document.documentElement && el !== document.body) {
        const kinds = Object.keys(getEventListeners(el));
        if (kinds.length && kinds.length <= 12 && kinds.some((kind) => POINTER.includes(kind))) out.push([...prefix, i]);
      }
      if (el.shadowRoot) scan(el.shadowRoot, [...prefix, i]);
    }
  };
  scan(document, []);
  return out;
})()`;

const isPath = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.length <= 32 && value.every((index) => Number.isInteger(index) && index >= 0);

/** The main frame's elements that listen for a press of their own, as index paths; undefined when they cannot be told. */
export async function listenedElements(page: Page): Promise<number[][] | undefined> {
  try {
    const session = await pageSession(page);
    const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
      expression: SCAN,
      includeCommandLineAPI: true,
      returnByValue: true,
      silent: true,
      timeout: SCAN_MS,
    });
    if (exceptionDetails || !Array.isArray(result.value)) return undefined;
    // The page's world answered: only well-formed paths, and no more than asked for.
    return (result.value as unknown[]).filter(isPath).slice(0, MOST);
  } catch {
    return undefined;
  }
}
