import { messageOf } from './error-message.js';
import type { Presence } from './ops.js';

/**
 * One look for what a wait waits for (driver/acts/page-actions.ts), as
 * Playwright's getByText matches: a case-insensitive substring of the page's
 * visible text, whitespace collapsed; a selector that matches something
 * visible.
 */
export function present(presence: Presence): boolean | { error: string } {
  const collapse = (text: string) => String(text).replace(/\s+/g, ' ').trim().toLowerCase();
  const shown = collapse(document.body ? document.body.innerText : '');
  try {
    if (presence.text !== undefined && !shown.includes(collapse(presence.text))) return false;
    if (presence.textGone !== undefined && shown.includes(collapse(presence.textGone))) return false;
    if (presence.selector !== undefined) {
      const found = document.querySelector(presence.selector);
      if (!found || !found.checkVisibility({ visibilityProperty: true })) return false;
    }
  } catch (error) {
    return { error: messageOf(error) };
  }
  return true;
}
