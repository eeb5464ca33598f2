import { describe, expect, it } from 'vitest';
import { stepsFor } from '../../relay/src/driver/acts/pointer.js';
import { asTimeValue } from '../../relay/src/driver/acts/typing.js';
import { ActionSchema } from '../../relay/src/api/schemas.js';

/** The pure parts of the mouse's and the keyboard's acts: how a drag is paced, a time as a field keeps it, and what the API refuses. */

describe("the mouse's and the keyboard's acts", () => {
  it('a drag is about one mousemove per 8 pixels, 10 at least and 80 at most', () => {
    expect(stepsFor({ x: 0, y: 0 }, { x: 0, y: 16 })).toBe(10);
    expect(stepsFor({ x: 0, y: 0 }, { x: 0, y: 240 })).toBe(30);
    expect(stepsFor({ x: 0, y: 0 }, { x: 3000, y: 4000 })).toBe(80);
  });

  it("a time as people write it, in a time field's own form; anything else as it is", () => {
    expect(asTimeValue('2:30 PM')).toBe('14:30');
    expect(asTimeValue('12:05 am')).toBe('00:05');
    expect(asTimeValue('12pm')).toBe('12:00');
    expect(asTimeValue('9:15:30 p.m.')).toBe('21:15:30');
    expect(asTimeValue('14:30')).toBe('14:30');
    expect(asTimeValue('soon')).toBe('soon');
  });

  it('refuses what cannot be done, naming what is missing', () => {
    const issue = (body: object) => ActionSchema.safeParse(body).error?.issues[0]?.message;
    expect(issue({ kind: 'select-text' })).toBe('select-text needs the text to select (in the page, or in the element of ref), or x, y, endX and endY');
    expect(issue({ kind: 'select-text', text: 'a', x: 1, y: 2, endX: 3, endY: 4 })).toMatch(/^select-text needs/);
    expect(issue({ kind: 'drag', startRef: 'e1', x: 1, y: 2, endRef: 'e2' })).toBe('drag starts at startRef, or at x and y (one of them)');
    expect(issue({ kind: 'drag', x: 1, y: 2 })).toBe('drag ends at endRef, or at endX and endY (one of them)');
    expect(issue({ kind: 'mousedown', x: 1 })).toBe('mousedown needs x and y together, or neither (where the mouse is)');
    expect(issue({ kind: 'click', ref: 'e1', count: 4 })).toMatch(/4|3/);
    expect(issue({ kind: 'click', ref: 'e1', double: true, count: 3 })).toBe('give double or count, not both');
    expect(issue({ kind: 'move', x: 1, y: 2, steps: 201 })).toBeDefined();
    expect(ActionSchema.safeParse({ kind: 'drag', startRef: 'e1', endX: 5, endY: 6, steps: 20 }).success).toBe(true);
    expect(ActionSchema.safeParse({ kind: 'mouseup' }).success).toBe(true);
  });
});
