import type { OutlineNode } from './outline-node.js';
import type { Sight } from './page-sight.js';
import type { Waiting } from './walk-text.js';

/**
 * What waited for the whole page (walk-text.ts): text in its background's
 * colour (hidden unless something else is painted under it), and anything an
 * opaque box drawn above it covers. Once every box is known, each is seen or
 * not: what is not goes (or, shown when asked, is marked hidden).
 */
export function settleWaiting(roots: OutlineNode[], waiting: Waiting[], sight: Sight, hiddenBlocks: Set<Element>, showHidden: boolean): Set<OutlineNode> {
  const gone = new Set<OutlineNode>();
  if (!waiting.length || !(sight.mayCover() || waiting.some((entry) => entry.sameColour))) return gone;
  const verdicts = sight.settle(waiting);
  verdicts.forEach((reason, i) => {
    if (!reason) return;
    const { node, owner, inline } = waiting[i];
    hiddenBlocks.add(owner);
    if (showHidden) {
      if (inline) node.textHidden = reason;
      else node.hidden = reason;
    } else if (inline) delete node.text;
    else gone.add(node);
  });
  if (gone.size) prune(roots, gone);
  return gone;
}

/** Takes the gone nodes out, wherever they sit now (a wrapper's place may have gone to its child). */
function prune(nodes: OutlineNode[], gone: Set<OutlineNode>): void {
  let kept = 0;
  for (const node of nodes) {
    if (gone.has(node)) continue;
    nodes[kept++] = node;
    if (node.children) {
      prune(node.children, gone);
      if (!node.children.length) delete node.children;
    }
  }
  nodes.length = kept;
}
