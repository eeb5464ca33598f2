import type { Frame, Page } from 'playwright-core';
import { BadRequestError, NotFoundError } from '../errors.js';
import { nextGeneration, recordSnapshot, RefNotFoundError, snapshotsOf, type TabSnapshots, wasIssued } from './refs.js';
import { diffOutlines, findLines, fitBudget, hiddenNote, interactiveOnly, limitDepth } from './shaping.js';
import { childFrame, walkFrame } from './snapshot-engine.js';

/**
 * The `ai` snapshot: a compact outline of a tab (roles, names, values,
 * states, and a ref on everything an agent can act on), its frames included.
 * Each frame is walked in its isolated world (snapshot-engine.ts); here the
 * frames' outlines are stitched under their iframe lines, in document order,
 * and then shaped (shaping.ts) for the caller's budget.
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
}

const INDENT = '  ';

/**
 * Snapshots the tab, and keeps its refs and outline in `target` for the next
 * call (resolveRef, diff). A bare Page is the tests' entry (refs.ts, snapshotsOf).
 */
export async function takeAiSnapshot(target: TabSnapshots | Page, options: AiSnapshotOptions = {}): Promise<AiSnapshot> {
  const tab = snapshotsOf(target);
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
  // Asked before this snapshot hands out refs of its own.
  const scopeRefIssued = options.scope?.ref === undefined || wasIssued(tab, options.scope.ref);
  const generation = nextGeneration();
  const frames = new Map<string, Frame>();
  const highest = new Map<string, number>();
  let refCount = 0;
  let nextFrame = 1;
  let elementsLeft = 0;
  let truncated = false;
  let newDocument = false;
  // Hidden blocks by frame, with the line its slot is at (-1 for the page): scoped, a frame counts when in the scope.
  const hiddenByFrame: Array<{ at: number; hidden: number; hasScope: boolean }> = [];
  let scopeRange: { start: number; end: number } | undefined;
  const out: string[] = [];

  // Depth-first in document order, so frame numbers and refs come out the same for an unchanged page.
  const snapshotFrame = async (frame: Frame, prefix: string, depth: number, slotAt = -1): Promise<void> => {
    const scope = options.scope?.ref || (options.scope?.selector && !prefix) ? options.scope : undefined;
    // The whole page is walked and given refs whatever `limit` says: a limit (like maxChars) cuts
    // only what is shown, so a ref past the cut still works.
    const result = await walkFrame(frame, { prefix, firstFrame: nextFrame, limit: Number.MAX_SAFE_INTEGER, generation, scope, hidden: options.hidden === true });
    if (result.error) {
      if (options.scope?.selector && !prefix) throw new BadRequestError(`Invalid selector ${JSON.stringify(options.scope.selector)}: ${result.error}`);
      throw new Error(`snapshot of frame ${prefix || 'main'} failed: ${result.error}`);
    }
    if (!prefix) newDocument = !result.continued;
    nextFrame += result.frames.length;
    frames.set(prefix, frame);
    highest.set(prefix, result.highest);
    refCount += result.refCount;
    truncated ||= result.truncated;
    elementsLeft += result.elementsLeft;
    hiddenByFrame.push({ at: slotAt, hidden: result.hidden, hasScope: result.scope !== undefined });

    const lines = result.text ? result.text.split('\n') : [];
    const pad = INDENT.repeat(depth);
    let slot = 0;
    for (let i = 0; i <= lines.length; i++) {
      if (result.scope?.start === i) scopeRange = { start: out.length, end: out.length };
      if (result.scope?.end === i && scopeRange) scopeRange.end = out.length;
      if (i === lines.length) break;
      const slotHere = result.frames[slot]?.line === i ? result.frames[slot++] : undefined;
      const at = out.push(pad + lines[i]) - 1;
      if (!slotHere) continue;
      const child = await childFrame(frame, slotHere.prefix).catch(() => null);
      if (!child) continue;
      const before = out.length;
      try {
        await snapshotFrame(child, slotHere.prefix, depth + slotHere.depth + 1, at);
      } catch (error) {
        if (error instanceof BadRequestError) throw error;
        // The frame went away or navigated mid-snapshot: its line stays, without content.
      }
      if (out.length > before) out[at] += ':';
    }
  };

  await snapshotFrame(tab.page.mainFrame(), '', 0);
  const inScope = ({ at, hasScope }: { at: number; hasScope: boolean }) => !options.scope || hasScope || (scopeRange !== undefined && at >= scopeRange.start && at < scopeRange.end);
  const hidden = hiddenByFrame.filter(inScope).reduce((sum, frame) => sum + frame.hidden, 0);

  recordSnapshot(tab, generation, frames, highest);
  const hadPrevious = tab.previousOutline !== undefined;
  const before = newDocument ? undefined : tab.previousOutline;
  tab.previousOutline = [...out];

  let lines = out;
  let changes: AiSnapshot['changes'];
  if (options.diff && before) {
    const diff = diffOutlines(before, out);
    changes = { added: diff.added, removed: diff.removed, changed: diff.changed, unchanged: diff.unchanged };
    lines = diff.lines.length
      ? [`[since the previous snapshot: +${diff.added} added, ~${diff.changed} changed, -${diff.removed} removed; ${diff.unchanged} unchanged lines not shown]`, ...diff.lines]
      : ['[no change since the previous snapshot]'];
  } else {
    if (options.scope) lines = scoped(lines, scopeRange, options.scope, scopeRefIssued);
    if (options.find !== undefined) lines = findLines(lines, options.find);
    if (options.interactive) lines = interactiveOnly(lines);
    if (options.depth !== undefined) lines = limitDepth(lines, options.depth);
    if (options.diff) lines = [`[${hadPrevious ? 'the page navigated since the previous snapshot' : 'no earlier snapshot of this tab'}: the snapshot follows in full]`, ...lines];
    // How much a person could not see, said first (a diff shows what changed of what can be seen).
    if (hidden) lines = [hiddenNote(hidden, options.hidden === true), ...lines];
  }
  if (lines.length > limit) {
    elementsLeft += lines.length - limit;
    lines = lines.slice(0, limit);
    truncated = true;
  }
  if (truncated) lines.push(`[truncated at limit=${limit} lines; about ${elementsLeft} more elements not shown]`);
  if (options.maxChars !== undefined) lines = fitBudget(lines, options.maxChars);
  return { text: lines.join('\n'), refCount, truncated, frames: frames.size, ...(changes ? { changes } : {}), ...(hidden ? { hidden } : {}) };
}

/** The scope element's lines, moved to the top level. */
function scoped(lines: string[], range: { start: number; end: number } | undefined, scope: { ref?: string; selector?: string }, refIssued: boolean): string[] {
  if (!range) {
    if (scope.ref && !refIssued) throw new RefNotFoundError(scope.ref, 'unknown', `Unknown ref ${scope.ref}: no snapshot of this tab handed it out. Take a snapshot and scope to a ref from it.`);
    if (scope.ref) throw new RefNotFoundError(scope.ref, 'stale', `Ref ${scope.ref} is not on the page any more: take a new snapshot and scope to a ref from it.`);
    throw new NotFoundError(`No element matches selector ${JSON.stringify(scope.selector)}`);
  }
  const part = lines.slice(range.start, range.end);
  if (!part.length) return [`[${scope.ref ?? scope.selector} shows nothing: it is hidden or empty]`];
  const strip = Math.min(...part.map((line) => line.length - line.trimStart().length));
  return part.map((line) => line.slice(strip));
}
