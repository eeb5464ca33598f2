import type { Locator, Page } from 'playwright-core';
import type { ElementLocator } from '../../replay/script-steps.js';

/**
 * A locator of a script or a routine (replay/script-steps.ts) as Playwright's
 * own, on a live page: what playwright-script.ts writes as code, here to count
 * (script-recorder.ts) or to find the element a routine's step acts on
 * (locator-refs.ts).
 */
export function playwrightLocator(page: Page, found: ElementLocator): Locator {
  switch (found.by) {
    case 'role':
      return page.getByRole(found.role as Parameters<Page['getByRole']>[0], { name: found.name, exact: found.exact ?? true });
    case 'label':
      return page.getByLabel(found.value!, { exact: true });
    case 'testid':
      return page.getByTestId(found.value!);
    case 'text':
      return page.getByText(found.value!, { exact: true });
    case 'css':
      return page.locator(found.value!);
  }
}
