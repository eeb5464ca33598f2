import type { ElementHandle } from 'playwright-core';

/**
 * Where a person's click for an element goes. A checkbox or radio that a
 * library hides under its own drawing (Shoelace's: opacity 0, no pointer
 * events, a styled box over it inside its <label>) is not where anyone
 * clicks: they click the box, and the label passes the click to the input.
 * So such an input is clicked through its label, which Playwright then
 * checks for being visible, enabled and uncovered like any target. Anything
 * else is its own target.
 */
export async function pointerTarget(element: ElementHandle): Promise<ElementHandle> {
  const label = await element.evaluateHandle((el) => {
    if (!(el instanceof HTMLInputElement) || (el.type !== 'checkbox' && el.type !== 'radio') || !el.labels?.length) return null;
    const style = getComputedStyle(el);
    let covered = false;
    const rect = el.getBoundingClientRect();
    // Only on screen does a hit test say anything (Playwright scrolls a target into view first).
    if (rect.width > 0 && rect.height > 0 && rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth) {
      const root = el.getRootNode() as Document | ShadowRoot;
      const hit = root.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
      covered = hit !== el && [...el.labels].some((candidate) => hit !== null && candidate.contains(hit));
    }
    if (style.pointerEvents !== 'none' && style.opacity !== '0' && !covered) return null;
    return [...el.labels].find((candidate) => candidate.checkVisibility()) ?? null;
  });
  const target = label.asElement();
  if (target) return target as ElementHandle;
  await label.dispose();
  return element;
}

/** Whether a checkbox or radio is ticked (undefined for anything else). */
export function checkedState(element: ElementHandle): Promise<boolean | undefined> {
  return element.evaluate((el) => (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') ? el.checked : undefined));
}
