/**
 * Shaping an `ai` outline for a token budget, on the text alone (pure, so it
 * is tested without a browser): only what can be acted on, only what matches
 * a search, a depth, a character budget with a marker that says what was cut
 * and how to see it, and a diff against the previous outline of the tab.
 *
 * An outline line is `<2 spaces per level>- role "name" [attrs]` (or
 * `- text: "..."`); lines starting with `[` are notes, not page content.
 */
import { BadRequestError } from '../errors.js';

const LANDMARKS = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'region', 'form', 'dialog', 'search', 'iframe']);
/** Landmarks a page has once, which a snapshot's `selector` scope matches by their role word (page-script.ts). */
const SCOPABLE_LANDMARKS = new Set(['main', 'banner', 'contentinfo', 'search']);

interface Line {
  text: string;
  level: number;
  role: string;
  hasRef: boolean;
  parent: number;
}

function parse(lines: string[]): Line[] {
  const parsed: Line[] = [];
  const stack: number[] = [];
  for (const text of lines) {
    const spaces = text.length - text.trimStart().length;
    const level = Math.floor(spaces / 2);
    while (stack.length && parsed[stack[stack.length - 1]].level >= level) stack.pop();
    const role = /^\s*- ([a-z]+)/.exec(text)?.[1] ?? '';
    parsed.push({ text, level, role, hasRef: text.includes('[ref='), parent: stack.length ? stack[stack.length - 1] : -1 });
    stack.push(parsed.length - 1);
  }
  return parsed;
}

/** What one outline line says of its element: its role, and its name and ref when it has them. */
export interface OutlineEntry {
  role: string;
  name?: string;
  ref?: string;
}

const ENTRY = /^\s*- ([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?/;
/** The ref comes last on its line: the last `[ref=…]` is it, whatever the name holds. */
const LAST_REF = /.*\[ref=((?:f\d+)?e\d+)\]/;

/** A line of an outline as its parts (undefined for a note or a text line). */
export function outlineEntry(line: string): OutlineEntry | undefined {
  const match = ENTRY.exec(line);
  if (!match) return undefined;
  const ref = LAST_REF.exec(line)?.[1];
  return { role: match[1], ...(match[2] ? { name: JSON.parse(match[2]) as string } : {}), ...(ref ? { ref } : {}) };
}

function reindent(text: string, level: number): string {
  return '  '.repeat(level) + text.trimStart();
}

/**
 * Only what can be acted on, each under the landmarks it sits in, with the
 * nearest heading before it for context. Nesting among what is kept stays.
 * Links keep their names and lose their `[url=…]` (what they do is said by
 * their name; the URL is the full outline's to show), and a control with no
 * name of its own says which item it sits in (`[in="…"]`: a list's row, a
 * table's row or cell), so that a row's checkbox is told from the next one's.
 */
const ITEM_ROLES = new Set(['listitem', 'row', 'columnheader', 'rowheader']);
/** What a control that has no name of its own is told apart by: the item (row, list item, cell) it sits in. */
const CONTEXT_ROLES = new Set([...ITEM_ROLES, 'cell', 'gridcell', 'option', 'treeitem']);
/** How much of an item's text names a control in it. */
const CONTEXT_CHARS = 60;

export function interactiveOnly(lines: string[]): string[] {
  const parsed = parse(lines);
  const keep = new Array<boolean>(parsed.length).fill(false);
  let lastHeading = -1;
  parsed.forEach((line, index) => {
    if (line.role === 'heading') lastHeading = index;
    // Items (a list's, a table's rows and headers) carry refs to be acted on when needed; the lean view leaves them out.
    if (!line.hasRef || ITEM_ROLES.has(line.role)) return;
    keep[index] = true;
    if (lastHeading >= 0) keep[lastHeading] = true;
    for (let up = line.parent; up >= 0; up = parsed[up].parent) if (LANDMARKS.has(parsed[up].role)) keep[up] = true;
  });
  return kept(parsed, keep, (line, index) => withContext(parsed, index, line.replace(URL_ATTRIBUTE, '')));
}

/** At most this many matches of a find are shown; a note says how many more there are. */
export const FIND_LIMIT = 20;
const URL_ATTRIBUTE = / \[url=[^\]]*\]/;

/**
 * The lines that match `query` (a text, found whatever its case; or a
 * regular expression written `/…/flags`), each under its path (its
 * landmarks, the named elements it is in and its row, each shown once), with
 * the controls of the row it is in, at most FIND_LIMIT of them: what an agent
 * on a long page asks for instead of reading it. A line is matched on what
 * it says (role, name, text, states), not on its ref or URL.
 */
export function findLines(lines: string[], query: string): string[] {
  const matches = matcher(query);
  const parsed = parse(lines);
  // What a line says, not where it points or its handle: `os.path` should not find every link into os.html.
  const found = parsed.flatMap((line, index) => (matches(line.text.replace(/ \[(?:ref|url)=[^\]]*\]/g, '')) ? [index] : []));
  if (!found.length) return [`[find ${JSON.stringify(query)}: nothing on the page matches]`];
  const keep = new Array<boolean>(parsed.length).fill(false);
  // The path to a match is what tells it apart: its landmarks, the named things it is in, and its own row; not the unnamed lists and wrappers between.
  const keepWithPath = (index: number, item: number) => {
    keep[index] = true;
    for (let up = parsed[index].parent; up >= 0; up = parsed[up].parent) {
      if (up === item || LANDMARKS.has(parsed[up].role) || outlineEntry(parsed[up].text)?.name !== undefined) keep[up] = true;
    }
  };
  const shown = found.slice(0, FIND_LIMIT);
  for (const index of shown) {
    const item = CONTEXT_ROLES.has(parsed[index].role) ? index : itemOf(parsed, index);
    keepWithPath(index, item);
    if (item < 0) continue;
    // A match in a row (a list item, a table row, a cell) brings the row's own controls: a todo found by its words, with its checkbox.
    for (let below = item + 1; below < parsed.length && isBelow(parsed, below, item); below++) if (parsed[below].hasRef && !CONTEXT_ROLES.has(parsed[below].role) && itemOf(parsed, below) === item) keepWithPath(below, item);
  }
  // A control found by itself says which row it is in; one brought in by its row's words needs not.
  const matched = new Set(shown);
  const out = kept(parsed, keep, (line, index) => (matched.has(index) ? withContext(parsed, index, line) : line));
  return found.length > FIND_LIMIT ? [...out, `[find ${JSON.stringify(query)}: ${found.length} matches, the first ${FIND_LIMIT} shown: narrow it]`] : out;
}

