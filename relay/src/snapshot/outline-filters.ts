import { type FlatNode, flatten, type OutlineNode } from '../page-runtime/outline-node.js';
import { ITEM_ROLES } from '../page-runtime/role-sets.js';
import { BadRequestError } from '../errors.js';
import { fullLine, isText } from './outline-render.js';

/**
 * The lean views of an outline, on its nodes (pure, so they are tested
 * without a browser): only what can be acted on, only what matches a search,
 * only so many levels. Each keeps a node's place among what it keeps: a node
 * kept sits under its nearest kept ancestor. A view may end with a note
 * saying what it left out.
 */

/** A forest, and what a view says of it after its nodes. */
export interface Shaped {
  roots: OutlineNode[];
  notes: string[];
}

export const LANDMARKS = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'region', 'form', 'dialog', 'search', 'iframe']);
/** What a control that has no name of its own is told apart by: the item (row, list item, cell) it sits in. */
const CONTEXT_ROLES = new Set([...ITEM_ROLES, 'cell', 'gridcell', 'option', 'treeitem']);
/** How much of an item's text names a control in it. */
const CONTEXT_CHARS = 60;
/** At most this many matches of a find are shown; a note says how many more there are. */
export const FIND_LIMIT = 20;

/**
 * Only what can be acted on, each under the landmarks it sits in, with the
 * nearest heading before it for context. Nesting among what is kept stays.
 * Links keep their names and lose their URL (what they do is said by their
 * name; the URL is the full outline's to show), and a control with no name
 * of its own says which item it sits in (`[in="…"]`: a list's row, a
 * table's row or cell), so that a row's checkbox is told from the next one's.
 */
export function interactiveOnly(roots: OutlineNode[]): OutlineNode[] {
  const flat = flatten(roots);
  const keep = new Array<boolean>(flat.length).fill(false);
  let lastHeading = -1;
  flat.forEach(({ node, parent }, index) => {
    if (node.role === 'heading') lastHeading = index;
    // Items (a list's, a table's rows and headers) carry refs to be acted on when needed; the lean view leaves them out.
    // An item that is a control too (its row opens a mail) stays.
    if (node.ref === undefined || (ITEM_ROLES.has(node.role) && !node.control)) return;
    keep[index] = true;
    if (lastHeading >= 0) keep[lastHeading] = true;
    for (let up = parent; up >= 0; up = flat[up].parent) if (LANDMARKS.has(flat[up].node.role)) keep[up] = true;
  });
  return kept(flat, keep, (node, index) => withContext(flat, index, { ...node, url: undefined }));
}

/**
 * The nodes that match `query` (a text, found whatever its case; or a
 * regular expression written `/…/flags`), each under its path (its
 * landmarks, the named elements it is in and its row, each shown once), with
 * the controls of the row it is in, at most FIND_LIMIT of them: what an agent
 * on a long page asks for instead of reading it. A node is matched on what
 * its line says (role, name, text, states), not on its ref or URL.
 */
