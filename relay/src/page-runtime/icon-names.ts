import { collapse } from './words.js';

/**
 * The name of a control that shows only an icon, from what draws it: the
 * control itself has no text, no aria-label and no title (given-names.ts),
 * so the words are taken from the picture's source, as a person reads a
 * heart or a star. In order: an image inside it (its alt, else its file),
 * an SVG's <title> or the symbol it uses (`#icon-star`), the picture CSS
 * draws (`content: url(like.png)`, a background image, on the element or
 * its ::before/::after), and last its classes (`fa-heart`, `reply-btn`).
 * File and class words are cut into words, and the words every icon set
 * shares (icon, btn, fa, svg...) are left out: `icon-thumbs_up.png` is
 * "thumbs up". '' when nothing says anything.
 */

/** Words that say "an icon" or "a button" rather than which: left out of a name made from a file or a class. */
const FILLER = new Set([
  'icon',
  'icons',
  'ico',
  'btn',
  'button',
  'link',
  'img',
  'image',
  'svg',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'sprite',
  'fa',
  'fas',
  'far',
  'fab',
  'fal',
  'fad',
  'bi',
  'mdi',
  'ti',
  'ion',
  'glyphicon',
  'material',
  'symbols',
  'outlined',
  'rounded',
  'sharp',
  'small',
  'large',
  'lg',
  'sm',
  'xs',
  'md',
  'xl',
  'active',
  'selected',
  'disabled',
  'hover',
  'focus',
  'js',
  'ui',
  'el',
  'item',
  'action',
  'actions',
  'wrapper',
  'wrap',
  'container',
  'inner',
  'outer',
  'left',
  'right',
  'pull',
  'clickable',
  'pointer',
  'control',
  'toggle',
  'on',
  'off',
  'is',
  'has',
  'css',
  'sc',
  'jsx',
  'emotion',
  'styled',
  'ng',
  'tw',
  'svelte',
]);

/** Words of a file name or a class: split at -, _, ., spaces and camelCase; no filler, no hashes or numbers alone. */
export function iconWords(source: string): string {
  const words = source
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s\-_.@,]+/)
    // A generated class (css-1x2y3z, sc-bdVaJa) says nothing: a word with digits in it is left out.
    .filter((word) => word.length > 1 && !FILLER.has(word) && !/\d/.test(word));
  return words.slice(0, 3).join(' ');
}

/** The file an image URL names, without its folder, query or extension. */
function fileOf(url: string): string {
  const path = url.split(/[?#]/)[0];
  const file = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)).replace(/\.[a-z0-9]{2,5}$/i, '');
  return path.startsWith('data:') ? '' : file;
}

/** The image file a CSS value draws (`url("…/like.png")`), as words. */
function drawnFile(value: string | undefined): string {
  if (!value || value === 'none' || value === 'normal') return '';
  const match = /url\(\s*["']?([^"')]+)["']?\s*\)/.exec(value);
  return match ? iconWords(fileOf(match[1])) : '';
}

/** An icon-only control's name ('' when nothing draws one that says anything). */
export function iconName(el: Element): string {
  const image = el.querySelector('img, svg, [style*="url("], i, span:empty');
  const img = el.localName === 'img' ? el : el.querySelector('img');
  if (img) {
    const alt = collapse(img.getAttribute('alt') ?? '') || collapse(img.getAttribute('title') ?? '');
    if (alt) return alt;
    const file = iconWords(fileOf(img.getAttribute('src') ?? ''));
    if (file) return file;
  }
  const svg = el.localName === 'svg' ? el : el.querySelector('svg');
  if (svg) {
    const title = collapse(svg.querySelector('title')?.textContent ?? '');
    if (title) return title;
    const used = svg.querySelector('use')?.getAttribute('href') ?? svg.querySelector('use')?.getAttribute('xlink:href') ?? '';
    const symbol = iconWords(used.slice(used.indexOf('#') + 1));
    if (symbol) return symbol;
  }
  // What CSS draws: on the element, its pseudo-elements, and the one element inside it that holds the picture.
  for (const holder of image && image !== img && image !== svg ? [el, image] : [el]) {
    const style = getComputedStyle(holder);
    const drawn =
      drawnFile(style.content) ||
      drawnFile(style.backgroundImage) ||
      drawnFile(getComputedStyle(holder, '::before').content) ||
      drawnFile(getComputedStyle(holder, '::before').backgroundImage) ||
      drawnFile(getComputedStyle(holder, '::after').content);
    if (drawn) return drawn;
  }
  // Classes name an icon only where something is drawn: an icon element inside (<i class="fa fa-star">),
  // or the control itself painting a picture or a glyph; a plain empty box's classes name its layout.
  const draws = (holder: Element) => {
    const before = getComputedStyle(holder, '::before').content;
    return getComputedStyle(holder).backgroundImage !== 'none' || (!!before && before !== 'none' && before !== 'normal');
  };
  for (const holder of [el, ...(image && image.localName !== 'img' ? [image] : [])]) {
    if (holder.localName !== 'i' && holder.localName !== 'svg' && !draws(holder)) continue;
    const classes = iconWords([...holder.classList].join(' '));
    if (classes) return classes;
  }
  return '';
}
