import type { Sight } from './page-sight.js';
import { FORM_CONTROLS, SKIPPED } from './roles.js';
import { seeText, type TextSight, textSight } from './text-sight.js';
import { collapse, generatedText, NAME_MAX } from './words.js';

/**
 * An element's name from its content, as a reader hears it (accname "name
 * from content"): hidden parts left out, a child's own aria-label or alt in
 * place of its content, and a space where layout breaks the line (a block, a
 * flex item: Swagger UI's "GET", "/pets", "List pets" are spans in a flex
 * row). It stops once it has more than a name can show, so a clickable card
 * costs no more than a button.
 *
 * CSS generated text is read only where the element's own text says nothing
 * (Quill's picker): asking every element for its ::before and ::after slowed
 * a 5,000-element page's snapshot by about a fifth (88 → 108 ms median
 * here). A form control's ::after (TodoMVC draws its ticks so) is
 * decoration: only its labels name it.
 *
 * `seen` (what is not a control) leaves out the words a person cannot see,
 * each block counted in `hiddenBlocks`; a control's name is its accessible
 * name whole, as a screen reader says it (an icon button's sr-only words
 * included).
 */

/** Elements a name from content looks at, at most: a clickable card full of markup costs no more than a button. */
const CONTENT_ELEMENTS_MAX = 200;

export type ContentText = (el: Element, generated?: boolean, seen?: TextSight) => string;

export function contentNames(sight: Sight, hiddenBlocks: Set<Element>): ContentText {
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
            const { reason, same, scene, element } = seeText(sight, here);
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
          inner = textSight(element, style, scene);
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

  return (el, generated = true, seen) => {
    const text = contentTextOf(el, false, seen);
    return text || !generated || FORM_CONTROLS.has(el.localName) ? text : contentTextOf(el, true, seen);
  };
}
