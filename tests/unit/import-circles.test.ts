import { describe, expect, it } from 'vitest';
import { circles } from '../../scripts/check-layers.js';

describe('the layer check finds circles of imports among files', () => {
  it('finds each circle once, with every file in it, and nothing else', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['e']],
      ['e', []],
      ['f', ['f2']],
      ['f2', ['f']],
    ]);
    expect(circles(graph).sort()).toEqual([
      ['a', 'b', 'c'],
      ['f', 'f2'],
    ]);
  });

  it('finds no circle in a tree, nor where two files share a third', () => {
    const graph = new Map<string, string[]>([
      ['top', ['left', 'right']],
      ['left', ['shared']],
      ['right', ['shared']],
      ['shared', []],
    ]);
    expect(circles(graph)).toEqual([]);
  });

  it('counts an import of a file outside the graph as no edge', () => {
    expect(circles(new Map([['x', ['elsewhere']]]))).toEqual([]);
  });
});
