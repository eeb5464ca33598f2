/**
 * Refs as one frame's document hands them out (`e12`, `f1e3`): an element
 * keeps its ref from one walk to the next, so refs an agent holds stay good
 * while their elements do; new elements get new numbers. What the walks of a
 * document leave for the next is kept in the world they run in.
 */

/** What the walk keeps in the isolated world, beside the result it returns. */
export interface WalkState {
  /** The refs of this frame's latest walk. */
  refs: Map<string, Element>;
  /** The highest ref number handed out in this document; new elements get the next. */
  highest: number;
  /** The iframe elements of the latest walk, by frame prefix. */
  frameElements: Map<string, Element>;
}

export class RefRegistry {
  readonly refs = new Map<string, Element>();
  highest: number;
  private readonly earlier = new Map<Element, string>();

  constructor(
    private readonly prefix: string,
    previous: WalkState | undefined,
  ) {
    for (const [ref, element] of previous?.refs ?? []) this.earlier.set(element, ref);
    this.highest = previous?.highest ?? 0;
  }

  refFor(el: Element): string {
    const kept = this.earlier.get(el);
    // A frame renumbered since (an iframe added before it) starts afresh: its refs carry the prefix.
    const ref = kept !== undefined && kept.startsWith(`${this.prefix}e`) && !this.refs.has(kept) ? kept : `${this.prefix}e${++this.highest}`;
    this.refs.set(ref, el);
    return ref;
  }
}

/** The ref a walk gave an element, or a new one later walks keep while it lives (a located element's, walk.ts's `refof`). */
export function refOfElement(state: WalkState, element: Element): string {
  for (const [ref, known] of state.refs) if (known === element) return ref;
  const ref = `e${++state.highest}`;
  state.refs.set(ref, element);
  return ref;
}
