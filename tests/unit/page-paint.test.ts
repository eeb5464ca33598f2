import { describe, expect, it } from 'vitest';
import { paintMath } from '../../relay/src/page-runtime/page-paint.js';

// The arithmetic behind "what a person can see" (page-sight.ts), on the strings getComputedStyle gives.
describe('the paint arithmetic page sight judges with', () => {
  const paint = paintMath();

  it('reads computed colours, and nothing it cannot be sure of', () => {
    expect(paint.rgba('rgb(255, 255, 255)')).toEqual([255, 255, 255, 1]);
    expect(paint.rgba('rgba(0, 0, 0, 0.5)')).toEqual([0, 0, 0, 0.5]);
    expect(paint.rgba('rgb(10 20 30 / 40%)')).toEqual([10, 20, 30, 0.4]);
    expect(paint.rgba('oklch(0.7 0.1 200)')).toBeNull();
    expect(paint.rgba('color(srgb 1 1 1)')).toBeNull();
  });

  it('measures contrast as WCAG does, and what a see-through colour shows', () => {
    expect(paint.contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(paint.contrast([255, 255, 255], [255, 255, 255])).toBe(1);
    // #fefefe on white: under 1.1, the rule's line for "the colour behind it".
    expect(paint.contrast([254, 254, 254], [255, 255, 255])).toBeLessThan(1.1);
    // #777 on white passes for text a person reads.
    expect(paint.contrast([119, 119, 119], [255, 255, 255])).toBeGreaterThan(4);
    expect(paint.blend([0, 0, 0, 0.5], [255, 255, 255])).toEqual([127.5, 127.5, 127.5]);
    expect(paint.blend([10, 20, 30, 1], [255, 255, 255])).toEqual([10, 20, 30]);
  });

  it('tells a transform that leaves nothing from one that moves or turns', () => {
    expect(paint.scaledAway('matrix(0, 0, 0, 1, 0, 0)')).toBe(true);
    expect(paint.scaledAway('matrix(1, 0, 0, 0.001, 0, 0)')).toBe(true);
    expect(paint.scaledAway('matrix3d(0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)')).toBe(true);
    expect(paint.scaledAway('matrix(1, 0, 0, 1, -9999, 0)')).toBe(false);
    // Turned a quarter: cos 0, sin 1, still full size.
    expect(paint.scaledAway('matrix(0, 1, -1, 0, 0, 0)')).toBe(false);
    expect(paint.scaledAway('none')).toBe(false);
    expect(paint.shiftOf('matrix(1, 0, 0, 1, -800, 0)', 'none')).toEqual([800, 0]);
    expect(paint.shiftOf('matrix3d(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 50, 0, 1)', 'matrix(1, 0, 0, 1, 0, 0)')).toEqual([0, -50]);
  });

  it('tells a clip that leaves nothing from one that leaves a box', () => {
    expect(paint.clippedAway('rect(0px, 0px, 0px, 0px)', 2)).toBe(true);
    expect(paint.clippedAway('rect(1px 1px 1px 1px)', 2)).toBe(true);
    expect(paint.clippedAway('rect(0px, 100px, 20px, 0px)', 2)).toBe(false);
    expect(paint.clippedAway('rect(auto, auto, auto, auto)', 2)).toBe(false);
    expect(paint.clippedAway('auto', 2)).toBe(false);
    expect(paint.pathLeavesNothing('inset(50%)')).toBe(true);
    expect(paint.pathLeavesNothing('inset(0px 50% 0px 50%)')).toBe(true);
    expect(paint.pathLeavesNothing('inset(10% round 4px)')).toBe(false);
    expect(paint.pathLeavesNothing('circle(0px at 50% 50%)')).toBe(true);
    expect(paint.pathLeavesNothing('circle(0)')).toBe(true);
    expect(paint.pathLeavesNothing('circle(40% at 50% 50%)')).toBe(false);
    expect(paint.pathLeavesNothing('none')).toBe(false);
  });
});