/** `/pattern/flags` is a regular expression; anything else a text, matched whatever its case. */
function matcher(query: string): (text: string) => boolean {
  const written = /^\/(.+)\/([a-z]*)$/s.exec(query);
  if (written) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(written[1], written[2].replace('g', ''));
    } catch (error) {
      throw new BadRequestError(`Invalid find ${JSON.stringify(query)}: ${(error as Error).message}. Write a text, or a regular expression as /pattern/flags`);
    }
    return (text) => pattern.test(text);
  }
  const wanted = query.toLowerCase();
  return (text) => text.toLowerCase().includes(wanted);
}

/** The kept lines, nested as they were among themselves; a line whose children were all left out no longer introduces anything. */
function kept(parsed: Line[], keep: boolean[], shown: (text: string, index: number) => string): string[] {
  const out: string[] = [];
  parsed.forEach((line, index) => {
    if (!keep[index]) return;
    let level = 0;
    for (let up = line.parent; up >= 0; up = parsed[up].parent) if (keep[up]) level++;
    const hasKeptChild = parsed.some((_other, i) => i > index && keep[i] && isBelow(parsed, i, index));
    out.push(reindent(shown(hasKeptChild || !line.text.endsWith(':') ? line.text : line.text.slice(0, -1), index), level));
  });
  return out;
}

