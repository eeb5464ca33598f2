import { type AiSnapshot, type AiSnapshotOptions, takeAiSnapshot, type TabSnapshots } from '../snapshot/ai-snapshot.js';
import { fitBudget } from '../snapshot/shaping.js';

/**
 * A tab's `ai` outline as an answer carries it: its text, and how many of
 * its first lines are clawd-browser's notes (`leadingNotes`), so that every
 * rendering fences the page's words from there (api/page-content.ts's
 * fencedAfterNotes) without reading lines to guess which are whose. A line
 * of a page's may hold anything once its text holds a newline: a note of
 * clawd's, word for word. So the count is taken from how the outline was
 * made, never from what it says:
 * - the snapshot's own first notes follow from what was asked and found: a
 *   diff against an earlier outline starts with one (its counts, or "no
 *   change"); otherwise a diff with nothing to compare starts with one, and
 *   hidden text left out with another;
 * - the budget is applied here, so whether it cut is known (the cut leaves
 *   a note at the end, which names the page's sections: inside the fence);
 * - the page tools offered, said first, are this driver's own line.
 */

export interface OutlineAnswer extends AiSnapshot {
  /** Lines of `text` from its start that are clawd's notes; absent when none. */
  leadingNotes?: number;
}

export async function outlineAnswer(snapshots: TabSnapshots, options: AiSnapshotOptions, pageTools: number): Promise<OutlineAnswer> {
  const { maxChars, ...shaping } = options;
  const snapshot = await takeAiSnapshot(snapshots, shaping);
  let lines = snapshot.text ? snapshot.text.split('\n') : [];
  let leading = snapshot.changes ? 1 : (shaping.diff ? 1 : 0) + (snapshot.hidden ? 1 : 0);
  // A limit keeps the first lines only: the notes among them.
  leading = Math.min(leading, shaping.limit ?? Number.MAX_SAFE_INTEGER, lines.length);
  if (maxChars !== undefined) {
    const fitted = fitBudget(lines, maxChars);
    // The same lines when they fit; else those kept, then the cut's note.
    if (fitted !== lines) leading = Math.min(leading, fitted.length - 1);
    lines = fitted;
  }
  // A page that offers agents tools says so first: one call may replace a dozen acts.
  if (pageTools && !shaping.diff) {
    lines = [`The page offers ${pageTools} tool${pageTools === 1 ? '' : 's'} for agents (page tools).`, ...lines];
    leading++;
  }
  return { ...snapshot, text: lines.join('\n'), ...(leading ? { leadingNotes: leading } : {}) };
}
