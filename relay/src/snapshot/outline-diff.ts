import { type FlatNode, flatten, type OutlineNode } from '../page-runtime/outline-node.js';
import { fullLine, type OutlineLine } from './outline-render.js';

/**
 * What changed between two outlines of one document, node by node: `+ `
 * added, `- ` removed, and `~ ` changed (an element whose states or value
 * changed, shown as it is now), each run of changes under its nearest
 * unchanged enclosing line (`  `) for context. Refs are stable between
 * snapshots of a document, so an unchanged element's line is unchanged.
 * Focus alone is not a change: it moves with nearly every act.
 */

export interface OutlineDiff {
  lines: OutlineLine[];
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

interface DiffOp {
  /** ' ' same, '+' added, '-' removed, '~' changed (the new line), '=' the old line of a change (not shown). */
  kind: ' ' | '+' | '-' | '~' | '=';
  /** Index in the new outline, for context. */
  at: number;
  entry: Entry;
}

/** A node of one outline as a diff compares it: its line without focus, and what pairs an old and a new line of one element. */
interface Entry extends FlatNode {
  line: string;
  identity: string;
}

/** Above this many line pairs to compare, the changed middle is shown whole rather than diffed. */
const MAX_DIFF_CELLS = 4_000_000;

function entries(roots: OutlineNode[]): Entry[] {
  return flatten(roots).map((flat) => ({
    ...flat,
    line: fullLine(flat.node, flat.depth, { focused: false }),
    identity: `${flat.depth} ${flat.node.role} ${JSON.stringify(flat.node.name ?? null)}`,
  }));
}

/** In each run of changes, a removed and an added line of the same element become one changed line. */
function pairChanges(ops: DiffOp[]): void {
  for (let start = 0; start < ops.length;) {
    if (ops[start].kind === ' ') {
      start++;
      continue;
    }
    let end = start;
    while (end < ops.length && ops[end].kind !== ' ') end++;
    const removed = ops.slice(start, end).filter((op) => op.kind === '-');
    for (const op of ops.slice(start, end)) {
      if (op.kind !== '+') continue;
      const match = removed.findIndex((old) => old.entry.identity === op.entry.identity);
      if (match < 0) continue;
      removed[match].kind = '=';
      removed.splice(match, 1);
      op.kind = '~';
    }
    start = end;
  }
}

export function diffOutlines(beforeRoots: OutlineNode[], afterRoots: OutlineNode[]): OutlineDiff {
  const before = entries(beforeRoots);
  const after = entries(afterRoots);
  let start = 0;
  while (start < before.length && start < after.length && before[start].line === after[start].line) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1].line === after[endAfter - 1].line) {
    endBefore--;
    endAfter--;
  }
  const oldMiddle = before.slice(start, endBefore);
  const newMiddle = after.slice(start, endAfter);
  const ops: DiffOp[] = [];
  if (oldMiddle.length * newMiddle.length > MAX_DIFF_CELLS) {
    for (const entry of oldMiddle) ops.push({ kind: '-', at: start, entry });
    newMiddle.forEach((entry, i) => ops.push({ kind: '+', at: start + i, entry }));
  } else {
    const n = oldMiddle.length;
    const m = newMiddle.length;
    // Longest common subsequence, suffix lengths.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] =
          oldMiddle[i].line === newMiddle[j].line ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && oldMiddle[i].line === newMiddle[j].line) {
        ops.push({ kind: ' ', at: start + j, entry: newMiddle[j] });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) {
        // Removals first, as diffs read.
        ops.push({ kind: '-', at: start + j, entry: oldMiddle[i] });
        i++;
      } else {
        ops.push({ kind: '+', at: start + j, entry: newMiddle[j] });
        j++;
      }
    }
  }
  pairChanges(ops);
  const added = ops.filter((op) => op.kind === '+').length;
  const removed = ops.filter((op) => op.kind === '-').length;
  const changed = ops.filter((op) => op.kind === '~').length;
  const unchanged = after.length - added - changed;
  const shownContext = new Set<number>();
  const lines: OutlineLine[] = [];
  let inRun = false;
  for (const op of ops) {
    if (op.kind === '=') continue;
    if (op.kind === ' ') {
      inRun = false;
      continue;
    }
    if (!inRun) {
      // The nearest unchanged line that encloses this run says where it is.
      let context = -1;
      for (let k = Math.min(op.at, after.length) - 1; k >= 0; k--) {
        if (after[k].depth < op.entry.depth && !ops.some((o) => (o.kind === '+' || o.kind === '~') && o.at === k)) {
          context = k;
          break;
        }
      }
      if (context >= 0 && !shownContext.has(context)) {
        shownContext.add(context);
        lines.push({ text: `  ${after[context].line}`, node: { ...after[context].node, focused: undefined }, mark: ' ' });
      }
      inRun = true;
    }
    lines.push({ text: `${op.kind} ${op.entry.line}`, node: op.entry.node, mark: op.kind as '+' | '-' | '~' });
  }
  return { lines, added, removed, changed, unchanged };
}
