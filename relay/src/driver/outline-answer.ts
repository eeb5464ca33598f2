import type { AiSnapshot, AiSnapshotOptions, TabSnapshots } from '../snapshot/ai-snapshot.js';
import { takeAiSnapshot } from '../snapshot/ai-snapshot.js';

/**
 * A tab's `ai` outline as an answer carries it: its text, and how many of
 * its first lines are clawd-browser's notes (`leadingNotes`), so that every
 * rendering fences the page's words from there (api/page-content.ts's
 * fencedAfterNotes) without reading lines to guess which are whose. A line
 * of a page's may hold anything once its text holds a newline: a note of
 * clawd's, word for word. So the count is never taken from what the text
 * says: the snapshot counts its own notes as it makes them, through its
 * limit and budget (ai-snapshot.ts), and the page tools offered, said
 * first, are this driver's own line.
 */

export type OutlineAnswer = AiSnapshot;

export async function outlineAnswer(snapshots: TabSnapshots, options: AiSnapshotOptions, pageTools: number): Promise<OutlineAnswer> {
  const snapshot = await takeAiSnapshot(snapshots, options);
  // A page that offers agents tools says so first: one call may replace a dozen acts.
  if (!pageTools || options.diff) return snapshot;
  const offered = `The page offers ${pageTools} tool${pageTools === 1 ? '' : 's'} for agents (page tools).`;
  return { ...snapshot, text: snapshot.text ? `${offered}\n${snapshot.text}` : offered, leadingNotes: (snapshot.leadingNotes ?? 0) + 1 };
}
