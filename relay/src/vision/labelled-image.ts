import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphPixel } from './label-font.js';

/**
 * Draws a labelled screenshot: each labelled element's box outlined, its
 * number on a tag at the box's top-left corner, on the screenshot's own
 * pixels. The page is never touched to draw it (no overlay in its DOM for
 * its scripts to see or hide), so the picture is the page as it was, with
 * the marks on top.
 */

export interface LabelBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

type Rgb = [number, number, number];

/** Saturated colours that stand out on white and dark pages alike; neighbours differ. */
const COLOURS: Rgb[] = [
  [230, 25, 75],
  [0, 110, 200],
  [220, 110, 0],
  [145, 30, 180],
  [20, 140, 60],
  [200, 0, 160],
  [0, 128, 128],
  [128, 64, 0],
];
const BORDER = 2;
const PADDING = 2;

export function drawLabels(
  png: Buffer,
  boxes: LabelBox[],
  output: { type: 'png' | 'jpeg'; quality?: number },
): { data: Buffer; width: number; height: number } {
  const image = PNG.sync.read(png);
  const { width, height, data } = image;
  const set = (x: number, y: number, [r, g, b]: Rgb) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const at = (y * width + x) * 4;
    data[at] = r;
    data[at + 1] = g;
    data[at + 2] = b;
    data[at + 3] = 255;
  };
  const fill = (x0: number, y0: number, w: number, h: number, colour: Rgb) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) set(x, y, colour);
  };
  // Glyphs twice their size on a picture wide enough to afford it.
  const size = width >= 640 ? 2 : 1;
  boxes.forEach((box, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const x = Math.round(box.x);
    const y = Math.round(box.y);
    const w = Math.max(1, Math.round(box.width));
    const h = Math.max(1, Math.round(box.height));
    fill(x, y, w, BORDER, colour);
    fill(x, y + h - BORDER, w, BORDER, colour);
    fill(x, y, BORDER, h, colour);
    fill(x + w - BORDER, y, BORDER, h, colour);
    const tagWidth = box.text.length * (GLYPH_WIDTH + 1) * size - size + 2 * PADDING;
    const tagHeight = GLYPH_HEIGHT * size + 2 * PADDING;
    // Above the box when there is room (the box's content stays visible), else inside its corner.
    const tagX = Math.min(Math.max(0, x), Math.max(0, width - tagWidth));
    const tagY = y - tagHeight >= 0 ? y - tagHeight : Math.max(0, y);
    fill(tagX, tagY, tagWidth, tagHeight, colour);
    [...box.text].forEach((character, at) => {
      const left = tagX + PADDING + at * (GLYPH_WIDTH + 1) * size;
      for (let row = 0; row < GLYPH_HEIGHT; row++)
        for (let column = 0; column < GLYPH_WIDTH; column++)
          if (glyphPixel(character, column, row)) fill(left + column * size, tagY + PADDING + row * size, size, size, [255, 255, 255]);
    });
  });
  const encoded = output.type === 'png' ? PNG.sync.write(image) : Buffer.from(jpeg.encode({ data, width, height }, output.quality ?? 80).data);
  return { data: encoded, width, height };
}

/** A PNG's or a JPEG's size in pixels, read from its header (undefined when it is neither). */
export function imageSize(image: Buffer): { width: number; height: number } | undefined {
  if (image.length > 24 && image.readUInt32BE(0) === 0x89504e47) return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  if (image[0] !== 0xff || image[1] !== 0xd8) return undefined;
  // JPEG: walk the segments to the frame header (SOF0…SOF15, not DHT, JPG or DAC).
  for (let at = 2; at + 9 < image.length;) {
    if (image[at] !== 0xff) return undefined;
    const marker = image[at + 1];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: image.readUInt16BE(at + 5), width: image.readUInt16BE(at + 7) };
    at += 2 + image.readUInt16BE(at + 2);
  }
  return undefined;
}
