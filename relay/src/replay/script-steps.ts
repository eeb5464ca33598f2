import type { Action } from '../api/schemas.js';

/**
 * What a tab did, kept to be written out as a script (playwright-script.ts):
 * the tabs opened and closed, the navigations, and each act with how to find
 * its element again, chosen when the act ran (driver/script-recorder.ts), as
 * the ref was then. Typed text is kept as the agent sent it, so a secret
 * stays its `{{secret:NAME}}` placeholder.
 */

export interface ElementLocator {
  /** role and accessible name, a label, a test id, the element's own text, or a CSS path (the last resort). */
  by: 'role' | 'label' | 'testid' | 'text' | 'css';
  role?: string;
  name?: string;
  /** The name is the whole name (false when the snapshot had cut it). */
  exact?: boolean;
  /** The label, the test id, the text or the CSS path. */
  value?: string;
  /** The ref was inside a frame: its frame's prefix (not written out as a locator). */
  frame?: string;
  /** The element is inside these frames, from the top: each the CSS selector of its `<iframe>` in its parent's document (a person's step). */
  frames?: string[];
}

/** Every ref an act names (its target, a drag's two ends, a fill's fields), each once, in order. */
export function refsOf(action: Action): string[] {
  const refs = [
    'ref' in action ? action.ref : undefined,
    'startRef' in action ? action.startRef : undefined,
    'endRef' in action ? action.endRef : undefined,
    ...(action.kind === 'fill' ? action.fields.map((field) => field.ref) : []),
  ];
  return [...new Set(refs.filter((ref): ref is string => ref !== undefined))];
}

export type ScriptStep =
  | { kind: 'open'; tab: string; url: string }
  | { kind: 'goto'; tab: string; url: string }
  /** `url`: where the tab was when it acted; `elements`: a locator for each ref the act named. */
  /** `path`: where the mouse pressed and released to select text (found in the page when the act ran). */
  | {
      kind: 'act';
      tab: string;
      url: string;
      action: Action;
      elements: Record<string, ElementLocator>;
      typedAs?: 'keys';
      path?: { from: { x: number; y: number }; to: { x: number; y: number } };
    }
  | { kind: 'close'; tab: string }
  /** Files set on a file input (a person's demonstration): named as they chose them, relative to the test. */
  | { kind: 'upload'; tab: string; element: ElementLocator; files: string[] };
