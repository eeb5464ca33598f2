/**
 * An element's role as the walk names it (walk.ts): the role the author
 * wrote, else the one its tag implies (HTML-AAM, pragmatically: what an
 * agent understands), and the kinds of element the walk treats alike.
 */

/** Never rendered, or rendered as something the outline cannot describe usefully. */
export const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'object',
  'embed',
  'datalist',
  'canvas',
  'video',
  'audio',
  'map',
]);
/** Text on both sides of these flows together; any other element breaks a text run. */
export const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'slot',
]);
/** Roles whose accessible name is their text: that text is then not repeated as `- text:` below them. */
export const NAMED_FROM_CONTENT = new Set([
  'button',
  'link',
  'heading',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'switch',
  'checkbox',
  'radio',
  'tooltip',
  'generic',
  'label',
  'gridcell',
  'columnheader',
  'rowheader',
]);
/** Structure that says nothing when it is empty and unnamed. */
export const DROPPED_WHEN_EMPTY = new Set([
  'generic',
  'group',
  'list',
  'navigation',
  'main',
  'banner',
  'contentinfo',
  'complementary',
  'region',
  'form',
  'article',
  'rowgroup',
  'figure',
]);
/** Kept even at zero size: custom-styled checkboxes and file inputs are often 0×0 but still operable. */
export const FORM_CONTROLS = new Set(['input', 'select', 'textarea', 'option', 'optgroup']);
/** Controls of their own inside a box: where they are, they are the handles, not the box. */
export const CONTROLS_INSIDE =
  'a[href], button, input:not([type=hidden]), select, textarea, [contenteditable], [onclick], [tabindex]:not([tabindex="-1"]), ' +
  '[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=treeitem], [role=textbox], [role=combobox]';

/** The first word of the role the author wrote ('' when none). */
export function explicitRoleOf(el: Element): string {
  const explicit = el.getAttribute('role');
  return explicit ? explicit.trim().split(/\s+/)[0] : '';
}

export function implicitRole(el: Element, tag: string): string {
  switch (tag) {
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : '';
    case 'button':
      return 'button';
    case 'input': {
      const input = el as HTMLInputElement;
      switch (input.type) {
        case 'button':
        case 'submit':
        case 'reset':
        case 'image':
        case 'file':
        case 'color':
          return 'button';
        case 'checkbox':
          return 'checkbox';
        case 'radio':
          return 'radio';
        case 'range':
          return 'slider';
        case 'number':
          return 'spinbutton';
        case 'search':
          return input.hasAttribute('list') ? 'combobox' : 'searchbox';
        default:
          return input.hasAttribute('list') ? 'combobox' : 'textbox';
      }
    }
    case 'select': {
      const select = el as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    case 'option':
      return 'option';
    case 'optgroup':
    case 'fieldset':
      return 'group';
    case 'textarea':
      return 'textbox';
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return 'heading';
    case 'img':
      // alt="" marks an image as decoration.
      return el.getAttribute('alt') === '' ? '' : 'img';
    case 'svg':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'img' : '';
    case 'ul':
    case 'ol':
    case 'menu':
      return 'list';
    case 'li':
      return 'listitem';
    case 'table':
      return 'table';
    case 'tr':
      return 'row';
    case 'td':
      return 'cell';
    case 'th':
      return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    case 'nav':
      return 'navigation';
    case 'main':
      return 'main';
    case 'header':
      return el.closest('article, aside, main, nav, section') ? '' : 'banner';
    case 'footer':
      return el.closest('article, aside, main, nav, section') ? '' : 'contentinfo';
    case 'aside':
      return 'complementary';
    case 'form':
      return 'form';
    case 'section':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
    case 'dialog':
      return 'dialog';
    case 'article':
      return 'article';
    case 'figure':
      return 'figure';
    case 'summary':
      // Browsers expose it as a disclosure button; `button` is what an agent understands.
      return 'button';
    case 'progress':
      return 'progressbar';
    case 'meter':
      return 'meter';
    case 'hr':
      return 'separator';
    case 'iframe':
    case 'frame':
      return 'iframe';
    default:
      return '';
  }
}
