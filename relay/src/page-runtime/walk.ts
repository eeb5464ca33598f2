import { contentNames, type ContentText } from './content-names.js';
import { givenName, hintName } from './given-names.js';
import { type Concealment, type OutlineNode, TEXT_ROLE } from './outline-node.js';
import type { Scene, Sight } from './page-sight.js';
import { RefRegistry, type WalkState } from './ref-registry.js';
import { elementKind, type Listened, listenedFrom } from './element-kind.js';
import { iconName } from './icon-names.js';
import type { WalkArgs } from './ops.js';
import { INTERACTIVE_ROLES } from './role-sets.js';
import { CONTROLS_INSIDE, DROPPED_WHEN_EMPTY, FORM_CONTROLS, INLINE, NAMED_FROM_CONTENT, SKIPPED } from './roles.js';
import { putChoices, readStates, urlOf, valueOf } from './states.js';
import { seeText, type TextSight, textSight } from './text-sight.js';
import { TextRuns, type Waiting } from './walk-text.js';
import { clip, NAME_MAX, VALUE_MAX } from './words.js';
import { scopeElementOf } from './walk-scope.js';
import { settleWaiting } from './walk-settle.js';

/**
 * The `ai` snapshot's walk over one frame's DOM (open shadow roots included,
 * in flat-tree order): the frame's outline as nodes (outline-node.ts), and
 * the ref → element map the engine keeps in its isolated world. It runs
 * there: the page's own scripts cannot see or patch the DOM methods it calls,
 * nor what it found.
 *
 * Speed matters more than ARIA completeness here (the target is to beat
 * Playwright's own aria snapshot), so the rules are pragmatic: names come from
 * the common sources only, and styles are only computed where a cheap check
 * (checkVisibility, which reads the layout object) cannot answer alone.
 */

export interface WalkResult {
  roots: OutlineNode[];
  /** The scope's nodes: its own, or those its content made when it has none; absent when no scope was asked or it is not in this frame. */
  scope?: OutlineNode[];
  /** Iframes met (each an `fN`, numbered from `firstFrame` on). */
  frames: number;
  refCount: number;
  /** The highest ref number this document has handed out (refs above it are unknown, below it stale when absent). */
  highest: number;
  /** False on the first walk of this document (nothing to compare a diff with). */
  continued: boolean;
  /** Blocks of text a person cannot see (page-sight.ts), left out (or, with `hidden`, kept marked). */
  hidden: number;
  stats: { elements: number; ms: number };
}

/** Walks the frame. `previous` is the state the last walk of this document left (undefined on its first); the new state replaces it. */
export function walkFrameDom(args: WalkArgs, previous: WalkState | undefined, sight: Sight): { result: WalkResult; state: WalkState; hidden: Element[] } {
  return new OutlineWalk(args, previous, sight).run();
}

/** The frame's blocks a person cannot see, as the outline judges them: for a view of the page the walk does not make (the `aria` tree). */
export function hiddenElementsOf(sight: Sight): Element[] {
  return walkFrameDom({ prefix: '', firstFrame: 1, generation: 0 }, undefined, sight).hidden;
}

class OutlineWalk {
  private readonly started = performance.now();
  private readonly refs: RefRegistry;
  private readonly frameElements = new Map<string, Element>();
  private readonly hiddenBlocks = new Set<Element>();
  private readonly waiting: Waiting[] = [];
  private readonly text: TextRuns;
  private readonly contentText: ContentText;
  /** The names of the controls (buttons, radios, tabs...) the walk is inside, innermost last. */
  private readonly controlNames: string[] = [];
  /** Elements whose text is some control's aria-labelledby name: shown as that name, not again as text. */
  private readonly labelSources = new Set<Element>();
  private readonly scopeElement: Element | null;
  private scope: OutlineNode[] | undefined;
  private nextFrame: number;
  private visited = 0;
  private readonly origin = location.origin;
  /** designMode does not show in isContentEditable; a contenteditable body does. */
  private readonly wholeDocumentEditable = !!document.body && (document.designMode === 'on' || document.body.isContentEditable);
  private readonly focused: Element | null;
  private readonly listened: Listened;

