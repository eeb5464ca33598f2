import type { ActionResult } from './responses.js';
import { fenced, fencedAfterNotes } from './page-content.js';

/**
 * An act's answer as an agent reads it, in the CLI's plain output and in
 * MCP's `browser_act` alike (spec §26: every rendering says it), built from
 * the answer's data, never from text: the first line is clawd's words (what
 * the act did, or that nothing changed with what to try, and the target's
 * state that turned), then the page's words, inside the answer's fence
 * (api/page-content.ts): a value the field shows, what a press at a point
 * hit, the text selected, what the act set off (dialogs, downloads, new
 * tabs), and the page's title and URL when they changed. An agent that
 * reads this needs no snapshot to know whether its act worked.
 */

export interface ActAnswerOptions {
  /** The URL this reader last saw for the tab (an MCP session's): a tab another client moved is said to have navigated. */
  previousUrl?: string;
  /** The page's diff since the last snapshot, when the act did not navigate (MCP asks for one). */
  diff?: string;
}

/** Above this, a value or a selection in the answer is cut, with the length said. */
const SHOWN_CHARS = 300;

export function actAnswer(result: ActionResult, options: ActAnswerOptions = {}): string {
  const { kind } = result;
  const page: string[] = [];
  if ('result' in result) page.push(`→ ${JSON.stringify(result.result)?.slice(0, 2_000)}`);
  if (result.hit)
    page.push(
      `at the point: ${result.hit.role}${result.hit.name ? ` ${JSON.stringify(result.hit.name)}` : ''}${result.hit.ref ? ` [ref=${result.hit.ref}]` : ''}`,
    );
  // A typed or chosen value is what was asked for: not repeated. A checkbox that turned, a menu that opened, is said.
  const told = Object.entries(result.state ?? {}).filter(([key]) => !(key === 'value' && ['type', 'fill', 'select'].includes(kind)));
  const flags = told.filter(([, now]) => typeof now !== 'string' || now === 'true' || now === 'false');
  for (const [key, now] of told) if (!flags.some(([flag]) => flag === key)) page.push(`${key}: ${JSON.stringify(now)}`);
  if (typeof result.shows === 'string') page.push(`the field shows ${quoted(result.shows)}`);
  if (typeof result.selection === 'string') page.push(`selected ${quoted(result.selection)}`);
  if (kind === 'select' && Array.isArray(result.selected))
    page.push(`chosen: ${(result.selected as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`);

  const said = [...flags.map(([key, now]) => `${key}: ${JSON.stringify(now)}`), ...howItWent(result)];
  const state = said.length ? ` (${said.join('; ')})` : '';
  // The common path costs what it did ("click: done"); no reaction is said, with what to try.
  const lines = [
    result.changed === false
      ? `${kind}: nothing changed${state}. ${result.hint ?? ''}`.trimEnd()
      : `${kind}: done${state}${result.hint ? `; ${result.hint}` : ''}`,
  ];
  if (result.confirmed)
    lines.push(
      result.confirmed.by === 'person'
        ? `A person said yes (rule ${result.confirmed.rule}).`
        : `Pre-approved for this session (rule ${result.confirmed.rule}).`,
    );
  for (const event of result.events ?? []) page.push(`- ${event}`);

  if (result.url === undefined) lines.push('The tab closed.');
  else if (result.navigated || (options.previousUrl !== undefined && options.previousUrl !== result.url)) {
    lines.push('Navigated; take a snapshot to see the page.');
    page.push(`${result.url} ${JSON.stringify(result.title ?? '')}`);
  } else {
    if (result.retitled) page.push(`title: ${JSON.stringify(result.title ?? '')}`);
    // How many of the diff's first lines are clawd's notes, the answer says (never read from the lines).
    const notes = result.diffLeadingNotes ?? 0;
    if (options.diff) return [...lines, fencedAfterNotes(result.fence, page.join('\n') || undefined, terseDiff(options.diff, notes), notes)].join('\n');
  }
  if (page.length) lines.push(fenced(result.fence, page));
  return lines.join('\n');
}

/** How the input went in, when not simply as asked: clawd's words. */
function howItWent(result: ActionResult): string[] {
  const how: string[] = [];
  if (result.retyped) how.push('typed again key by key: the field did not take it at once');
  else if (result.typedAs === 'keys') how.push('typed as keys at the caret');
  if (result.selectedBy === 'script')
    how.push("the mouse could not select it: selected by the page's Selection API, which the page's mouse handlers did not see");
  if (result.occurrences !== undefined && (result.occurrences as number) > 1)
    how.push(`the first of ${result.occurrences} places the text is; give more of it to choose another`);
  if (result.kind === 'fill' && typeof result.filled === 'number' && result.filled > 1) how.push(`${result.filled} fields`);
  return how;
}

/** A page's text quoted exactly, cut past SHOWN_CHARS with how long it is. */
function quoted(text: string): string {
  return text.length > SHOWN_CHARS ? `${JSON.stringify(text.slice(0, SHOWN_CHARS))}… (${text.length} characters)` : JSON.stringify(text);
}

/**
 * An act's diff with a shorter first note: its lines' marks (+ ~ -) already say what each is, and
 * an agent acts on what changed, not on how much did not, so the counts are left out.
 */
function terseDiff(diff: string, leadingNotes: number): string {
  // Only a note of clawd's is reworded: the first line is one when the answer counts it as such.
  return leadingNotes ? diff.replace(/^\[since the previous snapshot: [^\]\n]*\]/, '[changes since the last snapshot]') : diff;
}
