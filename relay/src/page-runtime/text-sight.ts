import type { Concealment } from './outline-node.js';
import type { Scene, Sight } from './page-sight.js';

/**
 * What an element makes of the words of its own text nodes: whether a person
 * can see them (page-sight.ts), worked out once, at its first words (most
 * elements hold none).
 */
export interface TextSight {
  element: Element;
  style: CSSStyleDeclaration;
  scene: Scene;
  known: boolean;
  reason: Concealment;
  /** Its words are in its background's colour: settled once the whole page is known. */
  same: boolean;
}

export function textSight(element: Element, style: CSSStyleDeclaration, scene: Scene): TextSight {
  return { element, style, scene, known: false, reason: '', same: false };
}

export function seeText(sight: Sight, here: TextSight): TextSight {
  if (!here.known) {
    here.known = true;
    here.reason = here.scene.hidden || sight.textHidden(here.element, here.style, here.scene);
    here.same = !here.reason && sight.sameColour(here.style, here.scene);
  }
  return here;
}