  constructor(
    private readonly args: WalkArgs,
    private readonly previous: WalkState | undefined,
    private readonly sight: Sight,
  ) {
    this.refs = new RefRegistry(args.prefix, previous);
    this.text = new TextRuns(args.hidden === true, this.hiddenBlocks, this.waiting);
    this.contentText = contentNames(sight, this.hiddenBlocks);
    this.scopeElement = scopeElementOf(args.scope, previous);
    this.nextFrame = args.firstFrame;
    this.listened = listenedFrom(args.listened);
    let focused: Element | null = document.activeElement;
    while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
    // A document with nothing focused names its body; that is focus only when the document has it (an editor's body).
    this.focused = focused === document.body && !document.hasFocus() ? null : focused;
    for (const el of document.querySelectorAll('[aria-labelledby]')) {
      for (const id of (el.getAttribute('aria-labelledby') ?? '').split(/\s+/)) {
        const source = id && document.getElementById(id);
        if (source) this.labelSources.add(source);
      }
    }
  }

  run(): { result: WalkResult; state: WalkState; hidden: Element[] } {
    const roots: OutlineNode[] = [];
    const root = document.body ?? document.documentElement;
    if (this.wholeDocumentEditable) {
      // The whole document is an editor: one textbox an agent can click and type into.
      this.visit(root, roots, false, false, this.sight.top());
    } else if (root) {
      const style = getComputedStyle(root);
      this.children(root, roots, false, style.visibility === 'visible', style.cursor === 'pointer', textSight(root, style, this.sight.top()));
    }
    this.text.flush();
    const gone = settleWaiting(roots, this.waiting, this.sight, this.hiddenBlocks, this.args.hidden === true);
    const scope = this.scope?.filter((node) => !gone.has(node));
    const within = this.scopeElement;
    const result: WalkResult = {
      roots,
      ...(scope ? { scope } : {}),
      frames: this.nextFrame - this.args.firstFrame,
      refCount: this.refs.refs.size,
      highest: this.refs.highest,
      continued: this.previous !== undefined,
      // Scoped, only what the scope loses counts: blocks inside it, or one it is inside of.
      hidden: within ? [...this.hiddenBlocks].filter((block) => within.contains(block) || block.contains(within)).length : this.hiddenBlocks.size,
      stats: { elements: this.visited, ms: Math.round((performance.now() - this.started) * 100) / 100 },
    };
    return { result, state: { refs: this.refs.refs, highest: this.refs.highest, frameElements: this.frameElements }, hidden: [...this.hiddenBlocks] };
  }

  /** Children in the flat tree: a shadow host shows its shadow root, a slot what is assigned to it. */
  private children(parent: Element, into: OutlineNode[], textUsed: boolean, visible: boolean, pointer: boolean, here: TextSight): void {
    if (parent.localName === 'slot') {
      const assigned = (parent as HTMLSlotElement).assignedNodes();
      if (assigned.length) {
        for (const child of assigned) this.node(child, into, textUsed, visible, pointer, here);
        return;
      }
    }
    // Sibling links, not childNodes[i]: indexing a NodeList was a tenth of the walk.
    for (let child = ((parent as HTMLElement).shadowRoot ?? parent).firstChild; child; child = child.nextSibling)
      this.node(child, into, textUsed, visible, pointer, here);
  }

  /** `here`: the element whose own text nodes these are, and where it is drawn (page-sight.ts). */
  private node(child: Node, into: OutlineNode[], textUsed: boolean, visible: boolean, pointer: boolean, here: TextSight): void {
    if (child.nodeType === Node.TEXT_NODE) {
      if (!visible || textUsed) return;
      const data = (child as Text).data;
      if (!data.trim()) return this.text.space(data);
      const seen = seeText(this.sight, here);
      if (seen.reason) this.text.hidden(data, into, seen.reason, seen.scene.hidden ? seen.scene.from! : seen.element);
      else this.text.append(data, into, seen.element, seen.same);
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      this.visit(child as Element, into, textUsed, pointer, here.scene);
    }
  }

  /** The scope element's nodes are those its visit makes. */
  private visit(el: Element, into: OutlineNode[], textUsed: boolean, parentPointer: boolean, outer: Scene): void {
    if (el !== this.scopeElement) return this.element(el, into, textUsed, parentPointer, outer);
    this.text.flush();
    const start = into.length;
    this.element(el, into, textUsed, parentPointer, outer);
    this.text.flush();
    this.scope = into.slice(start);
  }

