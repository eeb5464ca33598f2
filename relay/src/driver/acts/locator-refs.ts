import type { Locator } from 'playwright-core';
import type { ElementLocator } from '../../replay/script-steps.js';
import { describeLocator } from '../../replay/locator-choice.js';
import { takeAiSnapshot } from '../../snapshot/ai-snapshot.js';
import { refOfLocated } from '../../snapshot/snapshot-engine.js';
import type { DriverTab } from '../driver-tab.js';
import { playwrightLocator } from './element-locators.js';

/**
 * An element named by a locator (a routine's step, a person's note) as a ref
 * of the tab's snapshot, so an act reaches it as an agent's would (the act
 * path, its guardrails and its record), or an agent reads which element a
 * note is on. Exactly one element must match: none or several is said, with
 * the locator, never guessed.
 */

/** `url`: the document the element is in (a frame's, for an element inside one). */
export type LocatedRef = { ref: string; url: string } | { problem: string };

/** `walk: false` when the tab's document was walked just now (a snapshot's notes): its refs stand. */
export async function refForLocator(tab: DriverTab, found: ElementLocator, { waitMs = 0, walk = true } = {}): Promise<LocatedRef> {
  const located = playwrightLocator(tab.page, found);
  if (waitMs)
    await located
      .first()
      .waitFor({ state: 'attached', timeout: waitMs })
      .catch(() => {});
  const count = await located.count().catch(() => 0);
  if (count !== 1) return { problem: `${count ? `${count} elements match` : 'no element matches'} ${describeLocator(found)} on ${tab.page.url()}` };
  // A walk of the document as it is now: the ref is one of its refs, as an act expects.
  if (walk) await takeAiSnapshot(tab.snapshots);
  const ref = await refOfLocated(tab.page.mainFrame(), located).catch(() => null);
  const url = found.frames?.length ? await frameUrlOf(located) : tab.page.url();
  return ref && url !== undefined ? { ref, url } : { problem: `${describeLocator(found)} went from the page while it was looked up` };
}

/** The URL of the frame the element is in, as the browser has it (never the page's word). */
async function frameUrlOf(located: Locator): Promise<string | undefined> {
  const handle = await located.elementHandle({ timeout: 1_000 }).catch(() => null);
  if (!handle) return undefined;
  try {
    return (await handle.ownerFrame())?.url();
  } finally {
    await handle.dispose().catch(() => {});
  }
}
