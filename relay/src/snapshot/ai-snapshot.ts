import type { Frame, Page } from 'playwright-core';
import { BadRequestError, NotFoundError } from '../errors.js';
import { flatten, type OutlineNode, type RefFacts } from '../page-runtime/outline-node.js';
import { decodeOutline } from '../page-runtime/outline-wire.js';
import { fitBudget, hiddenNote } from './budget.js';
import { findNodes, interactiveOnly, limitDepth, type Shaped } from './outline-filters.js';
import { diffOutlines } from './outline-diff.js';
import { type OutlineLine, renderOutline, renderText } from './outline-render.js';
import { factsOfNode, nextGeneration, recordSnapshot, RefNotFoundError, rememberOutline, snapshotsOf, type TabSnapshots, wasIssued } from './refs.js';
import { listenedElements } from './listened-elements.js';
import { childFrame, walkFrame } from './snapshot-engine.js';

/**
 * The `ai` snapshot: a compact outline of a tab (roles, names, values,
 * states, and a ref on everything an agent can act on), its frames included.
 * Each frame is walked in its isolated world (snapshot-engine.ts) into nodes
 * (page-runtime/outline-node.ts); here each frame's nodes go under their
 * iframe's node, in document order, the whole is kept for the next call
 * (refs.ts), shaped on its nodes for the caller (outline-filters.ts,
 * outline-diff.ts) and written as text once, at the end (outline-render.ts),
 * then cut to the caller's budget (budget.ts).
 */

export { ariaSnapshot, type AriaNode, type AriaSnapshot } from './aria-tree.js';
export { RefNotFoundError, resolveRef, TabSnapshots } from './refs.js';

export interface AiSnapshotOptions {
  /** Most lines in the outline; no limit when omitted. */
  limit?: number;
  /** Only what can be acted on, with its landmarks and nearest heading. */
  interactive?: boolean;
  /** Only the lines of one element: a ref of the previous snapshot, or a CSS selector (main frame). */
  scope?: { ref?: string; selector?: string };
  /** Only the lines that say this (a text, any case, or `/regex/flags`), each under its path from the root. */
  find?: string;
  /** Only this many levels of the outline (1 = top level). */
  depth?: number;
  /** At most this many characters; a note at the end says what was cut. */
  maxChars?: number;
  /** Only what changed since the tab's previous snapshot (ignores interactive, find, depth and scope). */
  diff?: boolean;
  /** Also what a person cannot see (page-sight.ts), each line marked `[hidden=why]`: for a person debugging. */
  hidden?: boolean;
}

export interface AiSnapshot {
  text: string;
  refCount: number;
  truncated: boolean;
  /** Frames whose content is in the outline, the main frame included. */
  frames: number;
  /** With diff: how many lines were added, removed, unchanged (absent when there was nothing to compare with). */
  changes?: { added: number; removed: number; changed: number; unchanged: number };
  /** Blocks of text a person cannot see, left out (or, with `hidden`, shown marked); absent when none. */
  hidden?: number;
  /**
   * How many of `text`'s first lines are clawd's notes (a diff's counts or
   * "no change", a diff with nothing to compare, hidden text left out);
   * every line after them is the page's, to the end, the notes a cut, a
   * find or a scope end with included (they name the page's sections).
   * Counted as the answer is made, never read from its lines: once a name
   * holds a newline, a page's line may say anything. Absent when none.
   */
  leadingNotes?: number;
}

/**
 * Snapshots the tab, and keeps its refs and outline in `target` for the next
 * call (resolveRef, diff). A bare Page is the tests' entry (refs.ts, snapshotsOf).
 */
export async function takeAiSnapshot(target: TabSnapshots | Page, options: AiSnapshotOptions = {}): Promise<AiSnapshot> {
  return (await snapshotLines(target, options, false)).snapshot;
}

/** The snapshot, and the refs its answer shows with what each stands for, in the answer's order (a labelled picture's labels). */
export async function snapshotWithRefs(target: TabSnapshots | Page, options: AiSnapshotOptions = {}): Promise<{ snapshot: AiSnapshot; shown: RefFacts[] }> {
  const { snapshot, lines } = await snapshotLines(target, options, true);
  const shown = lines.flatMap(({ node, mark }) => (node?.ref !== undefined && mark !== '-' ? [factsOfNode(node as OutlineNode & { ref: string })] : []));
  return { snapshot, shown };
}

