import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { ElementLocator } from '../../replay/script-steps.js';

/**
 * A locator of a script or a routine (replay/script-steps.ts) as Playwright's
 * own, on a live page: what playwright-script.ts writes as code, here to count
 * (script-recorder.ts) or to find the element a routine's step acts on
 * (locator-refs.ts).
 */
export function playwrightLocator(page: Page, found: ElementLocator): Locator {
  // Inside frames: each frame found by its element in its parent's document, down from the top.
  const root: Page | FrameLocator = (found.frames ?? []).reduce<Page | FrameLocator>((parent, frame) => parent.locator(frame).contentFrame(), page);
  switch (found.by) {
    case 'role':
      return root.getByRole(found.role as Parameters<Page['getByRole']>[0], { name: found.name, exact: found.exact ?? true });
    case 'label':
      return root.getByLabel(found.value!, { exact: true });
    case 'testid':
      return root.getByTestId(found.value!);
    case 'text':
      return root.getByText(found.value!, { exact: true });
    case 'css':
      return root.locator(found.value!);
  }
}
