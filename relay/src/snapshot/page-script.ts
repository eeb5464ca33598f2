/**
 * The in-page half of the `ai` snapshot: one walk over a frame's DOM (open
 * shadow roots included, in flat-tree order) that returns the outline lines of
 * that frame and the ref → element map, which the snapshot engine keeps in
 * its isolated world (snapshot-engine.ts).
 *
 * `snapshotFrameDom` is serialised and run inside the frame, so it must be
 * self-contained: everything it uses is declared inside it; the types below
 * are erased at compile time and are the only things it shares with Node.
 * It runs in an isolated world: the page's own scripts cannot see or patch
 * the DOM methods it calls, nor what it found.
 *
 * Speed matters more than ARIA completeness here (the target is to beat
 * Playwright's own aria snapshot), so the rules are pragmatic: names come from
 * the common sources only, and styles are only computed where a cheap check
 * (checkVisibility, which reads the layout object) cannot answer alone.
 */

import type { Concealment, Pending, Scene, Sight } from './page-sight.js';

export interface PageScriptArgs {
  /** '' in the main frame, 'f1', 'f2'... in child frames; starts every ref made here. */
  prefix: string;
  /** Number of the first iframe met here (`[frame=fN]`); frames are numbered across the whole page. */
  firstFrame: number;
  /** Most lines to produce. */
  limit: number;
  /** Stored beside the refs, so a ref can be checked against the snapshot that made it. */
  generation: number;
  /** Cut the outline to this element's lines: a ref of the previous snapshot, or a CSS selector (main frame). */
  scope?: { ref?: string; selector?: string };
  /** Show what a person cannot see too, each line marked `[hidden=why]` (for a person debugging). */
  hidden?: boolean;
}

/** What the walk keeps in the isolated world, beside the result it returns. */
export interface WalkState {
  /** The refs of this frame's latest snapshot; an element keeps its ref from one snapshot to the next. */
  refs: Map<string, Element>;
  /** The highest ref number handed out in this document; new elements get the next. */
  highest: number;
  /** The iframe elements of the latest snapshot, by frame prefix. */
  frameElements: Map<string, Element>;
}

/** An iframe line: where the Node side stitches in the child frame's lines. */
export interface FrameSlot {
  prefix: string;
  line: number;
  depth: number;
}

export interface PageScriptResult {
  /** The outline lines joined by '\n': one string crosses the protocol far faster than thousands. */
  text: string;
  frames: FrameSlot[];
  refCount: number;
  /** The highest ref number this document has handed out (refs above it are unknown, below it stale when absent). */
  highest: number;
  /** False on the first walk of this document (nothing to compare a diff with). */
  continued: boolean;
  /** Lines [start, end) that show the scope element; absent when no scope was asked or it is not in this frame. */
  scope?: { start: number; end: number };
  truncated: boolean;
  /** Elements of the document not examined because the limit was reached (0 if not truncated). */
  elementsLeft: number;
  /** Blocks of text a person cannot see (page-sight.ts), left out (or, with `hidden`, shown marked). */
  hidden: number;
  stats: { elements: number; ms: number };
}

/**
 * Walks the frame. `previous` is the state the last walk of this document
 * left (undefined on its first); the new state replaces it.
 */
