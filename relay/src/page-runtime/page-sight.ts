/**
 * What a person can see of a page (spec §20): the rules by which the
 * snapshot walk (walk.ts) and page text (markdown.ts) leave out
 * words nobody can see, so that text hidden on purpose (white on white,
 * zero-size, off-screen, under an opaque box…) never reaches an agent.
 *
 * Each walk makes a fresh one (it measures the page once), judging with the
 * colour and transform arithmetic of page-paint.ts.
 *
 * The rules, each with the name an answer gives it:
 * - `opacity`: an element (and so its subtree) at opacity 0.
 * - `clipped`: a box that clips its content to less than 2 px (overflow
 *   hidden on a zero or 1 px box: the `sr-only` pattern, a collapsed panel),
 *   `clip: rect(…)` or `clip-path` leaving nothing, or a box wholly outside an
 *   ancestor that clips it (a carousel's other slides).
 * - `scaled`: a transform that scales it to nothing.
 * - `off-screen`: a positioned box wholly where no scrolling reaches (left
 *   of or above the page, past its end when it cannot scroll there).
 * - `tiny`: text under 4 px, an image or frame under 2 px.
 * - `colour`: text painted transparent, or in (nearly) the colour behind it
 *   (contrast under 1.1) with nothing else painted under it.
 * - `covered`: text wholly under an opaque box painted above it.
 * Where the page paints something the DOM cannot tell (an image, a box
 * positioned over another), the background is unknown and text is kept.
 * So is text pushed aside by `text-indent` over a background image: that is
 * how a logo says its name, and the logo is what a person sees.
 *
 * What stays: whatever can be operated (the walk keeps every control, with
 * its accessible name, sr-only words included, and a focusable skip link
 * off-screen until focused), and whatever a person can scroll to.
 */

import type { Concealment } from './outline-node.js';
import { type Box, boxOf, Covers, overlaps, type Pending } from './page-covers.js';
import { type PaintMath, paintMath } from './page-paint.js';

/** Where an element's content is drawn, passed down the walk. */
export interface Scene {
  /** Why nothing of this subtree can be seen, from where it started. */
  hidden: Concealment;
  /** The element it started at: one block left out, however much it holds. */
  from: Element | null;
  /** The opacity it is painted with: its ancestors' multiplied. */
  alpha: number;
  /** How far an ancestor in motion will move it, [x, y]: boxes are judged where they will be. */
  shift: number[];
  /** The colour behind the content, [r, g, b]; null where the DOM cannot tell. */
  background: number[] | null;
  /** An ancestor paints its background through its text (background-clip: text): transparent text shows it. */
  textPaint: boolean;
  /** What ancestors clip the content to (overflow hidden or clip), in viewport CSS px. */
  clip: Box | null;
  /** The clipping ancestor is positioned, so it clips absolutely positioned descendants too. */
  clipPositioned: boolean;
  /** Inside a scroll container: a box outside the viewport may be scrolled to. */
  scrolls: boolean;
}

export interface Sight {
  /** The scene of the document's body. */
  top(): Scene;
  /** The scene an element's content is in; `hidden` set when the element itself hides it. */
  enter(element: Element, style: CSSStyleDeclaration, scene: Scene): Scene;
  /** Why the element's own text cannot be seen (tiny, transparent, pushed out), beyond its scene. */
  textHidden(element: Element, style: CSSStyleDeclaration, scene: Scene): Concealment;
  /** The element's text is in the colour of the background the DOM shows (decided at the end: `settle`). */
  sameColour(style: CSSStyleDeclaration, scene: Scene): boolean;
  /** An image or frame too small to show anything. */
  tinyBox(element: Element): boolean;
  /** Whether anything may cover text, so that every text line must wait for `settle`. */
  mayCover(): boolean;
  /** Decided at the end, once every box of the page is known: '' or why each pending run is not seen. */
  settle(pending: Pending[]): Concealment[];
  /** An element's scene, its ancestors' worked out first (page text, which does not pass scenes down). */
  sceneOf(element: Element): Scene;
  /** For page text, which meets boxes in no single pass: finds the page's covers and painters first. */
  survey(): void;
}

