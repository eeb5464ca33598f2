import type { CDPSession, Page } from 'playwright-core';

/**
 * The elements of a page that listen for a click of their own: a jQuery
 * `$(span).on('click', …)`, a Vue `@click`, an `addEventListener('mousedown')`
 * on a `<div>`. Nothing in their markup or style says so (no role, no
 * pointer cursor), yet a person clicks them; the walk gives each a ref
 * (page-runtime/element-kind.ts). Chromium knows them: one
 * `DOMDebugger.getEventListeners` on the document, through its whole tree
 * and every world, names each listening node by its backend id.
 *
 * Those nodes reach the walk (in Playwright's utility world) as paths of
 * indexes (`[i]` is `document.getElementsByTagName('*')[i]`; a shadow root's
 * elements follow their host's path), computed in a world of clawd's own
 * (`Page.createIsolatedWorld`), where the page's scripts cannot change
 * what its DOM methods answer. Any failure leaves the walk as it was: the
 * snapshot never fails for want of this.
 *
 * Left out: listeners on the document, its root and body (where a page
 * delegates every click: React, jQuery's `$(document).on`), and a node that
 * listens to many kinds of events (a framework's delegation root: React
 * puts some forty on its container). The main frame only: a child frame's
 * controls are reached by markup and cursor, as before.
 */

/** What a person's press or click sets off. */
const POINTER_EVENTS = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend']);
/** A node listening to more kinds of events than this delegates for a whole app. */
const DELEGATION_KINDS = 12;
/** At most this many listening elements are looked up (a page with more marks its controls otherwise too). */
const MOST = 1_500;
const WORLD = 'clawd-listeners';
const GROUP = 'clawd-listeners';

/** In clawd's own world: each element's index path, or null for one outside this document (another frame's). */
const PATHS = `function (...elements) {
  const indexes = new Map();
  const indexIn = (root) => {
    let known = indexes.get(root);
    if (!known) {
      known = new Map();
      const all = root === document ? document.getElementsByTagName('*') : root.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) known.set(all[i], i);
      indexes.set(root, known);
    }
    return known;
  };
  const pathOf = (el) => {
    const root = el.getRootNode();
    const index = indexIn(root).get(el);
    if (index === undefined) return null;
    if (root === document) return [index];
    if (!(root instanceof ShadowRoot)) return null;
    const host = pathOf(root.host);
    return host && [...host, index];
  };
  return elements.map((el) => (el instanceof Element && el.ownerDocument === document && el !== document.documentElement && el !== document.body ? pathOf(el) : null));
}`;

const sessions = new WeakMap<Page, Promise<CDPSession>>();

function sessionOf(page: Page): Promise<CDPSession> {
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
    session.catch(() => sessions.delete(page));
  }
  return session;
}

/** The main frame's elements that listen for a press of their own, as index paths; undefined when they cannot be told. */
export async function listenedElements(page: Page): Promise<number[][] | undefined> {
  try {
    const session = await sessionOf(page);
    const { frameTree } = await session.send('Page.getFrameTree');
    const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD, grantUniveralAccess: false });
    const { result: document } = await session.send('Runtime.evaluate', { expression: 'document', contextId: executionContextId, objectGroup: GROUP });
    if (!document.objectId) return undefined;
    try {
      const { listeners } = await session.send('DOMDebugger.getEventListeners', { objectId: document.objectId, depth: -1, pierce: true });
      const kinds = new Map<number, Set<string>>();
      for (const listener of listeners) {
        if (listener.backendNodeId === undefined) continue;
        let seen = kinds.get(listener.backendNodeId);
        if (!seen) kinds.set(listener.backendNodeId, (seen = new Set()));
        seen.add(listener.type);
      }
      const nodes = [...kinds].filter(([, types]) => types.size <= DELEGATION_KINDS && [...types].some((type) => POINTER_EVENTS.has(type))).map(([node]) => node).slice(0, MOST);
      if (!nodes.length) return [];
      const resolved = await Promise.all(
        nodes.map((backendNodeId) =>
          session
            .send('DOM.resolveNode', { backendNodeId, executionContextId, objectGroup: GROUP })
            .then(({ object }) => object.objectId)
            .catch(() => undefined),
        ),
      );
      const objectIds = resolved.filter((id): id is string => id !== undefined);
      const { result } = await session.send('Runtime.callFunctionOn', { objectId: document.objectId, functionDeclaration: PATHS, arguments: objectIds.map((objectId) => ({ objectId })), returnByValue: true });
      const paths = result.value as Array<number[] | null>;
      return Array.isArray(paths) ? paths.filter((path): path is number[] => Array.isArray(path)) : undefined;
    } finally {
      await session.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => {});
    }
  } catch {
    return undefined;
  }
}
