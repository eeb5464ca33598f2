import { PNG } from 'pngjs';

/**
 * The two pictures a film draws over the page (film-plan.ts): the pointer,
 * an arrow whose tip is its top-left pixel (so a mark's point is where it
 * points), white with a dark edge to show on any page; and the ring drawn
 * round a click. Drawn here as pixels, never into the page.
 */

export const RING_SIZE = 40;
const RING_THICKNESS = 4;
const POINTER_HEIGHT = 22;

type Rgba = [number, number, number, number];

function picture(width: number, height: number, colourAt: (x: number, y: number) => Rgba | undefined): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = colourAt(x, y) ?? [0, 0, 0, 0];
      png.data.set(colour, (y * width + x) * 4);
    }
  }
  return PNG.sync.write(png);
}

/** Inside the arrow: a triangle from the tip down, its right edge at a slant, and a short tail. */
function inArrow(x: number, y: number): boolean {
  if (y < 0 || x < 0) return false;
  const head = POINTER_HEIGHT * 0.72;
  if (y <= head) return x <= y * 0.66;
  // The tail: a stroke down and to the right from the head's middle.
  const fromTail = y - head;
  return fromTail < POINTER_HEIGHT - head && x >= 3 + fromTail * 0.45 && x <= 7 + fromTail * 0.45;
}

export function pointerImage(): Buffer {
  const width = Math.ceil(POINTER_HEIGHT * 0.75) + 2;
  return picture(width, POINTER_HEIGHT + 2, (x, y) => {
    if (inArrow(x - 1, y - 1) && inArrow(x, y - 1) && inArrow(x - 1, y) && inArrow(x, y)) return [255, 255, 255, 255];
    const near = [-1, 0, 1].some((dx) => [-1, 0, 1].some((dy) => inArrow(x + dx - 1, y + dy - 1)));
    return near ? [20, 20, 20, 255] : undefined;
  });
}

export function ringImage(): Buffer {
  const centre = (RING_SIZE - 1) / 2;
  const outer = RING_SIZE / 2;
  return picture(RING_SIZE, RING_SIZE, (x, y) => {
    const distance = Math.hypot(x - centre, y - centre);
    if (distance > outer) return undefined;
    if (distance > outer - RING_THICKNESS) return [255, 90, 30, 235];
    return [255, 90, 30, 70];
  });
}
