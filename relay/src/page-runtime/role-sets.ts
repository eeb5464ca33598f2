/**
 * The roles both sides of the outline decide by: the walk gives these a ref
 * (walk.ts), and the Node side's lean views keep or leave them
 * (snapshot/outline-filters.ts).
 */

/** Roles an agent acts on. */
export const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'treeitem',
  'gridcell',
]);

/**
 * Items of a container: an agent may need to act on one (drag a sortable list's item, pick a table row,
 * sort by a grid's column) though its handlers sit on an ancestor or come later (a library sets draggable
 * on pointerdown). They get a ref by role, whatever the page set; the lean views leave them out.
 */
export const ITEM_ROLES = new Set(['listitem', 'row', 'columnheader', 'rowheader']);
