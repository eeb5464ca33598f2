/**
 * The arithmetic page-sight.ts judges a page's paint with: colours read and
 * compared (WCAG's contrast ratio), and how much of a box a transform, a
 * `clip` or a `clip-path` leaves. It reads computed-style strings only, so it
 * needs no page: unit tests call it in Node.
 *
 * Each walk makes a fresh one (page-sight.ts): it remembers the colours it
 * has read, and a page has few.
 */
export interface PaintMath {
  /** `rgb(1, 2, 3)` or `rgba(1, 2, 3, 0.5)` as [r, g, b, a]; null for anything else (a color() or oklch() value). */
  rgba(value: string): number[] | null;
  /** WCAG's contrast ratio of two [r, g, b]: 1 for the same colour, 21 for black on white. */
  contrast(a: number[], b: number[]): number;
  /** [r, g, b, a] painted over [r, g, b]: the [r, g, b] a person sees. */
  blend(over: number[], under: number[]): number[];
  /** A computed transform that leaves (nearly) nothing: a scale of 0 on either axis. */
  scaledAway(transform: string): boolean;
  /** `clip: rect(t, r, b, l)` leaving under `minPx` either way. */
  clippedAway(clip: string, minPx: number): boolean;
  /** A `clip-path` that leaves nothing: an inset of half or more from opposite sides, a circle or ellipse of no radius. */
  pathLeavesNothing(path: string): boolean;
  /** How far a box moves when its transform goes from `from` to `to`, [x, y] (their translations: enough for a slide). */
  shiftOf(from: string, to: string): number[];
}

export function paintMath(): PaintMath {
  const parsed = new Map<string, number[] | null>();
  const parseColour = (value: string): number[] | null => {
    const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(value);
    if (!match) return null;
    const alpha = match[4] === undefined ? 1 : match[4].endsWith('%') ? parseFloat(match[4]) / 100 : parseFloat(match[4]);
    return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
  };
  const luminance = (rgb: number[]): number => {
    const [r, g, b] = rgb.map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  /** A computed `matrix(…)` or `matrix3d(…)` as its numbers, and whether it is 3d. */
  const matrix = (transform: string): { m: number[]; in3d: boolean } | null => {
    const numbers = /^matrix(3d)?\(([^)]*)\)$/.exec(transform);
    return numbers ? { m: numbers[2].split(',').map(Number), in3d: !!numbers[1] } : null;
  };

  return {
    rgba(value) {
      // A page has few colours: each is read once.
      let known = parsed.get(value);
      if (known === undefined) parsed.set(value, (known = parseColour(value)));
      return known;
    },
    contrast(a, b) {
      const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (high + 0.05) / (low + 0.05);
    },
    blend: (over, under) => [0, 1, 2].map((i) => over[i] * over[3] + under[i] * (1 - over[3])),
    scaledAway(transform) {
      const read = matrix(transform);
      if (!read) return false;
      const { m, in3d } = read;
      const [a, b, c, d] = in3d ? [m[0], m[1], m[4], m[5]] : [m[0], m[1], m[2], m[3]];
      return Math.hypot(a, b) < 0.01 || Math.hypot(c, d) < 0.01;
    },
    clippedAway(clip, minPx) {
      const match = /^rect\(([^)]*)\)$/.exec(clip);
      if (!match) return false;
      const [top, right, bottom, left] = match[1].split(/[,\s]+/).map((part) => (part === 'auto' ? NaN : parseFloat(part)));
      return (!Number.isNaN(right) && !Number.isNaN(left) && right - left < minPx) || (!Number.isNaN(bottom) && !Number.isNaN(top) && bottom - top < minPx);
    },
    pathLeavesNothing(path) {
      const inset = /^inset\(([^)]*)\)/.exec(path);
      if (inset) {
        const parts = inset[1]
          .split(/\s+round\s+/)[0]
          .trim()
          .split(/\s+/);
        const [top, right = top, bottom = top, left = right] = parts;
        const percent = (part: string) => (part.endsWith('%') ? parseFloat(part) : 0);
        return percent(top) + percent(bottom) >= 100 || percent(left) + percent(right) >= 100;
      }
      return /^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(path);
    },
    shiftOf(from, to) {
      const translation = (transform: string): number[] => {
        const read = matrix(transform);
        if (!read) return [0, 0];
        return read.in3d ? [read.m[12], read.m[13]] : [read.m[4], read.m[5]];
      };
      const [a, b] = [translation(from), translation(to)];
      return [b[0] - a[0], b[1] - a[1]];
    },
  };
}
