import type { Page } from 'playwright-core';
import { BadRequestError, NotFoundError } from '../errors.js';
import { frameOfRef, resolveRef, type TabSnapshots } from './refs.js';
import { cutToFit, hiddenNote } from './budget.js';
import { frameMarkdown } from './snapshot-engine.js';

/**
 * `GET /text`: a page's readable content as Markdown (page-runtime/markdown.ts),
 * or one element's (a ref from the tab's latest snapshot, or a CSS
 * selector), cut at `maxChars` with a note that says what was cut and where
 * to look next, as snapshots are. Frames are not included: scope to a ref
 * inside one to read it.
 */

export interface PageTextOptions {
  ref?: string;
  selector?: string;
  maxChars: number;
  /** Also what a person cannot see, each block marked `[hidden=why]`: for a person debugging. */
  hidden?: boolean;
}

export interface PageText {
  markdown: string;
  /** Characters of the whole text, before any cut. */
  chars: number;
  truncated: boolean;
  /** Blocks of text a person cannot see, left out (or shown marked); absent when none. The markdown then starts with a note saying so. */
  hidden?: number;
}

export async function takePageText(snapshots: TabSnapshots, page: Page, options: PageTextOptions): Promise<PageText> {
  if (options.ref && options.selector) throw new BadRequestError('Give ref or selector to scope the text, not both');
  let frame = page.mainFrame();
  if (options.ref) {
    // Unknown or stale refs are the typed 404 every action gives.
    await resolveRef(snapshots, options.ref);
    frame = frameOfRef(snapshots, options.ref) ?? frame;
  }
  const answer = await frameMarkdown(frame, { ref: options.ref, selector: options.selector, hidden: options.hidden === true });
  if (answer.error === 'absent')
    throw new NotFoundError(
      options.ref ? `Ref ${options.ref} is gone from the page: take a new snapshot` : `No element matches ${JSON.stringify(options.selector)}`,
    );
  if (answer.error !== undefined)
    throw new BadRequestError(
      options.selector ? `Invalid selector ${JSON.stringify(options.selector)}: ${answer.error}` : `The page's text could not be read: ${answer.error}`,
    );
  const markdown = answer.markdown ?? '';
  const hidden = answer.hidden ?? 0;
  if (!hidden) return { ...fitText(markdown, options.maxChars), chars: markdown.length };
  // The note first, then the text cut to what is left of the budget.
  const note = hiddenNote(hidden, options.hidden === true);
  const fitted = fitText(markdown, Math.max(1, options.maxChars - note.length - 1));
  return { markdown: `${note}\n${fitted.markdown}`, truncated: fitted.truncated, chars: markdown.length, hidden };
}

/**
 * Keeps whole lines while they fit in `maxChars`, then says how much was
 * cut and the first headings in the cut part, so the agent can ask for
 * more or scope to a section.
 */
export function fitText(markdown: string, maxChars: number): { markdown: string; truncated: boolean } {
  if (markdown.length <= maxChars) return { markdown, truncated: false };
  const lines = markdown.split('\n');
  const { kept, note } = cutToFit(
    lines,
    (line) => line.length,
    maxChars,
    (cutAt, used) => {
      const headings = lines
        .slice(cutAt)
        .filter((line) => /^#{1,6} /.test(line))
        .slice(0, 4)
        .map((line) => line.replace(/^#+ /, '').slice(0, 60));
      const next = headings.length ? `; next: ${headings.join(' | ')}` : '';
      return `[cut at maxChars=${maxChars}: ${markdown.length - used} more characters (${lines.length - cutAt} lines) not shown${next}. For more: a larger maxChars, or scope to a ref or selector]`;
    },
  );
  return { markdown: [...kept, note].join('\n'), truncated: true };
}