/** A control line with a ref and no name of its own, given the text of the item it sits in (`[in="…"]`, before its ref); any other line as it is. */
function withContext(parsed: Line[], index: number, text: string): string {
  const line = parsed[index];
  if (!line.hasRef || ITEM_ROLES.has(line.role) || outlineEntry(line.text)?.name !== undefined) return text;
  const item = itemOf(parsed, index);
  if (item < 0) return text;
  const words = itemText(parsed, item, index);
  if (!words) return text;
  const shown = words.length > CONTEXT_CHARS ? `${words.slice(0, CONTEXT_CHARS - 1)}…` : words;
  return text.replace(/ \[ref=/, ` [in=${JSON.stringify(shown)}] [ref=`);
}

/** The nearest row, list item or cell a line sits in (-1: none). */
function itemOf(parsed: Line[], index: number): number {
  let item = parsed[index].parent;
  while (item >= 0 && !CONTEXT_ROLES.has(parsed[item].role)) item = parsed[item].parent;
  return item;
}

/** The words of an item: its own name and text; only when it has none, the names of the other things in it (a row of links says them). */
function itemText(parsed: Line[], item: number, control: number): string {
  const texts: string[] = [];
  const names: string[] = [];
  const own = outlineEntry(parsed[item].text)?.name;
  for (let index = item + 1; index < parsed.length && isBelow(parsed, index, item); index++) {
    if (index === control) continue;
    const text = /^\s*- text(?: \[[^\]]*\])*: (.*)$/.exec(parsed[index].text)?.[1];
    if (text !== undefined) texts.push(text.replace(/^"(.*)"$/, '$1'));
    else {
      const name = outlineEntry(parsed[index].text)?.name;
      if (name) names.push(name);
    }
  }
  const words = own ? [own] : texts.length ? texts : names;
  return words.join(' ').replace(/\s+/g, ' ').trim();
}

function isBelow(parsed: Line[], index: number, ancestor: number): boolean {
  for (let up = parsed[index].parent; up >= 0; up = parsed[up].parent) if (up === ancestor) return true;
  return false;
}

/** Lines deeper than `depth` levels (1 = top level only) are left out, and a note says how many. */
export function limitDepth(lines: string[], depth: number): string[] {
  const parsed = parse(lines);
  const out: string[] = [];
  let hidden = 0;
  let hiddenRefs = 0;
  for (const line of parsed) {
    if (line.level < depth) out.push(line.text);
    else {
      hidden++;
      if (line.hasRef) hiddenRefs++;
    }
  }
  if (hidden) out.push(`[depth=${depth}: ${hidden} deeper lines not shown (${hiddenRefs} with refs); raise depth, or scope to the ref of a section]`);
  return out;
}

/**
 * Whole lines kept from the start while they and the note about the rest fit
 * in `maxChars` together: the note is part of the answer. `noteFor` says what
 * the lines from `cutAt` on hold, and how much of the text (`used`
 * characters, newlines included) was kept.
 */
export function cutToFit(lines: string[], maxChars: number, noteFor: (cutAt: number, used: number) => string): string[] {
  let used = 0;
  let cutAt = 0;
  while (cutAt < lines.length && used + lines[cutAt].length + 1 <= maxChars) used += lines[cutAt++].length + 1;
  while (cutAt > 0 && used + noteFor(cutAt, used).length > maxChars) used -= lines[--cutAt].length + 1;
  return [...lines.slice(0, cutAt), noteFor(cutAt, used)];
}

/**
 * Keeps whole lines while they fit in `maxChars`, then says what was cut:
 * how many lines and refs, and the first sections in the cut part, so the
 * agent can ask for one of them (scope) or for more.
 */
export function fitBudget(lines: string[], maxChars: number): string[] {
  const total = lines.reduce((sum, line) => sum + line.length + 1, 0);
  if (total <= maxChars) return lines;
  return cutToFit(lines, maxChars, (cutAt) => {
    const cut = parse(lines.slice(cutAt));
    const refs = cut.filter((line) => line.hasRef).length;
    const sections = cut
      .filter((line) => line.role === 'heading' || LANDMARKS.has(line.role))
      .slice(0, 4)
      .map((line) => {
        const named = line.text.trim().replace(/^- /, '').replace(/:$/, '').slice(0, 60);
        // A landmark a page has once is a scope by its role word, whether it is an element or a role attribute.
        return SCOPABLE_LANDMARKS.has(line.role) ? `${named} [selector=${line.role}]` : named;
      });
    const where = sections.length ? `; next: ${sections.join(' | ')}` : '';
    return `[cut at maxChars=${maxChars}: ${cut.length} more lines (${refs} with refs) not shown${where}. For more: find what you need, a larger maxChars, interactive, or scope to a ref or selector]`;
  });
}

interface DiffOp {
  /** ' ' same, '+' added, '-' removed, '~' changed (the new line), '=' the old line of a change (not shown). */
  kind: ' ' | '+' | '-' | '~' | '=';
  /** Index in the new outline, for context. */
  at: number;
  text: string;
}

