import type { CDPSession, Page } from 'playwright-core';
import { liveViewStarts, liveViewStops } from '../tab-painting.js';

/**
 * A tab's live view: CDP `Page.startScreencast` frames (JPEG), shared by
 * every viewer of the tab. Chrome captures the next frame only after the
 * last one is acknowledged, so acks are paced at MAX_FPS: capturing and
 * encoding is most of a viewer's cost, and acking at once had Chrome encode
 * frames the rate limit then dropped (everyNthFrame 2 saved as much, but a
 * page that painted once after a change never sent that frame). Identical
 * frames are dropped, and at most MAX_FPS reach viewers (the newest frame
 * wins). The screencast runs while someone watches and stops when the last
 * viewer leaves. Works the same on a shared tab of the extension profile
 * (the relay passes screencast frames through without a domain enable).
 */

const MAX_FPS = 30;
const QUALITY = 60;
const MAX_WIDTH = 1280;
const MAX_HEIGHT = 1280;

export interface Frame {
  jpeg: Buffer;
  /** When Chrome captured it (ms since the epoch), for latency figures. */
  capturedAt: number;
  /** The page's width in CSS pixels the frame shows (a film places the pointer with it). */
  cssWidth?: number;
}

export type Viewer = (frame: Frame) => void;

export class TabScreencast {
  private readonly viewers = new Set<Viewer>();
  private session: CDPSession | undefined;
  private starting: Promise<void> | undefined;
  private lastData = '';
  private lastCssWidth: number | undefined;
  private lastSentAt = 0;
  private lastAckAt = 0;
  private pending: Frame | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Frames Chrome sent, and frames viewers got (after dedupe and rate limit). */
  readonly counts = { received: 0, sent: 0 };

  constructor(private readonly page: Page) {}

  get viewerCount(): number {
    return this.viewers.size;
  }

  /** Starts watching; the returned function stops (the last one out stops the screencast). */
  async watch(viewer: Viewer): Promise<() => Promise<void>> {
    this.viewers.add(viewer);
    try {
      this.starting ??= this.start();
      await this.starting;
    } catch (error) {
      this.viewers.delete(viewer);
      this.starting = undefined;
      if (!this.viewers.size) liveViewStops(this.page);
      throw error;
    }
    // A late joiner sees the page at once, not at its next repaint.
    if (this.lastData) viewer({ jpeg: Buffer.from(this.lastData, 'base64'), capturedAt: Date.now(), cssWidth: this.lastCssWidth });
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      this.viewers.delete(viewer);
      if (!this.viewers.size) await this.stop();
    };
  }

  private async start(): Promise<void> {
    await liveViewStarts(this.page);
    const session = await this.page.context().newCDPSession(this.page);
    this.session = session;
    session.on('Page.screencastFrame', (event) => {
      // Chrome captures the next frame only once this one is acknowledged: acks paced at MAX_FPS
      // keep it from capturing and encoding frames the cap would drop.
      const ackIn = Math.max(0, this.lastAckAt + 1000 / MAX_FPS - Date.now());
      this.lastAckAt = Date.now() + ackIn;
      const ack = () => void session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
      if (ackIn > 0) setTimeout(ack, ackIn);
      else ack();
      this.counts.received++;
      if (event.data === this.lastData) return;
      this.lastData = event.data;
      this.lastCssWidth = event.metadata.deviceWidth;
      const capturedAt = event.metadata.timestamp ? event.metadata.timestamp * 1000 : Date.now();
      this.offer({ jpeg: Buffer.from(event.data, 'base64'), capturedAt, cssWidth: event.metadata.deviceWidth });
    });
    await session.send('Page.startScreencast', { format: 'jpeg', quality: QUALITY, maxWidth: MAX_WIDTH, maxHeight: MAX_HEIGHT, everyNthFrame: 1 });
  }

  /** Sends now, or keeps the newest frame for when the rate allows. */
  private offer(frame: Frame): void {
    const wait = this.lastSentAt + 1000 / MAX_FPS - Date.now();
    if (wait <= 0) return this.send(frame);
    this.pending = frame;
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const next = this.pending;
      this.pending = undefined;
      if (next) this.send(next);
    }, wait);
  }

  private send(frame: Frame): void {
    this.lastSentAt = Date.now();
    this.counts.sent++;
    for (const viewer of this.viewers) viewer(frame);
  }

  private async stop(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.pending = undefined;
    const session = this.session;
    this.session = undefined;
    this.starting = undefined;
    this.lastData = '';
    liveViewStops(this.page);
    if (!session) return;
    await session.send('Page.stopScreencast').catch(() => {});
    await session.detach().catch(() => {});
  }
}
