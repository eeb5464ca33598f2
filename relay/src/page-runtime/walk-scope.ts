import type { WalkState } from './ref-registry.js';

/** What a walk is cut to: a ref of the previous walk, or a CSS selector (in the main frame). */
export interface WalkScope {
  ref?: string;
  selector?: string;
}

/**
 * A landmark named as a word matches its element or its role attribute alike: Sphinx's
 * `<div role="main">` is `main` as much as `<main>` is (a cut note names sections that way).
 */
const LANDMARKS: Record<string, string> = {
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

/** The element a scope names in this document (null when none; an invalid selector throws, as querySelector does). */
export function scopeElementOf(scope: WalkScope | undefined, previous: WalkState | undefined): Element | null {
  if (scope?.ref) return previous?.refs.get(scope.ref) ?? null;
  if (!scope?.selector) return null;
  const wanted = scope.selector.trim().toLowerCase();
  return document.querySelector(Object.hasOwn(LANDMARKS, wanted) ? LANDMARKS[wanted] : scope.selector);
}