/** `wantLines`: the answer's lines are wanted apart, with their nodes (else, uncut, only its text is made). */
async function snapshotLines(
  target: TabSnapshots | Page,
  options: AiSnapshotOptions,
  wantLines: boolean,
): Promise<{ snapshot: AiSnapshot; lines: OutlineLine[] }> {
  const tab = snapshotsOf(target);
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
  // Asked before this snapshot hands out refs of its own.
  const scopeRefIssued = options.scope?.ref === undefined || wasIssued(tab, options.scope.ref);
  const generation = nextGeneration();
  const frames = new Map<string, Frame>();
  const highest = new Map<string, number>();
  let refCount = 0;
  let nextFrame = 1;
  let newDocument = false;
  // Hidden blocks by frame, with the iframe node it sits under (none for the page): scoped, a frame counts when in the scope.
  const hiddenByFrame: Array<{ slot?: OutlineNode; hidden: number; hasScope: boolean }> = [];
  let scopeNodes: OutlineNode[] | undefined;

  // Depth-first in document order, so frame numbers and refs come out the same for an unchanged page.
  const snapshotFrame = async (frame: Frame, prefix: string, slot?: OutlineNode): Promise<OutlineNode[]> => {
    const scope = options.scope?.ref || (options.scope?.selector && !prefix) ? options.scope : undefined;
    // The whole page is walked and given refs whatever `limit` says: a limit (like maxChars) cuts
    // only what is shown, so a ref past the cut still works.
    // What listens for a press without saying so in its markup (listened-elements.ts): the main frame's.
    const listened = prefix ? undefined : await listenedElements(tab.page);
    const answer = await walkFrame(frame, {
      prefix,
      firstFrame: nextFrame,
      generation,
      scope,
      hidden: options.hidden === true,
      ...(listened?.length ? { listened } : {}),
    });
    if ('error' in answer) {
      if (options.scope?.selector && !prefix) throw new BadRequestError(`Invalid selector ${JSON.stringify(options.scope.selector)}: ${answer.error}`);
      throw new Error(`snapshot of frame ${prefix || 'main'} failed: ${answer.error}`);
    }
    if (!prefix) newDocument = !answer.continued;
    nextFrame += answer.frames;
    frames.set(prefix, frame);
    highest.set(prefix, answer.highest);
    refCount += answer.refCount;
    hiddenByFrame.push({ slot, hidden: answer.hidden, hasScope: answer.scope !== undefined });
    const { roots, ordered } = decodeOutline(answer, prefix);
    if (answer.scope) scopeNodes = answer.scope.map((place) => ordered[place]);
    for (const node of ordered) {
      if (node.frame === undefined) continue;
      const child = await childFrame(frame, node.frame).catch(() => null);
      if (!child) continue;
      try {
        const inner = await snapshotFrame(child, node.frame, node);
        if (inner.length) node.children = inner;
      } catch (error) {
        if (error instanceof BadRequestError) throw error;
        // The frame went away or navigated mid-snapshot: its node stays, without content.
      }
    }
    return roots;
  };

  const roots = await snapshotFrame(tab.page.mainFrame(), '');
  const inScope = new Set(options.scope && scopeNodes ? flatten(scopeNodes).map(({ node }) => node) : []);
  const hidden = hiddenByFrame
    .filter(({ slot, hasScope }) => !options.scope || hasScope || (slot !== undefined && inScope.has(slot)))
    .reduce((sum, frame) => sum + frame.hidden, 0);

  recordSnapshot(tab, generation, frames, highest);
  const hadPrevious = tab.previousOutline !== undefined;
  const before = newDocument ? undefined : tab.previousOutline;
  rememberOutline(tab, roots);

  let changes: AiSnapshot['changes'];
  // The answer: notes of ours first, then the page's nodes (or a diff's lines), then notes again.
  const head: string[] = [];
  let shaped: Shaped = { roots: [], notes: [] };
  let diffLines: OutlineLine[] | undefined;
  if (options.diff && before) {
    const diff = diffOutlines(before, roots);
    changes = { added: diff.added, removed: diff.removed, changed: diff.changed, unchanged: diff.unchanged };
    if (diff.lines.length)
      head.push(
        `[since the previous snapshot: +${diff.added} added, ~${diff.changed} changed, -${diff.removed} removed; ${diff.unchanged} unchanged lines not shown]`,
      );
    else head.push('[no change since the previous snapshot]');
    diffLines = diff.lines;
  } else {
    shaped = { roots, notes: [] };
    if (options.scope) shaped = scoped(scopeNodes, options.scope, scopeRefIssued);
    if (options.find !== undefined) {
      const found = findNodes(shaped.roots, options.find);
      shaped = { roots: found.roots, notes: [...shaped.notes, ...found.notes] };
    }
    if (options.interactive) shaped = { ...shaped, roots: interactiveOnly(shaped.roots) };
    if (options.depth !== undefined) {
      const cut = limitDepth(shaped.roots, options.depth);
      shaped = { roots: cut.roots, notes: [...shaped.notes, ...cut.notes] };
    }
    // How much a person could not see, said first (a diff shows what changed of what can be seen).
    if (hidden) head.push(hiddenNote(hidden, options.hidden === true));
    if (options.diff)
      head.push(`[${hadPrevious ? 'the page navigated since the previous snapshot' : 'no earlier snapshot of this tab'}: the snapshot follows in full]`);
  }
  const facts = { refCount, truncated: false, frames: frames.size, ...(changes ? { changes } : {}), ...(hidden ? { hidden } : {}) };
  const withNotes = (text: string, leading: number): AiSnapshot => ({ text, ...facts, ...(leading ? { leadingNotes: leading } : {}) });
  if (!wantLines && !diffLines && options.limit === undefined && options.maxChars === undefined) {
    // Nothing cuts it line by line: the text is written in one go (the lines of a long page are not kept apart).
    const body = renderText(shaped.roots);
    return { snapshot: withNotes([...head, ...(body ? [body] : []), ...shaped.notes].join('\n'), head.length), lines: [] };
  }
  let lines: OutlineLine[] = [...head.map((text) => ({ text })), ...(diffLines ?? renderOutline(shaped.roots)), ...shaped.notes.map((text) => ({ text }))];
  // Where the page's lines begin, followed through the cuts: a cut keeps the first lines, and its note comes last.
  let leading = head.length;
  if (lines.length > limit) {
    const left = lines.length - limit;
    lines = lines.slice(0, limit);
    leading = Math.min(leading, limit);
    lines.push({ text: `[truncated at limit=${limit} lines; about ${left} more elements not shown]` });
    facts.truncated = true;
  }
  if (options.maxChars !== undefined) {
    const fitted = fitBudget(lines, options.maxChars);
    if (fitted !== lines) leading = Math.min(leading, fitted.length - 1);
    lines = fitted;
  }
  return { snapshot: withNotes(lines.map((line) => line.text).join('\n'), leading), lines };
}

/** The scope element's nodes, at the top; a note when it shows nothing. */
function scoped(nodes: OutlineNode[] | undefined, scope: { ref?: string; selector?: string }, refIssued: boolean): Shaped {
  if (!nodes) {
    if (scope.ref && !refIssued)
      throw new RefNotFoundError(
        scope.ref,
        'unknown',
        `Unknown ref ${scope.ref}: no snapshot of this tab handed it out. Take a snapshot and scope to a ref from it.`,
      );
    if (scope.ref)
      throw new RefNotFoundError(scope.ref, 'stale', `Ref ${scope.ref} is not on the page any more: take a new snapshot and scope to a ref from it.`);
    throw new NotFoundError(`No element matches selector ${JSON.stringify(scope.selector)}`);
  }
  if (!nodes.length) return { roots: [], notes: [`[${scope.ref ?? scope.selector} shows nothing: it is hidden or empty]`] };
  return { roots: nodes, notes: [] };
}
