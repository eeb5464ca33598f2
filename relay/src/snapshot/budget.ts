import type { OutlineLine } from './outline-render.js';
import { nodeLine } from './outline-render.js';
import { LANDMARKS } from './outline-filters.js';

/**
 * An answer cut to a character budget, with a note that says what was cut
 * and how to see it: whole lines kept while they and the note fit. The
 * outline's note (fitBudget) names the sections that follow; page text's
 * (page-text.ts) its headings.
 */

/** Landmarks a page has once, which a snapshot's `selector` scope matches by their role word (page-runtime/walk-scope.ts). */
const SCOPABLE_LANDMARKS = new Set(['main', 'banner', 'contentinfo', 'search']);

/**
 * Whole lines kept from the start while they and the note about the rest fit
 * in `maxChars` together: the note is part of the answer. `noteFor` says what
 * the lines from `cutAt` on hold, and how much of the text (`used`
 * characters, newlines included) was kept.
 */
export function cutToFit<Line>(
  lines: Line[],
  lengthOf: (line: Line) => number,
  maxChars: number,
  noteFor: (cutAt: number, used: number) => string,
): { kept: Line[]; note: string } {
  let used = 0;
  let cutAt = 0;
  while (cutAt < lines.length && used + lengthOf(lines[cutAt]) + 1 <= maxChars) used += lengthOf(lines[cutAt++]) + 1;
  while (cutAt > 0 && used + noteFor(cutAt, used).length > maxChars) used -= lengthOf(lines[--cutAt]) + 1;
  return { kept: lines.slice(0, cutAt), note: noteFor(cutAt, used) };
}

/**
 * Keeps whole lines while they fit in `maxChars`, then says what was cut:
 * how many lines and refs, and the first sections in the cut part, so the
 * agent can ask for one of them (scope) or for more.
 */
export function fitBudget(lines: OutlineLine[], maxChars: number): OutlineLine[] {
  const total = lines.reduce((sum, line) => sum + line.text.length + 1, 0);
  if (total <= maxChars) return lines;
  const { kept, note } = cutToFit(
    lines,
    (line) => line.text.length,
    maxChars,
    (cutAt) => {
      const cut = lines.slice(cutAt);
      const refs = cut.filter((line) => line.node?.ref !== undefined).length;
      const sections = cut
        // A diff's added, removed and changed lines are changes, not places to look.
        .filter(({ node, mark }) => node && (mark === undefined || mark === ' ') && (node.role === 'heading' || LANDMARKS.has(node.role)))
        .slice(0, 4)
        .map(({ node }) => {
          const named = nodeLine(node!).slice(0, 60);
          // A landmark a page has once is a scope by its role word, whether it is an element or a role attribute.
          return SCOPABLE_LANDMARKS.has(node!.role) ? `${named} [selector=${node!.role}]` : named;
        });
      const where = sections.length ? `; next: ${sections.join(' | ')}` : '';
      return `[cut at maxChars=${maxChars}: ${cut.length} more lines (${refs} with refs) not shown${where}. For more: find what you need, a larger maxChars, interactive, or scope to a ref or selector]`;
    },
  );
  return [...kept, { text: note }];
}

/** The note a snapshot or page text starts with when words a person cannot see were left out (or shown, marked). */
export function hiddenNote(blocks: number, shown: boolean): string {
  const count = `${blocks} block${blocks === 1 ? '' : 's'}`;
  return shown ? `[hidden text shown, each marked [hidden=why]: ${count}]` : `[hidden text left out: ${count}]`;
}