/** In each run of changes, a removed and an added line of the same element become one changed line. */
function pairChanges(ops: DiffOp[]): void {
  for (let start = 0; start < ops.length; ) {
    if (ops[start].kind === ' ') {
      start++;
      continue;
    }
    let end = start;
    while (end < ops.length && ops[end].kind !== ' ') end++;
    const removed = ops.slice(start, end).filter((op) => op.kind === '-');
    for (const op of ops.slice(start, end)) {
      if (op.kind !== '+') continue;
      const match = removed.findIndex((old) => identity(old.text) === identity(op.text));
      if (match < 0) continue;
      removed[match].kind = '=';
      removed.splice(match, 1);
      op.kind = '~';
    }
    start = end;
  }
}

export interface OutlineDiff {
  lines: string[];
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** Above this many line pairs to compare, the changed middle is shown whole rather than diffed. */
const MAX_DIFF_CELLS = 4_000_000;

/** Focus moves with nearly every action; a diff that reported it would report noise. */
const FOCUS = / \[focused\]/;
const unfocused = (line: string) => line.replace(FOCUS, '');

/** `- role "name"` of a line, to pair an old and a new line of one element. */
function identity(line: string): string {
  return /^\s*- [a-z]+(?: "(?:[^"\\]|\\.)*")?/.exec(line)?.[0] ?? line;
}

/**
 * What changed between two outlines of one document: `+ ` added, `- `
 * removed, and `~ ` changed lines (an element whose states or value changed,
 * shown as it is now), each run of changes under its nearest unchanged
 * enclosing line (`  `) for context. Refs are stable between snapshots of a
 * document, so an unchanged element's line is unchanged. Focus alone is not
 * a change.
 */
export function diffOutlines(beforeLines: string[], afterLines: string[]): OutlineDiff {
  const before = beforeLines.map(unfocused);
  const after = afterLines.map(unfocused);
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const oldMiddle = before.slice(start, endBefore);
  const newMiddle = after.slice(start, endAfter);
  // Each entry: [kind, index in `after` (for context), text].
  const ops: DiffOp[] = [];
  if (oldMiddle.length * newMiddle.length > MAX_DIFF_CELLS) {
    for (const text of oldMiddle) ops.push({ kind: '-', at: start, text });
    newMiddle.forEach((text, i) => ops.push({ kind: '+', at: start + i, text }));
  } else {
    const n = oldMiddle.length;
    const m = newMiddle.length;
    // Longest common subsequence, suffix lengths.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] = oldMiddle[i] === newMiddle[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && oldMiddle[i] === newMiddle[j]) {
        ops.push({ kind: ' ', at: start + j, text: newMiddle[j] });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) {
        // Removals first, as diffs read.
        ops.push({ kind: '-', at: start + j, text: oldMiddle[i] });
        i++;
      } else {
        ops.push({ kind: '+', at: start + j, text: newMiddle[j] });
        j++;
      }
    }
  }
  pairChanges(ops);
  const added = ops.filter((op) => op.kind === '+').length;
  const removed = ops.filter((op) => op.kind === '-').length;
  const changed = ops.filter((op) => op.kind === '~').length;
  const unchanged = after.length - added - changed;
  const parsedAfter = parse(after);
  const shownContext = new Set<number>();
  const lines: string[] = [];
  let inRun = false;
  for (const op of ops) {
    if (op.kind === '=') continue;
    if (op.kind === ' ') {
      inRun = false;
      continue;
    }
    if (!inRun) {
      // The nearest unchanged line that encloses this run says where it is.
      const level = op.text.length - op.text.trimStart().length;
      let context = -1;
      for (let k = Math.min(op.at, after.length) - 1; k >= 0; k--) {
        const candidate = parsedAfter[k];
        if (candidate.level * 2 < level && !ops.some((o) => (o.kind === '+' || o.kind === '~') && o.at === k)) {
          context = k;
          break;
        }
      }
      if (context >= 0 && !shownContext.has(context)) {
        shownContext.add(context);
        lines.push(`  ${after[context]}`);
      }
      inRun = true;
    }
    lines.push(`${op.kind} ${op.text}`);
  }
  return { lines, added, removed, changed, unchanged };
}

/** The note a snapshot or page text starts with when words a person cannot see were left out (or shown, marked). */
export function hiddenNote(blocks: number, shown: boolean): string {
  const count = `${blocks} block${blocks === 1 ? '' : 's'}`;
  return shown ? `[hidden text shown, each marked [hidden=why]: ${count}]` : `[hidden text left out: ${count}]`;
}

