import type { CDPSession, Page } from 'playwright-core';
import { ConflictError } from '../errors.js';

/**
 * A tab that is not in front is painted while something is done in it, as
 * the one in front is. Chromium paints only its windows' front tabs: a tab
 * behind another (two agents on one profile, each in its own tab; one agent
 * with two) runs its scripts but makes no new frames, so a screenshot waits
 * for one that never comes, and an act waits for the animation frames by
 * which it knows its element is still (in Chrome a hidden tab has none at
 * all). What DevTools does to show a tab that is not in front is done here:
 * a screencast, of tiny frames nobody looks at, keeps the tab painting while
 * it lasts, without bringing it to the front (which would push another
 * agent's tab behind). Each tab's is its own, so agents acting at once never
 * wait on each other's tab.
 *
 * Held for the length of an act or a screenshot, and a moment after (the
 * next call of an agent usually follows at once), on a CDP session of its
 * own. A tab has one screencast where its sessions share one debugger
 * attachment (a tab shared through the extension: a second start is "already
 * active"), so the live view (film/screencast.ts) comes first: while it runs,
 * it is what keeps the tab painting, and it stops a painting it finds.
 */

/** How long the tab keeps painting after the last call that needed it, for the agent's next one. */
const LINGER_MS = 3_000;
/** Frames as small and as rare as Chromium allows: only the painting is wanted. */
const FRAMES = { format: 'jpeg', quality: 1, maxWidth: 8, maxHeight: 8, everyNthFrame: 60 } as const;

interface Painting {
  holders: number;
  session: Promise<CDPSession | undefined>;
  stopTimer?: NodeJS.Timeout;
}

const paintings = new WeakMap<Page, Painting>();
/** Tabs a live view's screencast is painting. */
const inLiveView = new WeakSet<Page>();

/** A live view starts on the tab: its screencast paints it from now on, in place of the painting's. */
export async function liveViewStarts(page: Page): Promise<void> {
  inLiveView.add(page);
  const painting = paintings.get(page);
  if (!painting) return;
  const session = painting.session;
  painting.session = Promise.resolve(undefined);
  await stopOn(await session);
}

/** The tab's live view ended: a call that needs painting starts its own again. */
export function liveViewStops(page: Page): void {
  inLiveView.delete(page);
}

/** Runs `work` with the tab painted as if it were in front; a tab whose screencast cannot start is left as it is. */
export async function whilePainted<T>(page: Page, work: () => Promise<T>): Promise<T> {
  const painting = hold(page);
  // Started before the work, but not waited on for longer than a round trip: it only helps.
  await painting.session;
  try {
    return await work();
  } finally {
    release(page, painting);
  }
}

function hold(page: Page): Painting {
  const known = paintings.get(page);
  if (known) {
    known.holders++;
    clearTimeout(known.stopTimer);
    known.stopTimer = undefined;
    return known;
  }
  const painting: Painting = { holders: 1, session: inLiveView.has(page) ? Promise.resolve(undefined) : start(page) };
  paintings.set(page, painting);
  return painting;
}

function release(page: Page, painting: Painting): void {
  if (--painting.holders > 0) return;
  painting.stopTimer = setTimeout(() => {
    if (painting.holders > 0 || paintings.get(page) !== painting) return;
    paintings.delete(page);
    void painting.session.then(stopOn);
  }, LINGER_MS);
  painting.stopTimer.unref?.();
}

/** Stopped before the session goes: where sessions share one attachment, the screencast would outlive it. */
async function stopOn(session: CDPSession | undefined): Promise<void> {
  if (!session) return;
  await session.send('Page.stopScreencast').catch(() => {});
  await session.detach().catch(() => {});
}

async function start(page: Page): Promise<CDPSession | undefined> {
  if (page.isClosed()) return undefined;
  try {
    const session = await page.context().newCDPSession(page);
    session.on('Page.screencastFrame', (frame) => void session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => {}));
    await session.send('Page.startScreencast', FRAMES);
    return session;
  } catch {
    // A browser that refuses a screencast (or a page closing): the call goes on as it would have.
    return undefined;
  }
}

/**
 * What to add to an act's failure when the browser still holds the tab back
 * (the person's own Chrome may, for a tab that is not in front, screencast
 * or not): said plainly, with what to do. Nothing when the tab is shown.
 */
async function heldBackNote(page: Page): Promise<string | undefined> {
  const hidden = await page.evaluate(() => document.visibilityState === 'hidden').catch(() => false);
  return hidden
    ? 'The tab is not in front, and the browser holds a hidden tab back (it paints nothing, so nothing in it can settle): bring it to the front (focus it) and try again.'
    : undefined;
}

/** An act that could not settle in a tab the browser holds back (not in front): said so, with what to do. */
export async function heldBack(page: Page, error: unknown): Promise<unknown> {
  if (!(error instanceof ConflictError) || !/did not become ready|is still moving/.test(error.message)) return error;
  const note = await heldBackNote(page);
  return note ? new ConflictError(`${error.message} ${note}`, error.details) : error;
}
