import { type Concealment, type OutlineNode, TEXT_ROLE } from './outline-node.js';
import type { Pending } from './page-covers.js';
import { clip, collapse, TEXT_MAX } from './words.js';

/**
 * The walk's runs of text (walk.ts): the words of text nodes and inline
 * elements flow together into one `- text` node, written where the run
 * ends, among the nodes of the element it is in. Text a person cannot see
 * is counted as one block per element it starts at, and written (marked
 * hidden) only when asked.
 */

/** A node whose fate waits for the whole page (page-sight.ts settle): runs of text, headings. */
export interface Waiting extends Pending {
  node: OutlineNode;
  /** The words waiting are the text `node` took onto its line, not the node itself. */
  inline?: boolean;
}

export class TextRuns {
  /** The text node written last, until an element's node follows it: its parent may take it onto its own line. */
  last: OutlineNode | null = null;
  private text = '';
  private into: OutlineNode[] | null = null;
  /** Where the run's first words are (for a cover found later). */
  private owner: Element | null = null;
  /** The run is text in its background's colour (settled at the end). */
  private same = false;
  /** Shown when asked: why the run cannot be seen. */
  private mark: Concealment = '';

  constructor(
    private readonly showHidden: boolean,
    private readonly hiddenBlocks: Set<Element>,
    private readonly waiting: Waiting[],
  ) {}

  /** Words a person can see, into the nodes `into` (their element's). */
  append(data: string, into: OutlineNode[], owner: Element, same: boolean): void {
    if (this.text && (this.into !== into || this.mark || same !== this.same)) this.flush();
    if (!this.text) {
      this.owner = owner;
      this.same = same;
    }
    this.text += data;
    this.into = into;
  }

  /** Whitespace joins a run, never starts one. */
  space(data: string): void {
    if (this.text) this.text += data;
  }

  /** Words a person cannot see: one block per element they start at, written only when asked. */
  hidden(data: string, into: OutlineNode[], reason: Concealment, from: Element): void {
    this.hiddenBlocks.add(from);
    if (!this.showHidden) return;
    if (this.text && (this.mark !== reason || this.into !== into)) this.flush();
    this.text += data;
    this.mark = reason;
    this.into = into;
  }

  flush(): void {
    const text = collapse(this.text);
    const { owner, mark, same, into } = this;
    this.text = '';
    this.owner = null;
    this.mark = '';
    this.same = false;
    if (!text || !into) return;
    const node: OutlineNode = { role: TEXT_ROLE, text: clip(text, TEXT_MAX) };
    if (mark) node.hidden = mark;
    into.push(node);
    this.last = node;
    if (owner && !mark) this.waiting.push({ node, owner, sameColour: same });
  }
}