export function snapshotFrameDom(args: PageScriptArgs, previous: WalkState | undefined, sight: Sight): { result: PageScriptResult; state: WalkState } {
  const started = performance.now();
  const NAME_MAX = 80;
  const TEXT_MAX = 200;
  const URL_MAX = 120;

  // Never rendered, or rendered as something we cannot describe usefully.
  const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'object', 'embed', 'datalist', 'canvas', 'video', 'audio', 'map']);
  // Text on both sides of these flows together; any other element breaks a text run.
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'slot']);
  const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'treeitem', 'gridcell']);
  // Items of a container: an agent may need to act on one (drag a sortable list's item, pick a
  // table row, sort by a grid's column) though its handlers sit on an ancestor or come later
  // (a library sets draggable on pointerdown). They get a ref by role, whatever the page set.
  const ITEM_ROLES = new Set(['listitem', 'row', 'columnheader', 'rowheader']);
  // Roles whose accessible name is their text: that text is then not repeated as `- text:` below them.
  const NAMED_FROM_CONTENT = new Set(['button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'switch', 'checkbox', 'radio', 'tooltip', 'generic', 'label', 'gridcell', 'columnheader', 'rowheader']);
  // Structure that says nothing when it is empty and unnamed.
  const DROPPED_WHEN_EMPTY = new Set(['generic', 'group', 'list', 'navigation', 'main', 'banner', 'contentinfo', 'complementary', 'region', 'form', 'article', 'rowgroup', 'figure']);
  // Keep these even at zero size: custom-styled checkboxes and file inputs are often 0×0 but still operable.
  const FORM_CONTROLS = new Set(['input', 'select', 'textarea', 'option', 'optgroup']);
  const CONTROLS_INSIDE =
    'a[href], button, input:not([type=hidden]), select, textarea, [contenteditable], [onclick], [tabindex]:not([tabindex="-1"]), ' +
    '[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=treeitem], [role=textbox], [role=combobox]';
  // Elements a name from content looks at, at most: a clickable card full of markup costs no more than a button.
  const CONTENT_ELEMENTS_MAX = 200;

  const lines: string[] = [];
  // The names of the controls (buttons, radios, tabs...) the walk is inside, innermost last.
  const controlNames: string[] = [];
  const frames: FrameSlot[] = [];
  const refs = new Map<string, Element>();
  const frameElements = new Map<string, Element>();
  // An element keeps its ref across snapshots of one document, so refs an
  // agent holds stay good while their elements do; new elements get new numbers.
  const earlier = new Map<Element, string>();
  for (const [ref, element] of previous?.refs ?? []) earlier.set(element, ref);
  let highest = previous?.highest ?? 0;
  const refFor = (el: Element): string => {
    const kept = earlier.get(el);
    // A frame renumbered since (an iframe added before it) starts afresh: its refs carry the prefix.
    const ref = kept !== undefined && kept.startsWith(`${args.prefix}e`) && !refs.has(kept) ? kept : `${args.prefix}e${++highest}`;
    refs.set(ref, el);
    return ref;
  };
  let scopeElement: Element | null = null;
  if (args.scope?.ref) scopeElement = previous?.refs.get(args.scope.ref) ?? null;
  else if (args.scope?.selector) {
    // A landmark named as a word matches its element or its role attribute alike: Sphinx's
    // `<div role="main">` is `main` as much as `<main>` is (a cut note names sections that way).
    const landmarks: Record<string, string> = {
      main: 'main, [role="main"]',
      nav: 'nav, [role="navigation"]',
      navigation: 'nav, [role="navigation"]',
      header: 'header, [role="banner"]',
      banner: 'header, [role="banner"]',
      footer: 'footer, [role="contentinfo"]',
      contentinfo: 'footer, [role="contentinfo"]',
      aside: 'aside, [role="complementary"]',
      complementary: 'aside, [role="complementary"]',
      search: 'search, [role="search"]',
    };
    const wanted = args.scope.selector.trim().toLowerCase();
    scopeElement = document.querySelector(Object.hasOwn(landmarks, wanted) ? landmarks[wanted] : args.scope.selector);
  }
  let scope: { start: number; end: number } | undefined;
  let nextFrame = args.firstFrame;
  let truncated = false;
  let visited = 0;
  let pendingText = '';
  let pendingDepth = 0;
  // Where the run's first words are (for a cover found later), whether the run is text in its background's
  // colour (its own line, settled at the end), and, shown when asked, why it cannot be seen.
  let pendingOwner: Element | null = null;
  let pendingSame = false;
  let pendingMark: Concealment = '';
  // Lines whose fate waits for the whole page (page-sight.ts settle): runs of text, headings.
  const waiting: Array<Pending & { line: number; inline?: string }> = [];
  // Blocks of text a person cannot see, each by the element it starts at.
  const hiddenBlocks = new Set<Element>();
  // The `- text:` line just written, so a parent with nothing else inside can take it inline.
  let lastTextLine = -1;
  let lastText = '';

  // designMode does not show in isContentEditable; a contenteditable body does.
  const wholeDocumentEditable = !!document.body && (document.designMode === 'on' || document.body.isContentEditable);
  let focused: Element | null = document.activeElement;
  while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
  // A document with nothing focused names its body; that is focus only when the document has it (an editor's body).
  if (focused === document.body && !document.hasFocus()) focused = null;

  // Elements whose text is some control's aria-labelledby name: shown as that name, not again as text.
  const labelSources = new Set<Element>();
  for (const el of document.querySelectorAll('[aria-labelledby]')) {
    for (const id of (el.getAttribute('aria-labelledby') ?? '').split(/\s+/)) {
      const source = id && document.getElementById(id);
      if (source) labelSources.add(source);
    }
  }

  const indents: string[] = [''];
  const indent = (depth: number): string => {
    while (indents.length <= depth) indents.push(indents[indents.length - 1] + '  ');
    return indents[depth];
  };
  // Zero-width spaces and soft hyphens (Swagger UI breaks paths with them) are not heard: gone, as accname drops them.
  const collapse = (text: string): string => text.replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max - 1) + '…' : text);
  // An element's text in the flat tree (a slot's assigned nodes, a host's shadow root), as the
  // accessibility tree reads a label: <x-checkbox>Subscribe</x-checkbox> names the checkbox
  // inside its shadow root through the slot. `skip` (a label's own control) is left out.
  const flatText = (node: Node, skip?: Element): string => {
    if (node.nodeType === Node.TEXT_NODE) return (node as Text).data;
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    const el = node as Element;
    if (el === skip || SKIPPED.has(el.localName)) return '';
    if (skip && FORM_CONTROLS.has(el.localName)) return '';
    const assigned = el.localName === 'slot' ? (el as HTMLSlotElement).assignedNodes() : [];
    const children: ArrayLike<Node> = assigned.length ? assigned : (el.shadowRoot ?? el).childNodes;
    let text = '';
    for (let i = 0; i < children.length; i++) text += flatText(children[i], skip);
    return text;
  };

  // True, and the snapshot marked truncated, once `limit` lines are out.
  const full = (): boolean => {
    if (lines.length < args.limit) return false;
    truncated = true;
    return true;
  };

  const flushText = (): void => {
    const text = collapse(pendingText);
    const owner = pendingOwner;
    const mark = pendingMark;
    const same = pendingSame;
    pendingText = '';
    pendingOwner = null;
    pendingMark = '';
    pendingSame = false;
    if (!text || full()) return;
    lastText = JSON.stringify(clip(text, TEXT_MAX));
    lastTextLine = lines.push(`${indent(pendingDepth)}- text${mark ? ` [hidden=${mark}]` : ''}: ${lastText}`) - 1;
    if (owner && !mark) waiting.push({ line: lastTextLine, owner, sameColour: same });
  };

  const appendText = (data: string, depth: number, owner: Element, same: boolean): void => {
    if (pendingText && (pendingDepth !== depth || pendingMark || same !== pendingSame)) flushText();
    if (!pendingText) {
      pendingOwner = owner;
      pendingSame = same;
    }
    pendingText += data;
    pendingDepth = depth;
  };

  // Text a person cannot see: one block per element it starts at, shown (marked) only when asked.
  const hiddenText = (data: string, depth: number, reason: Concealment, from: Element): void => {
    hiddenBlocks.add(from);
    if (!args.hidden) return;
    if (pendingText && (pendingMark !== reason || pendingDepth !== depth)) flushText();
    pendingText += data;
    pendingMark = reason;
    pendingDepth = depth;
  };

  /** A line as it is shown when asked for hidden text: `[hidden=why]` after its role and name (`inline`: the text it took in). */
  const marked = (line: string, reason: Concealment, inline?: string): string => {
    if (inline !== undefined) return `${line.slice(0, line.length - inline.length)} [hidden=${reason}]${inline}`;
    const text = /^(\s*- text)(: .*)$/.exec(line);
    if (text) return `${text[1]} [hidden=${reason}]${text[2]}`;
    const ref = line.lastIndexOf(' [ref=');
    if (ref >= 0) return `${line.slice(0, ref)} [hidden=${reason}]${line.slice(ref)}`;
    return line.endsWith(':') ? `${line.slice(0, -1)} [hidden=${reason}]:` : `${line} [hidden=${reason}]`;
  };

  /** What a text node's parent makes of its words: worked out once, at its first words (most elements hold none). */
  interface TextSight {
    element: Element;
    style: CSSStyleDeclaration;
    scene: Scene;
    known: boolean;
    reason: Concealment;
    same: boolean;
  }
  const seeText = (sight_: TextSight): TextSight => {
    if (!sight_.known) {
      sight_.known = true;
      sight_.reason = sight_.scene.hidden || sight.textHidden(sight_.element, sight_.style, sight_.scene);
      sight_.same = !sight_.reason && sight.sameColour(sight_.style, sight_.scene);
    }
    return sight_;
  };

  const implicitRole = (el: Element, tag: string): string => {
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
  };

  // Text of a label without the text of the control it wraps (a <select>'s options, say).
  const labelText = (label: Element, control: Element): string => flatText(label, control);

  // Text of an element's content as a reader hears it (accname "name from content"):
  // hidden parts left out, a child's own aria-label or alt in place of its content, and a
  // space where layout breaks the line (a block, a flex item: Swagger UI's "GET", "/pets",
  // "List pets" are spans in a flex row). It stops once it has more than a name can show,
  // so a clickable card costs no more than a button.
  // CSS generated text counts in a name from content, as in the accessibility tree: Quill's
  // header picker is a button whose only text is `content: attr(data-label)` or "Normal".
  // Icon-font glyphs (private use area) say nothing and are left out.
  const generatedText = (el: Element, pseudo: '::before' | '::after'): string => {
    const content = getComputedStyle(el, pseudo).content;
    if (!content || content === 'none' || content === 'normal') return '';
    let text = '';
    for (const [, quoted, attribute] of content.matchAll(/"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)\s*\)/g)) {
      text += quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (el.getAttribute(attribute) ?? '');
    }
    return text.replace(/[\ue000-\uf8ff]/g, '');
  };

  // CSS generated text is read only where the element's own text says nothing (Quill's picker):
  // asking every element for its ::before and ::after slowed a 5,000-element page's snapshot by
  // about a fifth (88 → 108 ms median here). A form control's ::after (TodoMVC draws its ticks
  // so) is decoration: only its labels name it.
  // `seen` (what is not a control) leaves out the words a person cannot see; a control's name is its
  // accessible name whole, as a screen reader says it (an icon button's sr-only words included).
  const contentText = (el: Element, generated = true, seen?: TextSight): string => {
    const text = contentTextOf(el, false, seen);
    return text || !generated || FORM_CONTROLS.has(el.localName) ? text : contentTextOf(el, true, seen);
  };

  const contentTextOf = (el: Element, withGenerated: boolean, seen?: TextSight): string => {
    let text = '';
    // The budget counts what a reader would hear, not the markup's indentation.
    let heard = 0;
    let elements = 0;
    const add = (words: string): void => {
      text += words;
      heard += words.trim().length;
    };
    const collect = (node: Node, here?: TextSight): void => {
      // The flat tree, as the walk sees it: a shadow host's shadow root, a slot's assigned nodes.
      const host = node as Element;
      const assigned = host.localName === 'slot' ? (host as HTMLSlotElement).assignedNodes() : [];
      const children: ArrayLike<Node> = assigned.length ? assigned : (host.shadowRoot ?? node).childNodes;
      for (let i = 0; i < children.length && heard <= NAME_MAX * 2 && elements < CONTENT_ELEMENTS_MAX; i++) {
        const child = children[i];
        if (child.nodeType === Node.TEXT_NODE) {
          const data = (child as Text).data;
          if (here && data.trim()) {
            const { reason, same, scene, element } = seeText(here);
            if (reason || same) {
              hiddenBlocks.add(scene.hidden ? scene.from! : element);
              continue;
            }
          }
          add(data);
          continue;
        }
        if (child.nodeType !== Node.ELEMENT_NODE) continue;
        elements++;
        const element = child as Element;
        const tag = element.localName;
        if (SKIPPED.has(tag) || FORM_CONTROLS.has(tag) || element.getAttribute('aria-hidden') === 'true') continue;
        if (tag === 'br') {
          text += ' ';
          continue;
        }
        const style = getComputedStyle(element);
        const display = style.display;
        if (display !== 'contents' && !element.checkVisibility({ visibilityProperty: true })) continue;
        let inner: TextSight | undefined;
        if (here) {
          const scene = sight.enter(element, style, here.scene);
          if (scene.hidden) {
            if (element.textContent?.trim() || element.getAttribute('alt') || element.getAttribute('aria-label')) hiddenBlocks.add(scene.from!);
            continue;
          }
          inner = { element, style, scene, known: false, reason: '', same: false };
        }
        // As accname does: anything but inline (inline-block badges, flex items, blocks) is a word of its own.
        const apart = display !== 'inline' && display !== 'contents';
        if (apart) text += ' ';
        const label = element.getAttribute('aria-label');
        if (label && label.trim()) add(label);
        else if (tag === 'img') add(element.getAttribute('alt') ?? '');
        // An icon's drawing says nothing; its <title> is its name.
        else if (tag === 'svg') add(element.querySelector(':scope > title')?.textContent ?? '');
        else {
          if (withGenerated) add(generatedText(element, '::before'));
          collect(element, inner);
          if (withGenerated) add(generatedText(element, '::after'));
        }
        if (apart) text += ' ';
      }
    };
    if (withGenerated) add(generatedText(el, '::before'));
    collect(el, seen);
    if (withGenerated) add(generatedText(el, '::after'));
    return collapse(text);
  };

  // The name an author gave: aria, a <label>, alt text, a legend... ('' when none).
  const givenName = (el: Element, tag: string): string => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode() as Document | ShadowRoot;
      const text = collapse(
        labelledBy
          .split(/\s+/)
          .map((id) => {
            const source = id && root.getElementById(id);
            return source ? flatText(source) : '';
          })
          .join(' '),
      );
      if (text) return text;
    }
    const ariaLabel = el.getAttribute('aria-label');
    if (ariaLabel && ariaLabel.trim()) return collapse(ariaLabel);

    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length) {
      const text = collapse([...labels].map((label) => labelText(label, el)).join(' '));
      if (text) return text;
    }
    switch (tag) {
      case 'input': {
        const input = el as HTMLInputElement;
        if (input.type === 'submit') return collapse(input.value) || 'Submit';
        if (input.type === 'reset') return collapse(input.value) || 'Reset';
        if (input.type === 'button') return collapse(input.value);
        if (input.type === 'image') return collapse(input.alt || input.value) || 'Submit';
        return '';
      }
      case 'img':
      case 'area':
        return collapse(el.getAttribute('alt') ?? '');
      case 'fieldset':
        return collapse(el.querySelector(':scope > legend')?.textContent ?? '');
      case 'table':
        return collapse((el as HTMLTableElement).caption?.textContent ?? '');
      case 'option':
        return collapse((el as HTMLOptionElement).label || el.textContent || '');
      default:
        return '';
    }
  };

  // Last resort names: tooltips and placeholders.
  const hintName = (el: Element, tag: string): string => {
    const title = el.getAttribute('title');
    if (title && title.trim()) return collapse(title);
    // A placeholder names only what takes text: on a <select> (Tom Select's) it is not read.
    const placeholder = (tag === 'input' || tag === 'textarea' ? el.getAttribute('placeholder') : null) ?? el.getAttribute('aria-placeholder');
    if (placeholder && placeholder.trim()) return collapse(placeholder);
    if (tag === 'svg') return collapse(el.querySelector('title')?.textContent ?? '');
    return '';
  };

  const CHOICES_SHOWN = 60;
  const choicesOf = (select: HTMLSelectElement): string => {
    const labels = [...select.options].slice(0, CHOICES_SHOWN).map((option) => JSON.stringify(clip(givenName(option, 'option'), NAME_MAX)));
    const more = select.options.length - CHOICES_SHOWN;
    return labels.join(', ') + (more > 0 ? `, and ${more} more` : '');
  };

  const valueOf = (el: Element, tag: string, role: string): string => {
    if (tag === 'input') {
      const input = el as HTMLInputElement;
      if (input.type === 'checkbox' || input.type === 'radio' || role === 'button') {
        if (input.type === 'file' && input.files?.length) return [...input.files].map((file) => file.name).join(', ');
        return '';
      }
      // An agent needs to know a password was typed, never what it is.
      if (input.type === 'password') return input.value ? '•'.repeat(Math.min(input.value.length, 8)) : '';
      return input.value;
    }
    if (tag === 'textarea') return (el as HTMLTextAreaElement).value;
    if (tag === 'select') {
      const select = el as HTMLSelectElement;
      return select.multiple ? '' : (select.selectedOptions[0]?.label ?? '');
    }
    if (tag === 'progress' || tag === 'meter') {
      const meter = el as HTMLProgressElement;
      return meter.max ? `${Math.round((meter.value / meter.max) * 100)}%` : String(meter.value);
    }
    // What an editor shows: its scripts and hidden parts are not its text (the value is clipped anyway).
    // What is typed, without CSS-drawn text (Quill's placeholder is `::before { content: attr(data-placeholder) }`).
    if (role === 'textbox' && ((el as HTMLElement).isContentEditable || (el === document.body && wholeDocumentEditable))) return contentText(el, false);
    return el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow') ?? '';
  };

  const statesOf = (el: Element, tag: string, role: string): string => {
    let out = '';
    if (role === 'heading') {
      const level = el.getAttribute('aria-level') ?? (tag.length === 2 && tag[0] === 'h' ? tag[1] : '');
      if (level) out += ` [level=${level}]`;
    }
    const ariaChecked = el.getAttribute('aria-checked');
    if (tag === 'input' && (role === 'checkbox' || role === 'radio')) {
      const input = el as HTMLInputElement;
      if (input.indeterminate) out += ' [checked=mixed]';
      else if (input.checked) out += ' [checked]';
    } else if (ariaChecked === 'true') out += ' [checked]';
    else if (ariaChecked === 'mixed') out += ' [checked=mixed]';
    if (el.getAttribute('aria-pressed') === 'true') out += ' [pressed]';
    if (el.getAttribute('aria-disabled') === 'true' || (FORM_CONTROLS.has(tag) || tag === 'button' || tag === 'fieldset' ? el.matches(':disabled') : false)) out += ' [disabled]';
    const expanded = tag === 'summary' ? String((el.parentElement as HTMLDetailsElement | null)?.open ?? false) : el.getAttribute('aria-expanded');
    if (expanded === 'true') out += ' [expanded]';
    else if (expanded === 'false') out += ' [expanded=false]';
    if ((tag === 'option' && (el as HTMLOptionElement).selected) || el.getAttribute('aria-selected') === 'true') out += ' [selected]';
    if ((el as HTMLInputElement).required || el.getAttribute('aria-required') === 'true') out += ' [required]';
    if (((tag === 'input' || tag === 'textarea') && (el as HTMLInputElement).readOnly) || el.getAttribute('aria-readonly') === 'true') out += ' [readonly]';
    if (el === focused) out += ' [focused]';
    return out;
  };

  // Same-origin links as a path (shorter, and stable across hosts); others in full.
  // The attribute is read first: resolving every href (and reading location) is a
  // measurable part of the walk on link-heavy pages.
  const origin = location.origin;
  const urlOf = (el: Element): string => {
    const written = el.getAttribute('href') ?? '';
    if (written[0] === '/' && written[1] !== '/') return clip(written, URL_MAX);
    const href = (el as HTMLAnchorElement).href || written;
    const short = origin !== 'null' && href.startsWith(origin + '/') ? href.slice(origin.length) : href;
    return clip(short, URL_MAX);
  };

  // `here`: the element whose own text nodes these are, and where it is drawn (page-sight.ts).
  const walkNode = (child: Node, depth: number, textUsed: boolean, visible: boolean, cursorPointer: boolean, here: TextSight): void => {
    if (child.nodeType === Node.TEXT_NODE) {
      if (!visible || textUsed) return;
      const data = (child as Text).data;
      // Whitespace joins a run, never starts one.
      if (!data.trim()) {
        if (pendingText) pendingText += data;
        return;
      }
      const seen = seeText(here);
      if (seen.reason) hiddenText(data, depth, seen.reason, seen.scene.hidden ? seen.scene.from! : seen.element);
      else appendText(data, depth, seen.element, seen.same);
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      visit(child as Element, depth, textUsed, cursorPointer, here.scene);
    }
  };

  // Children in the flat tree: a shadow host shows its shadow root, a slot what is assigned to it.
  const walkChildren = (parent: Element, depth: number, textUsed: boolean, visible: boolean, cursorPointer: boolean, here: TextSight): void => {
    if (parent.localName === 'slot') {
      const assigned = (parent as HTMLSlotElement).assignedNodes();
      if (assigned.length) {
        for (const child of assigned) {
          if (truncated) return;
          walkNode(child, depth, textUsed, visible, cursorPointer, here);
        }
        return;
      }
    }
    // Sibling links, not childNodes[i]: indexing a NodeList was a tenth of the walk.
    for (let child = ((parent as HTMLElement).shadowRoot ?? parent).firstChild; child; child = child.nextSibling) {
      if (truncated) return;
      walkNode(child, depth, textUsed, visible, cursorPointer, here);
    }
  };

  // The scope element's lines are where its walk starts and ends.
  const visit = (el: Element, depth: number, textUsed: boolean, parentPointer: boolean, outer: Scene): void => {
    if (el !== scopeElement) return visitElement(el, depth, textUsed, parentPointer, outer);
    flushText();
    const start = lines.length;
    visitElement(el, depth, textUsed, parentPointer, outer);
    flushText();
    scope = { start, end: lines.length };
  };

  const visitElement = (el: Element, depth: number, textUsed: boolean, parentPointer: boolean, outer: Scene): void => {
    visited++;
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
    const here: TextSight = { element: el, style, scene, known: false, reason: '', same: false };
    // cursor:pointer is inherited, so only where it starts does it say "clickable".
    const pointer = style.cursor === 'pointer';
    // A span laid out as a flex or grid item (flatpickr's weekday names) is a word of its own, as accname hears it.
    const inline = INLINE.has(tag) && (style.display === 'inline' || style.display === 'contents');

    const explicit = el.getAttribute('role');
    const explicitRole = explicit ? explicit.trim().split(/\s+/)[0] : '';
    let role = explicitRole === 'presentation' || explicitRole === 'none' ? '' : explicitRole || implicitRole(el, tag);

    // An editor's own document (TinyMCE, CKEditor 4, webmail composers: a body in an iframe, or designMode) counts too.
    const editable = el === document.body ? wholeDocumentEditable : el.hasAttribute('contenteditable') && (el as HTMLElement).isContentEditable && !el.parentElement?.isContentEditable;
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
    // Where cursor:pointer starts on a box that holds controls of its own (Swagger UI's operation
    // row, a styled label around its checkbox), those controls are the handles: the box gets none.
    const pointerStarts = pointer && !parentPointer && !(role === '' && el.querySelector(CONTROLS_INSIDE));
    let interactive = interactiveByMarkup || pointerStarts;

    // A label: its text names its control. If that control is hidden (a styled
    // file input, say) the label is what a user clicks, so it becomes the target.
    let childTextUsed = textUsed || labelSources.has(el) || (tag === 'legend' && el.parentElement?.localName === 'fieldset') || tag === 'caption';
    if (tag === 'label' && !explicitRole) {
      const control = (el as HTMLLabelElement).control;
      if (control && control.checkVisibility()) childTextUsed = true;
      else if (control) {
        role = 'label';
        interactive = true;
      }
    }
    // A div or span is shown only when it does something or an author named it.
    const named = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
    if (!role && (interactive || named)) role = 'generic';
    if (role === 'generic' && !interactive && !named) role = '';

    // What a person cannot see is left out (shown marked when asked), unless it can be operated: a control
    // stays, with its name, wherever it is drawn (a skip link off-screen until focused, an opacity-0 checkbox).
    let conceal: Concealment = scene.hidden && !interactive && !FORM_CONTROLS.has(tag) ? scene.hidden : '';
    if (!conceal && role && visible && (tag === 'img' || role === 'iframe') && sight.tinyBox(el)) conceal = 'tiny';
    if (conceal && role && visible && (el.getAttribute('alt') || el.getAttribute('aria-label') || el.getAttribute('title') || role === 'iframe')) hiddenBlocks.add(conceal === 'tiny' ? el : scene.from!);
    if (conceal === 'tiny' && !args.hidden) return;
    // A hidden box that holds controls (a menu off-canvas until opened) keeps its line, for the controls'
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
    const fromContent = role && visible && !wordless && !given && NAMED_FROM_CONTENT.has(role) && !(role === 'generic' && el.querySelector(CONTROLS_INSIDE));
    const hiddenBefore = hiddenBlocks.size;
    let content = fromContent ? contentText(el, true, interactive || conceal ? undefined : here) : '';
    if (fromContent && !content && !interactive && !conceal && hiddenBlocks.size > hiddenBefore) {
      // All it would say is hidden (a heading in its background's colour).
      conceal = seeText(here).reason || 'colour';
      if (args.hidden) content = contentText(el);
    }

    if (!role || !visible || (conceal && !args.hidden && !wordless)) {
      // Not shown itself: its children take its place, at its depth.
      if (!inline) flushText();
      walkChildren(el, depth, childTextUsed, visible, pointer, here);
      if (!inline) flushText();
      return;
    }

    flushText();
    // Checked before anything is handed out, so every ref and frame number made is on a line.
    if (full()) return;
    const name = wordless ? '' : given || content || hintName(el, tag);
    // A part of a control styled clickable (Shoelace's radio label inside its radio) that says
    // only the control's name again: the control's own ref does what it would.
    if (role === 'generic' && !interactiveByMarkup && !named && name && name === controlNames[controlNames.length - 1]) {
      walkChildren(el, depth, true, visible, pointer, here);
      return;
    }
    let line = `${indent(depth)}- ${role}`;
    if (name) line += ` ${JSON.stringify(clip(name, NAME_MAX))}`;
    line += statesOf(el, tag, role);
    const value = collapse(valueOf(el, tag, role));
    if (value) line += ` [value=${clip(value, NAME_MAX)}]`;
    if (role === 'link' && el.hasAttribute('href')) line += ` [url=${urlOf(el)}]`;
    if (draggable) line += ' [draggable]';
    // A drop-down <select>'s options cannot be clicked (they have no box): its choices are said on
    // its line, for `select` by label, rather than one ref'd line each. A list box keeps option lines.
    const dropDown = tag === 'select' && !(el as HTMLSelectElement).multiple && (el as HTMLSelectElement).size <= 1;
    if (dropDown) line += ` [options: ${choicesOf(el as HTMLSelectElement)}]`;
    if (role === 'iframe') {
      const prefix = `f${nextFrame++}`;
      line += ` [frame=${prefix}]`;
      frameElements.set(prefix, el);
      frames.push({ prefix, line: lines.length, depth });
    }
    if (conceal && args.hidden) line += ` [hidden=${conceal}]`;
    if (interactive || item) line += ` [ref=${refFor(el)}]`;
    lines.push(line);
    const lineIndex = lines.length - 1;
    lastTextLine = -1;
    // A heading may lie under an opaque box found later in the page.
    if (role === 'heading' && !conceal) waiting.push({ line: lineIndex, owner: el, sameColour: false });

    // Leaves: their content is already in the line (a value, an option list, a frame of its own).
    if (role === 'iframe' || tag === 'input' || tag === 'textarea' || tag === 'img' || tag === 'svg' || tag === 'progress' || tag === 'meter' || role === 'textbox') return;
    if (tag === 'select') {
      if (dropDown) return;
      // A list box's options are on screen, to be clicked (with Ctrl for more than one).
      for (const option of (el as HTMLSelectElement).options) {
        if (full()) break;
        lines.push(`${indent(depth + 1)}- option ${JSON.stringify(clip(givenName(option, 'option'), NAME_MAX))}${statesOf(option, 'option', 'option')} [ref=${refFor(option)}]`);
      }
    } else {
      // Text shown in full as the name is not repeated; a clipped name leaves the text to be shown.
      const control = INTERACTIVE_ROLES.has(role) || item;
      if (control) controlNames.push(name);
      walkChildren(el, depth + 1, childTextUsed || (!!content && content.length <= NAME_MAX), visible, pointer, here);
      if (control) controlNames.pop();
      flushText();
    }

    const added = lines.length - 1 - lineIndex;
    if (added === 1 && lastTextLine === lineIndex + 1 && !lines[lineIndex + 1].includes('- text [hidden=')) {
      // Only text inside: `- listitem: "Apples"` rather than a nested text line; nothing when the
      // name already says it (flatpickr's `generic "March 1, 2026"` over its "1").
      lines.pop();
      const takenIn = !(name && name.length <= NAME_MAX && name.includes(JSON.parse(lastText) as string));
      if (takenIn) lines[lineIndex] += `: ${lastText}`;
      // The text's wait goes on, on the line that took it in.
      const last = waiting[waiting.length - 1];
      if (last?.line === lineIndex + 1) {
        if (takenIn) Object.assign(last, { line: lineIndex, inline: `: ${lastText}` });
        else waiting.pop();
      }
    } else if (
      added === 1 && role === 'generic' && !interactive && name &&
      lines[lineIndex + 1].startsWith(`${indent(depth + 1)}- `) && lines[lineIndex + 1].includes(` ${JSON.stringify(clip(name, NAME_MAX))}`) &&
      // Frame slots and a scope's range hold line numbers: those lines stay where they are.
      !lines[lineIndex + 1].includes('[frame=') && scope?.start !== lineIndex + 1
    ) {
      // A named wrapper around one control of the same name (`generic "Copy path"` around its button): the control alone.
      lines[lineIndex] = indent(depth) + lines[lineIndex + 1].slice(indent(depth + 1).length);
      lines.pop();
      const last = waiting[waiting.length - 1];
      if (last?.line === lineIndex + 1) last.line = lineIndex;
    } else if (added > 0) {
      lines[lineIndex] += ':';
    } else if (!interactive && !name && DROPPED_WHEN_EMPTY.has(role)) {
      lines.pop();
    }
  };

  /** Lines taken out after the walk: frame slots and the scope's range move with the lines they name. */
  const dropLines = (gone: Set<number>): void => {
    const moved: number[] = [];
    const kept: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      moved.push(kept.length);
      if (!gone.has(i)) kept.push(lines[i]);
    }
    moved.push(kept.length);
    for (const slot of frames) slot.line = moved[slot.line];
    if (scope) scope = { start: moved[scope.start], end: moved[scope.end] };
    // A line left introducing nothing loses its colon.
    for (let i = 0; i < kept.length; i++) {
      if (!kept[i].endsWith(':')) continue;
      const next = kept[i + 1];
      if (next === undefined || next.length - next.trimStart().length <= kept[i].length - kept[i].trimStart().length) kept[i] = kept[i].slice(0, -1);
    }
    lines.length = 0;
    for (const line of kept) lines.push(line);
  };

  const root = document.body ?? document.documentElement;
  if (wholeDocumentEditable) {
    // The whole document is an editor: one textbox an agent can click and type into.
    visit(root, 0, false, false, sight.top());
    flushText();
  } else if (root) {
    const rootStyle = getComputedStyle(root);
    walkChildren(root, 0, false, rootStyle.visibility === 'visible', rootStyle.cursor === 'pointer', { element: root, style: rootStyle, scene: sight.top(), known: false, reason: '', same: false });
    flushText();
  }

  // What waited for the whole page: text in its background's colour (hidden unless something else is
  // painted under it), and anything an opaque box drawn above it covers.
  if (waiting.length && (sight.mayCover() || waiting.some((entry) => entry.sameColour))) {
    const verdicts = sight.settle(waiting);
    const gone = new Set<number>();
    verdicts.forEach((reason, i) => {
      if (!reason) return;
      const entry = waiting[i];
      hiddenBlocks.add(entry.owner);
      if (args.hidden) lines[entry.line] = marked(lines[entry.line], reason, entry.inline);
      else if (entry.inline !== undefined) lines[entry.line] = lines[entry.line].slice(0, lines[entry.line].length - entry.inline.length);
      else gone.add(entry.line);
    });
    if (gone.size) dropLines(gone);
  }

  const result: PageScriptResult = {
    text: lines.join('\n'),
    frames,
    refCount: refs.size,
    highest,
    continued: previous !== undefined,
    ...(scope ? { scope } : {}),
    truncated,
    // Approximate: hidden subtrees are never visited, shadow trees are not in the count.
    elementsLeft: truncated && root ? Math.max(0, root.getElementsByTagName('*').length - visited) : 0,
    // Scoped, only what the scope loses counts: blocks inside it, or one it is inside of.
    hidden: scopeElement ? [...hiddenBlocks].filter((block) => scopeElement!.contains(block) || block.contains(scopeElement)).length : hiddenBlocks.size,
    stats: { elements: visited, ms: Math.round((performance.now() - started) * 100) / 100 },
  };
  return { result, state: { refs, highest, frameElements } };
}
