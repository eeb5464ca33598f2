import type { CDPSession, Page } from 'playwright-core';

/**
 * What a tab's parts (its emulation, its page tools, the person's watch)
 * need of the tab that holds them: its page, and its one kept CDP session.
 * Declared apart from DriverTab, which builds the parts, so that they do not
 * import the class that imports them.
 */
export interface TabPort {
  readonly page: Page;
  cdp(): Promise<CDPSession>;
}
