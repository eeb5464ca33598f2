import { BadRequestError } from '../errors.js';
import type { Point } from './computer-steps.js';

/**
 * The one mapping between a model's screen and the page. The model is told
 * a display size; what it sees is the tab's visual viewport (the part of the
 * page on screen, after pinch zoom) scaled to fit that display, keeping the
 * page's proportions. A pixel (X, Y) of that picture is the CSS point
 * (offset + X / scale) of the tab's layout viewport, which is where CDP's
 * input events are aimed. Device pixels never enter: at DPR 2 the picture is
 * still the display's size, and a click lands where the model saw it.
 */

/** What `Page.getLayoutMetrics` says of the visual viewport, in CSS pixels. */
export interface VisualViewport {
  /** Where it is in the document (for the screenshot's clip). */
  pageX: number;
  pageY: number;
  /** Where it is in the layout viewport (non-zero under pinch zoom). */
  offsetX: number;
  offsetY: number;
  clientWidth: number;
  clientHeight: number;
}

export interface ScreenScale {
  viewport: VisualViewport;
  /** Picture pixels per CSS pixel. */
  scale: number;
  /** The picture's size: the display's, or smaller on one side when the proportions differ. */
  width: number;
  height: number;
}

export function screenScale(viewport: VisualViewport, display?: { width: number; height: number }): ScreenScale {
  const scale = display ? Math.min(display.width / viewport.clientWidth, display.height / viewport.clientHeight) : 1;
  return {
    viewport,
    scale,
    width: Math.max(1, Math.round(viewport.clientWidth * scale)),
    height: Math.max(1, Math.round(viewport.clientHeight * scale)),
  };
}

/** A picture pixel → the CSS point of the layout viewport that input events take. */
export function toPage(screen: ScreenScale, point: Point): Point {
  return { x: screen.viewport.offsetX + point.x / screen.scale, y: screen.viewport.offsetY + point.y / screen.scale };
}

/** A CSS point of the layout viewport → the picture pixel showing it. */
export function toScreen(screen: ScreenScale, point: Point): Point {
  return { x: (point.x - screen.viewport.offsetX) * screen.scale, y: (point.y - screen.viewport.offsetY) * screen.scale };
}

/** Refuses, by name, a point off the picture: a model that clicks past it has the wrong display size. */
export function checkOnScreen(screen: ScreenScale, points: Array<{ point: Point; path: string }>): void {
  for (const { point, path } of points) {
    if (point.x < 0 || point.y < 0 || point.x > screen.width || point.y > screen.height)
      throw new BadRequestError(
        `Invalid actions${path}: (${point.x}, ${point.y}) is off the screen, which is ${screen.width}×${screen.height} (the display the page fits in; set display to the size the model was told)`,
      );
  }
}