  private element(el: Element, into: OutlineNode[], textUsed: boolean, parentPointer: boolean, outer: Scene): void {
    this.visited++;
    const { args, sight } = this;
    const tag = el.localName;
    if (SKIPPED.has(tag)) return;
    // An SVG's insides are drawing instructions; only a labelled SVG (an icon with a name) is shown.
    if (tag === 'svg' && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby') && !el.hasAttribute('role')) return;
    if (tag === 'input' && (el as HTMLInputElement).type === 'hidden') return;
    if (el.getAttribute('aria-hidden') === 'true') return;

    // checkVisibility reads the layout object: no style computation for the common, visible case.
    let visible = true;
    if (!el.checkVisibility({ visibilityProperty: true })) {
      const style = getComputedStyle(el);
      if (style.display === 'none') return;
      // display:contents has no box of its own but its children do; anything else
      // failing checkVisibility (content-visibility, a closed <details>) is hidden.
      if (style.display !== 'contents' && !el.checkVisibility()) return;
      visible = style.visibility === 'visible';
    }

    const style = getComputedStyle(el);
    // Where its content is drawn: whether a person can see it at all (page-sight.ts).
    const scene = sight.enter(el, style, outer);
    const here = textSight(el, style, scene);
    // cursor:pointer is inherited, so only where it starts does it say "clickable".
    const pointer = style.cursor === 'pointer';
    // A span laid out as a flex or grid item (flatpickr's weekday names) is a word of its own, as accname hears it.
    const inline = INLINE.has(tag) && (style.display === 'inline' || style.display === 'contents');

    const kind = elementKind(el, tag, pointer, parentPointer, this.wholeDocumentEditable, this.labelSources, this.listened);
    const { role, interactive, interactiveByMarkup, item, draggable, named } = kind;
    const childTextUsed = textUsed || kind.textNamesOther;

    // What a person cannot see is left out (shown marked when asked), unless it can be operated: a control
    // stays, with its name, wherever it is drawn (a skip link off-screen until focused, an opacity-0 checkbox).
    let conceal: Concealment = scene.hidden && !interactive && !FORM_CONTROLS.has(tag) ? scene.hidden : '';
    if (!conceal && role && visible && (tag === 'img' || role === 'iframe') && sight.tinyBox(el)) conceal = 'tiny';
    if (conceal && role && visible && (el.getAttribute('alt') || el.getAttribute('aria-label') || el.getAttribute('title') || role === 'iframe'))
      this.hiddenBlocks.add(conceal === 'tiny' ? el : scene.from!);
    if (conceal === 'tiny' && !args.hidden) return;
    // A hidden box that holds controls (a menu off-canvas until opened) keeps its node, for the controls'
    // place in the outline, and loses its words: its name and its text.
    const wordless = !!conceal && !args.hidden && !!role && visible && !!el.querySelector(CONTROLS_INSIDE);

    if (role && visible && !conceal && !FORM_CONTROLS.has(tag) && !el.firstElementChild && !el.textContent?.trim()) {
      // Empty zero-size boxes (spacers, 0×0 buttons) are noise.
      // Measured only for empty elements: the rect is the dearest call of the walk.
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) return;
    }

    const given = role && visible && !wordless ? givenName(el, tag) : '';
    // A clickable container (a card, Swagger UI's operation row) whose controls are listed
    // below it with their own names: named again by its content, it would repeat them all.
    // Anything but a control is named by the words a person can see of it.
    const fromContent =
      role &&
      visible &&
      !wordless &&
      !given &&
      NAMED_FROM_CONTENT.has(role) &&
      !(role === 'generic' && (kind.holdsListened || el.querySelector(CONTROLS_INSIDE)));
    const hiddenBefore = this.hiddenBlocks.size;
    let content = fromContent ? this.contentText(el, true, interactive || conceal ? undefined : here) : '';
    if (fromContent && !content && !interactive && !conceal && this.hiddenBlocks.size > hiddenBefore) {
      // All it would say is hidden (a heading in its background's colour).
      conceal = seeText(sight, here).reason || 'colour';
      if (args.hidden) content = this.contentText(el);
    }

    if (!role || !visible || (conceal && !args.hidden && !wordless)) {
      // Not shown itself: its children take its place, among its parent's.
      if (!inline) this.text.flush();
      this.children(el, into, childTextUsed, visible, pointer, here);
      if (!inline) this.text.flush();
      return;
    }

    this.text.flush();
    // A title is a tooltip: text only a person hovering the element's box ever sees.
    // A control that shows only an icon is named by what draws it (its image's file, its class: `like`, `star`).
    const name = wordless
      ? ''
      : given || content || hintName(el, tag, () => !sight.tinyBox(el) && scene.hidden !== 'off-screen') || (interactive ? iconName(el) : '');
    // A part of a control styled clickable (Shoelace's radio label inside its radio) that says
    // only the control's name again: the control's own ref does what it would.
    if (role === 'generic' && !interactiveByMarkup && !named && name && name === this.controlNames[this.controlNames.length - 1]) {
      this.children(el, into, true, visible, pointer, here);
      return;
    }
    const node: OutlineNode = { role };
    if (name) node.name = clip(name, NAME_MAX);
    readStates(el, tag, role, node, this.focused);
    // A field's value exactly (its spaces are what the page compares), cut only when long.
    const value = valueOf(el, tag, role, this.wholeDocumentEditable, this.contentText);
    if (value.trim()) {
      node.value = value.length > VALUE_MAX ? value.slice(0, VALUE_MAX) : value;
      if (value.length > VALUE_MAX) node.valueMore = value.length - VALUE_MAX;
    }
    if (role === 'link' && el.hasAttribute('href')) node.url = urlOf(el, this.origin);
    if (draggable) node.draggable = true;
    // A drop-down <select>'s options cannot be clicked (they have no box): its choices are said on
    // its line, for `select` by label, rather than one node each. A list box keeps option nodes.
    const dropDown = tag === 'select' && !(el as HTMLSelectElement).multiple && (el as HTMLSelectElement).size <= 1;
    if (dropDown) putChoices(el as HTMLSelectElement, node);
    if (role === 'iframe') {
      const prefix = `f${this.nextFrame++}`;
      node.frame = prefix;
      this.frameElements.set(prefix, el);
    }
    if (conceal && args.hidden) node.hidden = conceal;
    if (interactive || item) node.ref = this.refs.refFor(el);
    if (item && interactive && !INTERACTIVE_ROLES.has(role)) node.control = true;
    into.push(node);
    this.text.last = null;
    // A heading may lie under an opaque box found later in the page.
    if (role === 'heading' && !conceal) this.waiting.push({ node, owner: el, sameColour: false });

    // Leaves: their content is already in the node (a value, an option list, a frame of its own).
    if (
      role === 'iframe' ||
      tag === 'input' ||
      tag === 'textarea' ||
      tag === 'img' ||
      tag === 'svg' ||
      tag === 'progress' ||
      tag === 'meter' ||
      role === 'textbox' ||
      dropDown
    )
      return;
    const children: OutlineNode[] = [];
    if (tag === 'select') {
      // A list box's options are on screen, to be clicked (with Ctrl for more than one).
      for (const option of (el as HTMLSelectElement).options) {
        const choice: OutlineNode = { role: 'option', name: clip(givenName(option, 'option'), NAME_MAX) };
        readStates(option, 'option', 'option', choice, this.focused);
        choice.ref = this.refs.refFor(option);
        children.push(choice);
      }
    } else {
      // Text shown in full as the name is not repeated; a clipped name leaves the text to be shown.
      const control = INTERACTIVE_ROLES.has(role) || item;
      if (control) this.controlNames.push(name);
      this.children(el, children, childTextUsed || (!!content && content.length <= NAME_MAX), visible, pointer, here);
      if (control) this.controlNames.pop();
      this.text.flush();
    }
    this.fold(node, children, into, name, interactive);
  }

