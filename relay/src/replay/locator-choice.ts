import type { ElementLocator } from './script-steps.js';

/**
 * The one choice of how a test finds an element again, for an agent's act
 * (driver/script-recorder.ts, counted by Playwright before the act) and a
 * person's step (driver/person/person-watch.ts, counted in the page at the moment
 * they acted): the most stable handle a person would write that matches
 * exactly one element. Role and accessible name first, then its label, its
 * test id, its own text; a CSS path last (the script marks it as likely to
 * break).
 */

/** What may name the element: its outline line's role and name, and what describeElement found. */
export interface LocatorCandidates {
  role?: string;
  /** The name as the outline shows it: one cut at 80 characters ends in …. */
  name?: string;
  label?: string;
  testId?: string | null;
  text?: string;
  css: string;
}

/** How many elements of the page a locator matches now (or matched when the step was taken). */
export type LocatorCount = (locator: ElementLocator) => Promise<number> | number;

export async function chooseLocator(candidates: LocatorCandidates, count: LocatorCount): Promise<ElementLocator> {
  const tried: ElementLocator[] = [];
  if (candidates.role && candidates.name) {
    // A name the snapshot cut ends in …: matched as a prefix would be, not whole.
    const exact = !candidates.name.endsWith('…');
    tried.push({ by: 'role', role: candidates.role, name: exact ? candidates.name : candidates.name.slice(0, -1), exact });
  }
  if (candidates.label) tried.push({ by: 'label', value: candidates.label });
  if (candidates.testId) tried.push({ by: 'testid', value: candidates.testId });
  if (candidates.text) tried.push({ by: 'text', value: candidates.text });
  for (const locator of tried) if ((await Promise.resolve(count(locator)).catch(() => 0)) === 1) return locator;
  return { by: 'css', value: candidates.css };
}

/** A locator as a person reads it in a step: `button "Pay"`, `label "Email"`, `css #main > div`. */
export function describeLocator(locator: ElementLocator): string {
  return `${handleOf(locator)}${inFrames(locator.frames)}`;
}

/** Where in the page's frames an element is, as a person reads it after the element: ` in frame iframe[title="Payment"]`; nothing in the page itself. */
export function inFrames(frames: string[] | undefined): string {
  return frames?.length ? ` in frame ${frames.join(' > ')}` : '';
}

function handleOf(locator: ElementLocator): string {
  switch (locator.by) {
    case 'role':
      return `${locator.role} ${JSON.stringify(locator.name)}`;
    case 'label':
      return `the field labelled ${JSON.stringify(locator.value)}`;
    case 'testid':
      return `test id ${JSON.stringify(locator.value)}`;
    case 'text':
      return `text ${JSON.stringify(locator.value)}`;
    case 'css':
      return `css ${locator.value}`;
  }
}
