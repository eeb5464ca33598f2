import type { CDPSession, Page } from 'playwright-core';

/**
 * A world of clawd's own in a page's main frame (`Page.createIsolatedWorld`),
 * reached over a CDP session of its own: where clawd reads the page through
 * CDP calls that name objects (listeners, the accessibility tree's DOM
 * nodes) with DOM methods the page's scripts cannot replace. One world per
 * name and document, made once and used again: asking Chromium to create a
 * world of a name the document already has, then walking the page, crashed
 * the renderer (Chromium 156, a long page).
 */

export interface OwnWorld {
  session: CDPSession;
  contextId: number;
  /** The document, as an object of this world (released with `group`). */
  documentId: string;
}

interface Kept {
  session: Promise<CDPSession>;
  contexts: Map<string, number>;
}

const kept = new WeakMap<Page, Kept>();

function keptFor(page: Page): Kept {
  let entry = kept.get(page);
  if (!entry) {
    entry = { session: page.context().newCDPSession(page), contexts: new Map() };
    kept.set(page, entry);
    entry.session.catch(() => kept.delete(page));
  }
  return entry;
}

/** The page's CDP session of clawd's own, kept for its life: also for reads in the page's own world (listened-elements.ts). */
export function pageSession(page: Page): Promise<CDPSession> {
  return keptFor(page).session;
}

/** The world named `name` in the page's current document, and its document under `group`; made when the document has none yet. */
export async function ownWorld(page: Page, name: string, group: string): Promise<OwnWorld> {
  const entry = keptFor(page);
  const session = await entry.session;
  const documentIn = async (contextId: number) => {
    const { result } = await session.send('Runtime.evaluate', { expression: 'document', contextId, objectGroup: group });
    if (!result.objectId) throw new Error('no document');
    return result.objectId;
  };
  const known = entry.contexts.get(name);
  if (known !== undefined) {
    // A context of a document since replaced is gone: the evaluate fails, and the new document gets its world.
    const documentId = await documentIn(known).catch(() => undefined);
    if (documentId) return { session, contextId: known, documentId };
  }
  const { frameTree } = await session.send('Page.getFrameTree');
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: name, grantUniveralAccess: false });
  entry.contexts.set(name, executionContextId);
  return { session, contextId: executionContextId, documentId: await documentIn(executionContextId) };
}
