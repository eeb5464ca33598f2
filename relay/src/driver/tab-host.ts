import type { Page } from 'playwright-core';
import type { Tab } from '../api/responses.js';
import type { DriverTab } from './driver-tab.js';

/**
 * What the profile driver hands a capability that acts on its tabs
 * (profile-vision.ts, page-tools/profile-page-tools.ts): how it finds the tab
 * a request means, holds the URL policy before an act, marks a tab used, and
 * names a tab an act opened.
 */
export interface TabHost {
  tab(targetId?: string): Promise<DriverTab>;
  guard(tab: DriverTab): Promise<void>;
  use(tab: DriverTab): Promise<Tab>;
  describePopup(popup: Page): Promise<string>;
}
