import { describe, expect, it } from 'vitest';
import { iconWords } from '../../relay/src/page-runtime/icon-names.js';
import { nodeLine } from '../../relay/src/snapshot/outline-render.js';

describe("an icon's words, from its file or its classes", () => {
  it('keeps what says which icon, leaves out what says only "an icon"', () => {
    expect(iconWords('like')).toBe('like');
    expect(iconWords('icon-thumbs_up')).toBe('thumbs up');
    expect(iconWords('fa fa-star')).toBe('star');
    expect(iconWords('star-btn')).toBe('star');
    expect(iconWords('mail__reply--active')).toBe('mail reply');
    expect(iconWords('shareIcon')).toBe('share');
  });

  it('says nothing for generated classes and sizes', () => {
    expect(iconWords('css-1x2y3z')).toBe('');
    expect(iconWords('icon-24 btn-lg')).toBe('');
  });
});

describe("a field's value on its line", () => {
  it('is quoted and exact, spaces kept; a long one says how much follows', () => {
    expect(nodeLine({ role: 'textbox', name: 'Note', value: 'Risus donec mi, odio accumsan tellus enim, ', ref: 'e3' })).toBe(
      'textbox "Note" [value="Risus donec mi, odio accumsan tellus enim, "] [ref=e3]',
    );
    expect(nodeLine({ role: 'textbox', value: 'a\nb', valueMore: 412, ref: 'e4' })).toBe('textbox [value="a\\nb"…+412 chars] [ref=e4]');
  });
});