export function pageSight(paint: PaintMath = paintMath()): Sight {
  const OPACITY_MIN = 0.05;
  const TEXT_MIN_PX = 4;
  const BOX_MIN_PX = 2;
  const CONTRAST_MIN = 1.1;
  const FAR = 500;
  const MOTION_MS = 3_000;

  const viewWidth = innerWidth;
  const viewHeight = innerHeight;
  const root = document.documentElement;
  const pageWidth = Math.max(root.scrollWidth, viewWidth);
  const pageHeight = Math.max(root.scrollHeight, viewHeight);
  const scrollX = window.scrollX;
  const scrollY = window.scrollY;
  /** Opaque positioned boxes that may cover text, and positioned boxes that paint (under same-coloured text). */
  const covers = new Covers(paint, viewWidth, viewHeight);
  const scenes = new WeakMap<Element, Scene>();
  /** Whether a text colour on a background is (nearly) that background, by their values: a page has few of either. */
  const alike = new Map<string, boolean>();

  const { rgba, contrast, blend, scaledAway, clippedAway, pathLeavesNothing, shiftOf } = paint;

  const rootBackground = (): number[] | null => {
    if (/dark/.test(getComputedStyle(root).colorScheme)) return null;
    let background = [255, 255, 255];
    for (const element of [root, document.body]) {
      if (!element) continue;
      const style = getComputedStyle(element);
      if (style.backgroundImage !== 'none') return null;
      const colour = rgba(style.backgroundColor);
      if (!colour) return null;
      if (colour[3] > 0) background = blend(colour, background);
    }
    return background;
  };

  /**
   * Why an element hides its content, on its own (not its ancestors): its opacity, a transform, a clip, its
   * box. `shift` moves the box measured (a transform's end, for a box in motion).
   */
  const judge = (
    element: Element,
    style: CSSStyleDeclaration,
    scene: Scene,
    alpha: number,
    transform: string,
    position: string,
    overflows: boolean,
    shift = [0, 0],
  ): { hidden: Concealment; box: Box | null } => {
    const placed = position === 'absolute' || position === 'fixed';
    if (alpha < OPACITY_MIN) return { hidden: 'opacity', box: null };
    if (transform !== 'none' && scaledAway(transform)) return { hidden: 'scaled', box: null };
    if (placed && style.clip !== 'auto' && clippedAway(style.clip, BOX_MIN_PX)) return { hidden: 'clipped', box: null };
    if (style.clipPath !== 'none' && pathLeavesNothing(style.clipPath)) return { hidden: 'clipped', box: null };
    // Boxes are measured only where a style says they may be out of sight: the measure is the walk's dearest call.
    const far = position === 'relative' && (parseFloat(style.left) < -FAR || parseFloat(style.top) < -FAR);
    if (!(overflows || placed || transform !== 'none' || far)) return { hidden: '', box: null };
    const measured = boxOf(element);
    const box = { left: measured.left + shift[0], right: measured.right + shift[0], top: measured.top + shift[1], bottom: measured.bottom + shift[1] };
    const width = box.right - box.left;
    const height = box.bottom - box.top;
    if (overflows && (width < BOX_MIN_PX || height < BOX_MIN_PX) && element.firstChild) return { hidden: 'clipped', box };
    if (width <= 0 && height <= 0) return { hidden: '', box };
    if (position === 'fixed') {
      if (box.right <= 0 || box.bottom <= 0 || box.left >= viewWidth || box.top >= viewHeight) return { hidden: 'off-screen', box };
    } else if (!scene.scrolls && (box.right + scrollX <= 0 || box.bottom + scrollY <= 0 || box.left + scrollX >= pageWidth || box.top + scrollY >= pageHeight))
      return { hidden: 'off-screen', box };
    // Wholly outside what an ancestor clips to (an absolutely positioned box escapes an ancestor that is not positioned).
    if (scene.clip && position !== 'fixed' && (position !== 'absolute' || scene.clipPositioned) && !overlaps(box, scene.clip))
      return { hidden: 'clipped', box };
    return { hidden: '', box };
  };

  /** Where an element's running transitions and animations leave its opacity and transform, if they end within MOTION_MS. */
  const endOfMotion = (element: Element): { opacity?: number; transform?: string } | null => {
    const animations = (element as Element & { getAnimations?: () => Animation[] }).getAnimations?.() ?? [];
    let end: { opacity?: number; transform?: string } | null = null;
    for (const animation of animations) {
      if (animation.playState !== 'running' || !(animation.effect instanceof KeyframeEffect)) continue;
      const timing = animation.effect.getComputedTiming();
      const left = Number(timing.endTime) - Number(animation.currentTime ?? 0);
      if (!Number.isFinite(left) || left > MOTION_MS) continue;
      const frames = animation.effect.getKeyframes();
      const last = frames[frames.length - 1] as Record<string, unknown> | undefined;
      if (!last) continue;
      end ??= {};
      if (typeof last.opacity === 'string' || typeof last.opacity === 'number') end.opacity = parseFloat(String(last.opacity));
      if (typeof last.transform === 'string') end.transform = last.transform;
    }
    return end;
  };

  const sight: Sight = {
    top: () => ({
      hidden: '',
      from: null,
      alpha: 1,
      shift: [0, 0],
      background: rootBackground(),
      textPaint: false,
      clip: null,
      clipPositioned: false,
      scrolls: false,
    }),

    enter(element, style, scene) {
      // A few reads of the computed style on every element (each about half a microsecond): the rest only
      // where these say a box may be out of sight.
      const position = style.position;
      const overflow = style.overflow;
      const transform = style.transform;
      let alpha = scene.alpha * (parseFloat(style.opacity) || 0);
      let shift = scene.shift;
      const placed = position === 'absolute' || position === 'fixed';
      const positioned = position !== 'static';
      const overflows = overflow !== 'visible';
      const clips = overflows && /^(hidden|clip)( (hidden|clip))?$/.test(overflow);
      const contents = style.display === 'contents';
      let hidden: Concealment = scene.hidden;
      let box: Box | null = null;
      if (!hidden && !contents) {
        const judged = judge(element, style, scene, alpha, transform, position, overflows, shift);
        hidden = judged.hidden;
        box = judged.box;
        // A box in motion (a slide coming in, a menu going) is judged where its transitions and animations
        // end, when they end soon: what a person will see, not the frame the walk happened on. Its content
        // is judged there too.
        if (hidden) {
          const end = endOfMotion(element);
          if (end) {
            if (end.opacity !== undefined) alpha = scene.alpha * end.opacity;
            const endTransform = end.transform ?? transform;
            const moved = shiftOf(transform, endTransform);
            shift = [shift[0] + moved[0], shift[1] + moved[1]];
            const again = judge(element, style, scene, alpha, endTransform, position, overflows, shift);
            hidden = again.hidden;
            box = again.box;
          }
        }
      }

      // The colour behind the content: its own opaque background, else what is behind it. Unknown under an
      // image, or in a positioned box without one of its own (it is drawn over other boxes than its parent's).
      let behind = scene.background;
      let textPaint = scene.textPaint;
      const colour = rgba(style.backgroundColor);
      const image = style.backgroundImage !== 'none';
      const paints = image || (colour !== null && colour[3] > 0);
      if (paints && (style.backgroundClip === 'text' || (style as CSSStyleDeclaration & { webkitBackgroundClip?: string }).webkitBackgroundClip === 'text'))
        textPaint = true;
      else if (image || !colour) behind = null;
      else if (colour[3] >= 0.99) behind = colour.slice(0, 3);
      else if (colour[3] > 0) behind = behind && !positioned ? blend(colour, behind) : null;
      if (positioned && !(colour && colour[3] >= 0.99 && !image)) behind = null;
      if (box && placed && !hidden) covers.note(element, style, box, scene.hidden !== '');

      let clip = scene.clip;
      let clipPositioned = scene.clipPositioned;
      if (clips && !contents) {
        box ??= boxOf(element);
        clip = clip
          ? {
              left: Math.max(clip.left, box.left),
              top: Math.max(clip.top, box.top),
              right: Math.min(clip.right, box.right),
              bottom: Math.min(clip.bottom, box.bottom),
            }
          : box;
        clipPositioned = positioned;
      }
      const scrolls = scene.scrolls || (overflows && !clips);
      return { hidden, from: hidden === scene.hidden ? scene.from : element, alpha, shift, background: behind, textPaint, clip, clipPositioned, scrolls };
    },

    sceneOf(element) {
      const known = scenes.get(element);
      if (known) return known;
      const parent = element.parentElement ?? ((element.getRootNode() as ShadowRoot).host as Element | undefined);
      const outer = !parent || element === document.body || element === root ? sight.top() : sight.sceneOf(parent);
      const scene = element === document.body || element === root ? outer : sight.enter(element, getComputedStyle(element), outer);
      scenes.set(element, scene);
      return scene;
    },

    textHidden(_element, style, scene) {
      if (parseFloat(style.fontSize) < TEXT_MIN_PX) return 'tiny';
      const fill = rgba((style as CSSStyleDeclaration & { webkitTextFillColor?: string }).webkitTextFillColor || style.color);
      // Transparent text, unless it shows its box's background (background-clip: text), an outline or a shadow.
      if (
        fill &&
        fill[3] < 0.1 &&
        !scene.textPaint &&
        style.textShadow === 'none' &&
        !(parseFloat((style as CSSStyleDeclaration & { webkitTextStrokeWidth?: string }).webkitTextStrokeWidth || '0') > 0)
      )
        return 'colour';
      return '';
    },

    sameColour(style, scene) {
      if (!scene.background) return false;
      const fillText = (style as CSSStyleDeclaration & { webkitTextFillColor?: string }).webkitTextFillColor || style.color;
      const key = `${fillText}|${scene.background.join(',')}`;
      let same = alike.get(key);
      if (same === undefined) {
        const fill = rgba(fillText);
        same = !!fill && fill[3] >= 0.1 && contrast(blend(fill, scene.background), scene.background) < CONTRAST_MIN;
        alike.set(key, same);
      }
      return same && style.textShadow === 'none';
    },

    tinyBox(element) {
      const box = boxOf(element);
      return box.right - box.left < BOX_MIN_PX || box.bottom - box.top < BOX_MIN_PX;
    },

    mayCover: () => covers.any(),

    settle: (pending) => covers.settle(pending),

    survey() {
      // Page text reads the page in no single pass over its boxes: positioned ones are found first.
      const walker = document.createTreeWalker(document.body ?? root, NodeFilter.SHOW_ELEMENT);
      for (let node = walker.nextNode() as Element | null; node; node = walker.nextNode() as Element | null) {
        const style = getComputedStyle(node);
        if ((style.position !== 'absolute' && style.position !== 'fixed') || style.display === 'none') continue;
        const scene = sight.sceneOf(node);
        if (!scene.hidden) covers.note(node, style, boxOf(node), false);
      }
    },
  };
  return sight;
}
