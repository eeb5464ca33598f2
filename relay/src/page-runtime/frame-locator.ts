import { describeElement } from './element-description.js';

/**
 * How a test finds a frame again: a CSS selector for the `<iframe>` (or
 * `<frame>`) element in its parent's document, as `page.frameLocator()`
 * takes it. A person's step inside a frame carries one per frame from the
 * top (driver/person/frame-paths.ts asks each parent's watch for it).
 *
 * The frame's own stable attributes first, as Playwright's codegen prefers
 * them: its name, its title, its id, its src; each only when it matches that
 * one frame element in the parent's document. Last, the element's CSS path
 * (describeElement's), which a changed page may break.
 */
export function frameSelector(owner: Element): string {
  const doc = owner.ownerDocument;
  const tag = owner.localName;
  const tried: string[] = [];
  for (const attribute of ['name', 'title', 'id', 'src']) {
    const value = owner.getAttribute(attribute);
    // A value past a few lines is no handle a person would write (and a routine keeps each selector to 2,000 characters).
    if (value && value.length <= MAX_VALUE) tried.push(`${tag}[${attribute}=${cssString(value)}]`);
  }
  for (const selector of tried) {
    try {
      if (doc.querySelectorAll(selector).length === 1) return selector;
    } catch {}
  }
  return describeElement(owner, false).css;
}

const MAX_VALUE = 200;

/** A CSS string: quotes and backslashes escaped, a line break as its code point. */
function cssString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
}