  /** The node takes its children; a node with one thing inside may take it onto its own line instead, or give its place up to it. */
  private fold(node: OutlineNode, children: OutlineNode[], into: OutlineNode[], name: string, interactive: boolean): void {
    const only = children.length === 1 && !children[0].children && !this.scope?.includes(children[0]) ? children[0] : undefined;
    if (only && only.role === TEXT_ROLE && !only.hidden && only === this.text.last) {
      // Only text inside: `- listitem: "Apples"` rather than a nested text node; nothing when the
      // name already says it (flatpickr's `generic "March 1, 2026"` over its "1").
      const takenIn = !(name && name.length <= NAME_MAX && name.includes(only.text!));
      if (takenIn) node.text = only.text;
      // The text's wait goes on, on the node that took it in.
      const last = this.waiting[this.waiting.length - 1];
      if (last?.node === only) {
        if (takenIn) Object.assign(last, { node, inline: true });
        else this.waiting.pop();
      }
    } else if (only && node.role === 'generic' && !interactive && name && only.frame === undefined && mentions(only, clip(name, NAME_MAX))) {
      // A named wrapper around one control of the same name (`generic "Copy path"` around its button): the control alone.
      into[into.length - 1] = only;
    } else if (children.length) {
      node.children = children;
    } else if (!interactive && !name && DROPPED_WHEN_EMPTY.has(node.role)) {
      into.pop();
    }
  }
}

/** Whether a node's line says these words in quotes: as its name, its text, or one of its choices. */
function mentions(node: OutlineNode, words: string): boolean {
  return node.name === words || node.text === words || !!node.options?.includes(words);
}
