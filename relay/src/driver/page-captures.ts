import type { Page } from 'playwright-core';
import { ACTION_TIMEOUT_MS } from '../api/limits.js';
import type { Screenshot } from '../api/responses.js';
import type { RequestOf } from '../api/schemas.js';
import { NotFoundError } from '../errors.js';
import type { DriverTab } from './driver-tab.js';

/** Pictures of a tab: a screenshot of the page, the full page, a ref or a selector; a thumbnail for the console. */

/** A thumbnail is worth little after this long. */
const THUMBNAIL_TIMEOUT_MS = 2_000;

export async function screenshotOf(tab: DriverTab, options: RequestOf<'screenshot'>): Promise<Omit<Screenshot, 'targetId'>> {
  const type = options.type ?? 'png';
  const shot = { type, quality: type === 'jpeg' ? options.quality : undefined, scale: options.scale, timeout: ACTION_TIMEOUT_MS };
  let data: Buffer;
  if (options.ref) {
    data = await (await tab.element(options.ref)).screenshot(shot);
  } else if (options.element) {
    const element = tab.page.locator(options.element).first();
    if (!(await element.count())) throw new NotFoundError(`No element matches ${JSON.stringify(options.element)}`);
    data = await element.screenshot(shot);
  } else {
    data = await tab.page.screenshot({ ...shot, fullPage: options.fullPage ?? false });
  }
  return { type, mimeType: `image/${type}`, data: data.toString('base64') };
}

/**
 * A small JPEG of the tab (CSS pixels), for thumbnails; undefined when the
 * tab paints nothing in time (a background tab may not paint at all).
 */
export function thumbnailOf(page: Page): Promise<Buffer | undefined> {
  return page.screenshot({ type: 'jpeg', quality: 50, scale: 'css', timeout: THUMBNAIL_TIMEOUT_MS }).catch(() => undefined);
}
