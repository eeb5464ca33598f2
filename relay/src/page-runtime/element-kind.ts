import { INTERACTIVE_ROLES, ITEM_ROLES } from './role-sets.js';
import { CONTROLS_INSIDE, explicitRoleOf, implicitRole } from './roles.js';

/**
 * What an element is to the walk (walk.ts), before anything of where it is
 * drawn: its role, and whether an agent can act on it (it then gets a ref).
 */
export interface ElementKind {
  /** '' for an element the outline does not show itself (its content takes its place). */
  role: string;
  /** What an agent can act on. */
  interactive: boolean;
  /** Interactive by its markup (a role, an editor, a handler attribute, a tabindex), not only by where a pointer cursor starts. */
  interactiveByMarkup: boolean;
  /** An item of a container (a list's, a table's): a ref by role. */
  item: boolean;
  draggable: boolean;
  /** An author named it (aria-label, aria-labelledby). */
  named: boolean;
  /** Its text names something else (a control's label, a fieldset's legend, a caption): not shown again as text. */
  textNamesOther: boolean;
  /** It holds an element that listens for a press of its own: that element's words are its name, not this one's. */
  holdsListened: boolean;
}

/** Elements that listen for a press of their own (listened), and those that hold one (holders). */
export interface Listened {
  listened: Set<Element>;
  holders: Set<Element>;
}

/** The walk's sets, from the index paths snapshot/listened-elements.ts made in a world of its own. */
export function listenedFrom(paths: number[][] | undefined): Listened {
  const listened = new Set<Element>();
  const holders = new Set<Element>();
  for (const path of paths ?? []) {
    let root: Document | ShadowRoot | null = document;
    let el: Element | undefined;
    for (const index of path) {
      if (!root) break;
      el = (root === document ? document.getElementsByTagName('*') : root.querySelectorAll('*'))[index];
      root = el?.shadowRoot ?? null;
    }
    // A slot is a place in a component, not a thing: what listens there listens for what is slotted into it.
    if (!el || el.localName === 'slot') continue;
    listened.add(el);
  }
  for (const el of listened) {
    for (let up = el.parentElement ?? (el.getRootNode() as ShadowRoot).host; up; up = up.parentElement ?? ((up.getRootNode() as ShadowRoot).host || null)) {
      if (holders.has(up)) break;
      holders.add(up);
    }
  }
  return { listened, holders };
}

/**
 * `pointer`: its cursor is a pointer; `parentPointer`: its parent's is (cursor is inherited). `editor`: the whole document is one.
 * `listened`: the elements that listen for a press of their own, and those that hold one.
 */
export function elementKind(
  el: Element,
  tag: string,
  pointer: boolean,
  parentPointer: boolean,
  editor: boolean,
  labelSources: Set<Element>,
  listened: Listened,
): ElementKind {
  const explicitRole = explicitRoleOf(el);
  let role = explicitRole === 'presentation' || explicitRole === 'none' ? '' : explicitRole || implicitRole(el, tag);
  // An editor's own document (TinyMCE, CKEditor 4, webmail composers: a body in an iframe, or designMode) counts too.
  const editable =
    el === document.body ? editor : el.hasAttribute('contenteditable') && (el as HTMLElement).isContentEditable && !el.parentElement?.isContentEditable;
  if (editable && !role) role = 'textbox';
  const draggable = el.getAttribute('draggable') === 'true';
  const item = ITEM_ROLES.has(role);
  const interactiveByMarkup =
    INTERACTIVE_ROLES.has(role) ||
    editable ||
    draggable ||
    el.hasAttribute('onclick') ||
    // The attribute first (cheap); the property then says whether the browser took it (tabindex="" does nothing).
    (el.hasAttribute('tabindex') && (el as HTMLElement).tabIndex >= 0);
  // Where cursor:pointer starts, or a press is listened for, on a box that holds controls of its own
  // (Swagger UI's operation row, a styled label around its checkbox, a mail's Reply and Forward in one
  // bar), those controls are the handles: the box gets none.
  // Asked only of a box that would otherwise be a control: a query per element made a long page's walk quadratic.
  const holdsControls = () => role === '' && (listened.holders.has(el) || !!el.querySelector(CONTROLS_INSIDE));
  const pointerStarts = pointer && !parentPointer && !holdsControls();
  // A listener makes a control of a plain element, an item or a picture; a list or a table that listens delegates for
  // its items, and a component's frame that listens around a slot (a tab group's) for what is slotted there.
  let interactive =
    interactiveByMarkup ||
    pointerStarts ||
    (listened.listened.has(el) && (role === '' || item || role === 'img') && !holdsControls() && !el.querySelector('slot'));

  // A label: its text names its control. If that control is hidden (a styled
  // file input, say) the label is what a user clicks, so it becomes the target.
  let textNamesOther = labelSources.has(el) || (tag === 'legend' && el.parentElement?.localName === 'fieldset') || tag === 'caption';
  if (tag === 'label' && !explicitRole) {
    const control = (el as HTMLLabelElement).control;
    if (control && control.checkVisibility()) textNamesOther = true;
    else if (control) {
      role = 'label';
      interactive = true;
    }
  }
  // A div or span is shown only when it does something or an author named it.
  const named = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
  if (!role && (interactive || named)) role = 'generic';
  if (role === 'generic' && !interactive && !named) role = '';
  return { role, interactive, interactiveByMarkup, item, draggable, named, textNamesOther, holdsListened: listened.holders.has(el) };
}
