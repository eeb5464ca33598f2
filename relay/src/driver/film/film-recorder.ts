import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { ivfFrame, ivfHeader, jpegSize } from '../../replay/film-frames.js';
import { CLICK_SHOWN_MS, type FilmMark, filmPoint, filmSize, type FrameGeometry } from '../../replay/film-plan.js';
import type { DriverTab, PointerMark } from '../driver-tab.js';
import type { Frame } from './screencast.js';

/**
 * A film being made: the screencast frames of the tab it follows (the live
 * view's, shared with its viewers: screencast.ts), each kept with its time in
 * a frames file (replay/film-frames.ts), and where the pointer went and
 * clicked, placed on the film's pixels. A film of a whole profile follows
 * the tab each request used, so its tabs come one after another, in order.
 * While it runs it only appends bytes; ffmpeg makes the film when it stops
 * (film-encoder.ts). It stops growing at its bound (config recordings.maxMiB).
 */

/** A tab that sends no frame this long after it is followed (it paints nothing) is photographed once instead. */
const FIRST_FRAME_WAIT_MS = 1000;
const SCREENSHOT_QUALITY = 60;

export interface FilmTake {
  dir: string;
  /** The frames file's name in dir. */
  frames: string;
  marks: FilmMark[];
  /** The film's size in pixels: its first frame's. */
  size: { width: number; height: number };
  startedAt: number;
  durationMs: number;
  /** Frames in the file (the pointer's marks repeat a frame to be drawn on time). */
  frameCount: number;
  /** The tabs it showed, in order. */
  tabs: string[];
  /** Why it stopped growing before it was stopped, if it did. */
  stoppedGrowing?: string;
}

export class FilmRecorder {
  readonly startedAt = Date.now();
  private readonly stream: WriteStream;
  private readonly marks: FilmMark[] = [];
  private readonly tabs: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private following: DriverTab | undefined;
  private unwatch: (() => Promise<void>) | undefined;
  private last: { jpeg: Buffer; geometry: Omit<FrameGeometry, 'film'> } | undefined;
  private size: { width: number; height: number } | undefined;
  private lastAt = -1;
  private bytes = 0;
  private frameCount = 0;
  private stoppedGrowing: string | undefined;
  private stopped = false;

  constructor(
    private readonly dir: string,
    private readonly frames: string,
    /** Bytes the frames may take before the film stops growing. */
    private readonly room: number,
  ) {
    this.stream = createWriteStream(join(dir, frames), { mode: 0o600 });
    this.stream.on('error', () => (this.stoppedGrowing ??= 'its frames could not be written'));
  }

  /** Whether it follows this tab now. */
  follows(tab: DriverTab): boolean {
    return this.following === tab;
  }

  /** Films this tab from now on (the one it followed stops being filmed). */
  async follow(tab: DriverTab): Promise<void> {
    if (this.stopped || this.following === tab) return;
    await this.leave();
    this.following = tab;
    tab.pointerMarks = (mark) => this.mark(mark);
    this.tabs.push(await tab.targetId());
    const framesBefore = this.frameCount;
    this.unwatch = await tab.screencast().watch((frame) => {
      if (this.following === tab) this.take(frame);
    });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.following === tab && this.frameCount === framesBefore) void this.photograph(tab);
    }, FIRST_FRAME_WAIT_MS);
    this.timers.add(timer);
  }

  /** Stops filming and says what was filmed; the frames file is complete when this answers. */
  async stop(): Promise<FilmTake> {
    if (!this.stopped) {
      // Stopped before the tab sent a frame: its picture as it is, so the film shows something.
      if (!this.frameCount && this.following) await this.photograph(this.following);
      // The last picture again at the end: a still stretch before the stop is as long in the film.
      this.repeatLast();
      this.stopped = true;
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      await this.leave();
      await new Promise<void>((resolve) => this.stream.end(resolve));
    }
    return {
      dir: this.dir,
      frames: this.frames,
      marks: [...this.marks],
      size: this.size ?? { width: 0, height: 0 },
      startedAt: this.startedAt,
      durationMs: Math.max(0, this.lastAt),
      frameCount: this.frameCount,
      tabs: [...this.tabs],
      ...(this.stoppedGrowing ? { stoppedGrowing: this.stoppedGrowing } : {}),
    };
  }

  private async leave(): Promise<void> {
    const left = this.following;
    this.following = undefined;
    if (left) left.pointerMarks = undefined;
    const unwatch = this.unwatch;
    this.unwatch = undefined;
    await unwatch?.().catch(() => {});
  }

  private take(frame: Frame): void {
    const size = jpegSize(frame.jpeg);
    if (!size) return;
    this.last = { jpeg: frame.jpeg, geometry: { frameWidth: size.width, frameHeight: size.height, cssWidth: frame.cssWidth ?? size.width } };
    this.write(frame.jpeg);
  }

  /** A tab that painted nothing since it was followed: its picture as it is, once. */
  private async photograph(tab: DriverTab): Promise<void> {
    try {
      const session = await tab.cdp();
      const { data } = await session.send('Page.captureScreenshot', { format: 'jpeg', quality: SCREENSHOT_QUALITY });
      const cssWidth = tab.page.viewportSize()?.width ?? (await tab.page.evaluate(() => innerWidth));
      if (this.following === tab) this.take({ jpeg: Buffer.from(data, 'base64'), capturedAt: Date.now(), cssWidth });
    } catch {
      // The tab went meanwhile: the next one's frames will do.
    }
  }

  /** The pointer moved or pressed (CSS pixels of the page): drawn from now, on a repeat of the last frame so it shows at once. */
  private mark(mark: PointerMark): void {
    if (this.stopped || !this.last || !this.size) return;
    const point = filmPoint(mark.point, { ...this.last.geometry, film: this.size });
    this.marks.push({ at: this.now(), kind: mark.kind, ...point });
    this.repeatLast();
    if (mark.kind !== 'press') return;
    // And again when the click's ring is to go, so it goes on time in a still stretch.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.repeatLast();
    }, CLICK_SHOWN_MS + 20);
    this.timers.add(timer);
  }

  private repeatLast(): void {
    if (this.last && !this.stopped) this.write(this.last.jpeg);
  }

  private now(): number {
    return Math.max(this.lastAt + 1, Date.now() - this.startedAt);
  }

  private write(jpeg: Buffer): void {
    if (this.stopped || this.stoppedGrowing) return;
    if (!this.size) {
      const first = jpegSize(jpeg)!;
      this.size = filmSize(first);
      this.append(ivfHeader(first.width, first.height));
    }
    const at = this.now();
    const frame = ivfFrame(jpeg, at);
    if (this.bytes + frame.length > this.room) {
      this.stoppedGrowing = "it reached the recordings' bound (config recordings.maxMiB)";
      return;
    }
    this.lastAt = at;
    this.frameCount++;
    this.append(frame);
  }

  private append(bytes: Buffer): void {
    this.bytes += bytes.length;
    this.stream.write(bytes);
  }
}
