/**
 * The outline as data: what the walk (walk.ts) finds of a page, node by
 * node, and all that the Node side shapes and renders (snapshot/). One type
 * for both sides: the walk builds these in the page, outline-wire.ts carries
 * them across the protocol, and snapshot/outline-render.ts writes each as
 * one line, only at the very end.
 *
 * Strings here are the page's words as the walk read them (whitespace
 * collapsed, clipped to what a line shows); nothing is escaped yet: the
 * renderer does that, once, for every string alike.
 */

/** Why a person cannot see something; '' when they can (page-sight.ts names each rule). */
export type Concealment = '' | 'opacity' | 'clipped' | 'scaled' | 'off-screen' | 'tiny' | 'colour' | 'covered';

/** The role of a run of text: `- text: "…"`. */
export const TEXT_ROLE = 'text';

/** One line of the outline: an element an agent may read or act on, or a run of text (role `text`). */
export interface OutlineNode {
  role: string;
  name?: string;
  /** A text node's words; or an element's only text, taken onto its own line (`- listitem: "Apples"`). */
  text?: string;
  ref?: string;
  /** A heading's level, as the page gave it. */
  level?: string;
  checked?: true | 'mixed';
  pressed?: true;
  disabled?: true;
  /** aria-expanded, or a <details>' summary: true open, false closed, absent when it says neither. */
  expanded?: boolean;
  selected?: true;
  required?: true;
  readonly?: true;
  focused?: true;
  /** A field's value exactly as it holds it (whitespace and all), its start when long: `valueMore` says how many characters follow. */
  value?: string;
  valueMore?: number;
  /** A link's address: a path on the page's own origin, else whole. */
  url?: string;
  draggable?: true;
  /** An item (a list's, a table's) that is a control too (it listens for a click, a pointer cursor starts on it): the lean view keeps it. */
  control?: true;
  /** A drop-down's choices by label (the first of them), always present on one; `moreOptions` says how many more. */
  options?: string[];
  moreOptions?: number;
  /** An iframe's frame prefix (`f1`): the Node side puts that frame's nodes under it. */
  frame?: string;
  /** Shown only when asked for what a person cannot see: why nobody can see this node. */
  hidden?: Concealment;
  /** Why nobody can see the text taken onto this node's line (the words are hidden, not the element). */
  textHidden?: Concealment;
  /** In a lean outline (interactive, find): the words of the item an unnamed control sits in. */
  context?: string;
  children?: OutlineNode[];
  /** In a view cut to a depth: its children were left out, and its line still says it has some. */
  folded?: true;
}

/** What a ref stands for, kept with a tab's latest snapshot: what a locator or a label needs without reading any text. */
export interface RefFacts {
  ref: string;
  role: string;
  name?: string;
  /** The frame prefix ('' for the main frame). */
  frame: string;
}

/** Every node of a forest in document order, each with its depth and its parent's index (-1 at the top). */
export interface FlatNode {
  node: OutlineNode;
  depth: number;
  parent: number;
}

export function flatten(roots: OutlineNode[]): FlatNode[] {
  const out: FlatNode[] = [];
  const visit = (nodes: OutlineNode[], depth: number, parent: number): void => {
    for (const node of nodes) {
      const index = out.push({ node, depth, parent }) - 1;
      if (node.children) visit(node.children, depth + 1, index);
    }
  };
  visit(roots, 0, -1);
  return out;
}
