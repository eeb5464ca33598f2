import type { Concealment } from './outline-node.js';
import type { PaintMath } from './page-paint.js';

/**
 * What may be painted over a page's text or under it (page-sight.ts's
 * `covered` and `colour` rules): opaque positioned boxes that may cover it,
 * and boxes that paint something the DOM cannot tell (an image, a colour)
 * under text in its background's colour. Boxes are noted as the walk meets
 * them; each text's fate is settled once every box is known.
 */

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A run of text (or a line) whose fate waits for the whole page: colour suspects, and anything an opaque box may cover. */
export interface Pending {
  owner: Element;
  /** Its colour matched the background the DOM shows: hidden unless something else is painted under it. */
  sameColour: boolean;
}

const COVER_MIN_PX = 10;

export const boxOf = (element: Element): Box => {
  const rect = element.getBoundingClientRect();
  return { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
};
export const overlaps = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const holds = (outer: Box, inner: Box): boolean =>
  inner.left >= outer.left - 1 && inner.right <= outer.right + 1 && inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
const zIndex = (style: CSSStyleDeclaration): number => (style.zIndex === 'auto' ? 0 : Number(style.zIndex) || 0);

/** The z-index text paints at: its nearest positioned ancestor's; null in the page's flow (under every positioned box). */
function paintLevel(element: Element): number | null {
  for (let node: Element | null = element; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.position !== 'static') return zIndex(style);
  }
  return null;
}

function isFixed(element: Element): boolean {
  for (let node: Element | null = element; node && node !== document.body; node = node.parentElement)
    if (getComputedStyle(node).position === 'fixed') return true;
  return false;
}

export class Covers {
  private readonly covers: Array<{ element: Element; box: Box; z: number; fixed: boolean }> = [];
  private readonly painters: Array<{ element: Element; box: Box }> = [];
  private readonly seen = new WeakSet<Element>();

  constructor(
    private readonly paint: PaintMath,
    private readonly viewWidth: number,
    private readonly viewHeight: number,
  ) {}

  /** A box as met (a positioned box is measured anyway): one that paints, and one that may cover text. */
  note(element: Element, style: CSSStyleDeclaration, box: Box, hidden: boolean): void {
    if (this.seen.has(element)) return;
    this.seen.add(element);
    const { rgba } = this.paint;
    const tag = element.localName;
    const paints =
      style.backgroundImage !== 'none' ||
      ['img', 'video', 'canvas', 'svg', 'picture', 'iframe', 'object', 'embed'].includes(tag) ||
      (rgba(style.backgroundColor)?.[3] ?? 0) > 0;
    if (!paints) return;
    this.painters.push({ element, box });
    const colour = rgba(style.backgroundColor);
    const fixed = style.position === 'fixed';
    const whole = box.left <= 0 && box.top <= 0 && box.right >= this.viewWidth && box.bottom >= this.viewHeight;
    // A fixed box covers what scrolls under it only when it fills the whole window; a small one (a header) is scrolled past.
    if (hidden || !colour || colour[3] < 0.99 || parseFloat(style.opacity) < 1 || (fixed && !whole)) return;
    if (box.right - box.left < COVER_MIN_PX || box.bottom - box.top < COVER_MIN_PX) return;
    this.covers.push({ element, box, z: zIndex(style), fixed });
  }

  any(): boolean {
    return this.covers.length > 0;
  }

  /** '' or why each pending run is not seen, once every box of the page is known. */
  settle(pending: Pending[]): Concealment[] {
    const { covers, painters } = this;
    const levels = new Map<Element, number | null>();
    return pending.map(({ owner, sameColour }) => {
      if (!sameColour && !covers.length) return '';
      const box = boxOf(owner);
      if (box.right - box.left <= 0 || box.bottom - box.top <= 0) return '';
      if (sameColour && !painters.some((painter) => !painter.element.contains(owner) && overlaps(painter.box, box))) return 'colour';
      for (const cover of covers) {
        if (cover.element.contains(owner) || owner.contains(cover.element)) continue;
        // A cover that fills the window hides whatever scrolls under it; another, what lies wholly under it.
        if (cover.fixed ? isFixed(owner) && !holds(cover.box, box) : !holds(cover.box, box)) continue;
        if (!levels.has(owner)) levels.set(owner, paintLevel(owner));
        const level = levels.get(owner)!;
        // Positioned boxes paint over the page's flow (unless below zero); among positioned ones, the higher z, then the later.
        const after = !!(owner.compareDocumentPosition(cover.element) & Node.DOCUMENT_POSITION_FOLLOWING);
        if (level === null ? cover.z >= 0 : cover.z > level || (cover.z === level && after)) return 'covered';
      }
      return '';
    });
  }
}
