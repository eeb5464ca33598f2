import type { CDPSession, Frame, Page } from 'playwright-core';

/**
 * A CDP session for each out-of-process frame of a page, as long as it is
 * one. A tab's own session hears only the frames its renderer holds; a
 * cross-site iframe (site isolation) has a target of its own, so whatever is
 * heard per frame (the tools it offers) must be heard on that target's
 * session too. Frames come and go at any time (a navigation of the page, a
 * frame added by script, a frame navigating to another site), so each one is
 * looked at whenever Playwright says it navigated: a frame that became
 * out-of-process gets a session, and a session whose target went (the frame
 * gone, or back in its parent's process) is said closed.
 */
export class OutOfProcessFrames {
  private readonly sessions = new Map<Frame, Promise<CDPSession | undefined>>();
  private readonly closed = new WeakSet<CDPSession>();
  private watching = false;

  constructor(
    private readonly page: Page,
    private readonly hooks: {
      /** A new frame session, to be set up (its domains enabled) before it counts. */
      opened: (session: CDPSession) => Promise<void>;
      /** A frame session that ended: whatever it said is gone. */
      closed: (session: CDPSession) => void;
    },
  ) {}

  private readonly navigated = (frame: Frame) => void this.look(frame);
  private readonly detached = (frame: Frame) => this.sessions.delete(frame);

  /** Starts following the page's frames (once), and looks at those it has now. */
  async watch(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    this.page.on('framenavigated', this.navigated);
    this.page.on('framedetached', this.detached);
    await Promise.all(this.page.frames().map((frame) => this.look(frame)));
  }

  /** Stops following: no frame gets a session from now on, and those there are are detached. */
  async stop(): Promise<void> {
    if (!this.watching) return;
    this.watching = false;
    this.page.off('framenavigated', this.navigated);
    this.page.off('framedetached', this.detached);
    const sessions = await this.live();
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.detach().catch(() => {})));
  }

  /** Out-of-process frames' sessions found so far (and live). */
  async live(): Promise<CDPSession[]> {
    const sessions = await Promise.all(this.sessions.values());
    return sessions.filter((session): session is CDPSession => session !== undefined && !this.closed.has(session));
  }

  private look(frame: Frame): Promise<CDPSession | undefined> {
    if (frame === this.page.mainFrame() || !this.watching) return Promise.resolve(undefined);
    const held = this.sessions.get(frame);
    const opening = (held ?? Promise.resolve(undefined)).then(async (session) => {
      if (session && !this.closed.has(session)) return session;
      return this.open(frame);
    });
    this.sessions.set(frame, opening);
    return opening;
  }

  private async open(frame: Frame): Promise<CDPSession | undefined> {
    // Playwright refuses a frame its parent's session holds: an in-process frame needs nothing here.
    const session = await this.page
      .context()
      .newCDPSession(frame)
      .catch(() => undefined);
    if (!session) return undefined;
    if (!this.watching) {
      await session.detach().catch(() => {});
      return undefined;
    }
    session.on('close', () => {
      this.closed.add(session);
      this.hooks.closed(session);
      // A frame that moved to another process (it navigated to another site) lives on, under a new target.
      if (this.watching && !frame.isDetached()) void this.look(frame);
    });
    try {
      await this.hooks.opened(session);
    } catch {
      // The frame went while it was being set up: its close says so.
    }
    return session;
  }
}
