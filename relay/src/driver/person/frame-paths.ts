import type { CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';

/**
 * Where a person's step inside a frame happened, as a test finds that frame
 * again: one selector per frame from the top (page-runtime/frame-locator.ts),
 * for `page.frameLocator(…)` chains.
 *
 * Why asked of the parents: a frame cannot see its own `<iframe>` element
 * when its parent is of another origin, and its page could lie about it. The
 * parent's document holds the element; CDP names it (DOM.getFrameOwner, on
 * the session that holds the parent, which works for an out-of-process child
 * too) and the parent's own person world describes it, where the page's
 * scripts cannot reach.
 */

/** One CDP session the person's watch runs on (the tab's, or an out-of-process frame's), with its world in each frame it holds. */
export interface WatchedSession {
  session: CDPSession;
  /** The watch's script for new documents there, replaced by each install. */
  script?: string;
  /** The person's world's execution context, by frame id. */
  worlds: Map<string, number>;
}

/** Nested deeper than this, a frame is not followed (a page that nests frames without end). */
const MAX_DEPTH = 16;

/** The frame's selectors from the top frame down; undefined when a frame on the way cannot be placed (it went meanwhile). */
export async function framePath(frameId: string, topFrame: string, watched: WatchedSession[]): Promise<string[] | undefined> {
  if (frameId === topFrame) return [];
  const parents = new Map<string, string>();
  const collect = (tree: Protocol.Page.FrameTree): void => {
    // An out-of-process frame's own session names its parent, in the session that holds that one.
    if (tree.frame.parentId) parents.set(tree.frame.id, tree.frame.parentId);
    for (const child of tree.childFrames ?? []) collect(child);
  };
  await Promise.all(
    watched.map((one) =>
      one.session.send('Page.getFrameTree').then(
        ({ frameTree }) => collect(frameTree),
        () => {},
      ),
    ),
  );
  const path: string[] = [];
  for (let frame = frameId; frame !== topFrame;) {
    const parent = parents.get(frame);
    const host = parent === undefined ? undefined : watched.find((one) => one.worlds.has(parent));
    if (parent === undefined || !host || path.length >= MAX_DEPTH) return undefined;
    const selector = await ownerSelector(host, frame, host.worlds.get(parent)!).catch(() => undefined);
    if (!selector) return undefined;
    path.unshift(selector);
    frame = parent;
  }
  return path;
}

/** The selector of the element that shows `frame`, read by the person's world of its parent. */
async function ownerSelector(host: WatchedSession, frame: string, world: number): Promise<string | undefined> {
  const { backendNodeId } = await host.session.send('DOM.getFrameOwner', { frameId: frame });
  const { object } = await host.session.send('DOM.resolveNode', { backendNodeId, executionContextId: world });
  if (!object.objectId) return undefined;
  try {
    const { result } = await host.session.send('Runtime.callFunctionOn', {
      objectId: object.objectId,
      functionDeclaration: 'function () { return globalThis.__clawdPersonWatch ? globalThis.__clawdPersonWatch.frameSelector(this) : undefined; }',
      returnByValue: true,
    });
    return typeof result.value === 'string' ? result.value : undefined;
  } finally {
    void host.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
  }
}
