import { describe, expect, it } from 'vitest';
import { fitText } from '../../relay/src/snapshot/page-text.js';

describe('fitText: page text within maxChars', () => {
  const text = Array.from({ length: 40 }, (_, i) => (i % 10 === 0 ? `## Section ${i / 10}` : `Line ${i} ${'x'.repeat(60)}`)).join('\n');

  it('leaves a text that fits as it is', () => {
    expect(fitText(text, text.length)).toEqual({ markdown: text, truncated: false });
  });

  it('cuts on a line, the note included within maxChars, naming the headings that follow', () => {
    for (const maxChars of [500, 800, 1_500, 2_000]) {
      const { markdown, truncated } = fitText(text, maxChars);
      expect(truncated).toBe(true);
      expect(markdown.length).toBeLessThanOrEqual(maxChars);
      const lines = markdown.split('\n');
      const note = lines.pop()!;
      expect(text.startsWith(lines.join('\n'))).toBe(true);
      expect(note).toMatch(
        new RegExp(`^\\[cut at maxChars=${maxChars}: ${text.length - lines.join('\n').length - 1} more characters \\(${40 - lines.length} lines\\) not shown`),
      );
      const following = text
        .split('\n')
        .slice(lines.length)
        .filter((line) => line.startsWith('## '))
        .slice(0, 4)
        .map((line) => line.slice(3));
      if (following.length) expect(note).toContain(`next: ${following.join(' | ')}`);
    }
  });
});