export function findNodes(roots: OutlineNode[], query: string): Shaped {
  const matches = matcher(query);
  const flat = flatten(roots);
  // What a line says, not where it points or its handle: `os.path` should not find every link into os.html.
  const found = flat.flatMap(({ node, depth }, index) => (matches(fullLine(node, depth, { ref: false, url: false })) ? [index] : []));
  if (!found.length) return { roots: [], notes: [`[find ${JSON.stringify(query)}: nothing on the page matches]`] };
  const keep = new Array<boolean>(flat.length).fill(false);
  // The path to a match is what tells it apart: its landmarks, the named things it is in, and its own row; not the unnamed lists and wrappers between.
  const keepWithPath = (index: number, item: number) => {
    keep[index] = true;
    for (let up = flat[index].parent; up >= 0; up = flat[up].parent) {
      if (up === item || LANDMARKS.has(flat[up].node.role) || flat[up].node.name !== undefined) keep[up] = true;
    }
  };
  const shown = found.slice(0, FIND_LIMIT);
  for (const index of shown) {
    const item = CONTEXT_ROLES.has(flat[index].node.role) ? index : itemOf(flat, index);
    keepWithPath(index, item);
    if (item < 0) continue;
    // A match in a row (a list item, a table row, a cell) brings the row's own controls: a todo found by its words, with its checkbox.
    for (let below = item + 1; below < flat.length && isBelow(flat, below, item); below++) {
      if (flat[below].node.ref !== undefined && !CONTEXT_ROLES.has(flat[below].node.role) && itemOf(flat, below) === item) keepWithPath(below, item);
    }
  }
  // A control found by itself says which row it is in; one brought in by its row's words needs not.
  const matched = new Set(shown);
  const out = kept(flat, keep, (node, index) => (matched.has(index) ? withContext(flat, index, node) : { ...node }));
  return {
    roots: out,
    notes: found.length > FIND_LIMIT ? [`[find ${JSON.stringify(query)}: ${found.length} matches, the first ${FIND_LIMIT} shown: narrow it]`] : [],
  };
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

/** Nodes deeper than `depth` levels (1 = top level only) are left out, and a note says how many; a line whose children went still ends with a colon. */
export function limitDepth(roots: OutlineNode[], depth: number): Shaped {
  let hidden = 0;
  let hiddenRefs = 0;
  const cut = (nodes: OutlineNode[], level: number): OutlineNode[] => {
    const out: OutlineNode[] = [];
    for (const node of nodes) {
      if (level >= depth) {
        for (const { node: below } of flatten([node])) {
          hidden++;
          if (below.ref !== undefined) hiddenRefs++;
        }
      } else if (!node.children) out.push(node);
      else {
        const children = cut(node.children, level + 1);
        out.push(children.length ? { ...node, children } : { ...node, children: undefined, folded: true });
      }
    }
    return out;
  };
  const out = cut(roots, 0);
  return {
    roots: out,
    notes: hidden ? [`[depth=${depth}: ${hidden} deeper lines not shown (${hiddenRefs} with refs); raise depth, or scope to the ref of a section]`] : [],
  };
}

/** The kept nodes, nested as they were among themselves: each under its nearest kept ancestor. */
function kept(flat: FlatNode[], keep: boolean[], shown: (node: OutlineNode, index: number) => OutlineNode): OutlineNode[] {
  const roots: OutlineNode[] = [];
  const copies = new Map<number, OutlineNode>();
  flat.forEach(({ node, parent }, index) => {
    if (!keep[index]) return;
    const copy = { ...shown(node, index), children: undefined as OutlineNode[] | undefined };
    copies.set(index, copy);
    let up = parent;
    while (up >= 0 && !keep[up]) up = flat[up].parent;
    if (up < 0) roots.push(copy);
    else (copies.get(up)!.children ??= []).push(copy);
  });
  return roots;
}

/** A control with a ref and no name of its own, given the words of the item it sits in (`[in="…"]`); any other node as it is. */
function withContext(flat: FlatNode[], index: number, node: OutlineNode): OutlineNode {
  if (node.ref === undefined || ITEM_ROLES.has(node.role) || node.name !== undefined) return node;
  const item = itemOf(flat, index);
  if (item < 0) return node;
  const words = itemText(flat, item, index);
  if (!words) return node;
  return { ...node, context: words.length > CONTEXT_CHARS ? `${words.slice(0, CONTEXT_CHARS - 1)}…` : words };
}

/** The nearest row, list item or cell a node sits in (-1: none). */
function itemOf(flat: FlatNode[], index: number): number {
  let item = flat[index].parent;
  while (item >= 0 && !CONTEXT_ROLES.has(flat[item].node.role)) item = flat[item].parent;
  return item;
}

/** The words of an item: its own name and text; only when it has none, the names of the other things in it (a row of links says them). */
function itemText(flat: FlatNode[], item: number, control: number): string {
  const texts: string[] = [];
  const names: string[] = [];
  for (let index = item + 1; index < flat.length && isBelow(flat, index, item); index++) {
    if (index === control) continue;
    const { node } = flat[index];
    if (isText(node)) texts.push(node.text ?? '');
    else if (node.name) names.push(node.name);
  }
  const own = flat[item].node.name;
  const words = own ? [own] : texts.length ? texts : names;
  return words.join(' ').replace(/\s+/g, ' ').trim();
}

function isBelow(flat: FlatNode[], index: number, ancestor: number): boolean {
  for (let up = flat[index].parent; up >= 0; up = flat[up].parent) if (up === ancestor) return true;
  return false;
}
