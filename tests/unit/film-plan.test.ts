import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import jpeg from 'jpeg-js';
import type { ActionRecord } from '../../relay/src/api/session-responses.js';
import { ivfFrame, ivfHeader, jpegSize } from '../../relay/src/replay/film-frames.js';
import { chapterMetadata, chaptersOf, CLICK_SHOWN_MS, ffmpegArgs, filmPoint, filmSize, pointerCommands } from '../../relay/src/replay/film-plan.js';
import { pointerImage, RING_SIZE, ringImage } from '../../relay/src/replay/pointer-images.js';

/** The pure parts of a film: its frames file, where marks go, the pointer's commands, the chapters. */

describe('the frames file', () => {
  it("reads a JPEG's size from its frame header, and refuses what is not a JPEG", () => {
    const picture = Buffer.from(jpeg.encode({ data: Buffer.alloc(37 * 21 * 4, 128), width: 37, height: 21 }, 50).data);
    expect(jpegSize(picture)).toEqual({ width: 37, height: 21 });
    expect(jpegSize(Buffer.from('not a jpeg'))).toBeUndefined();
    expect(jpegSize(picture.subarray(0, 20))).toBeUndefined();
  });

  it('writes IVF: a 32-byte MJPG header in milliseconds, then each frame with its size and time', () => {
    const header = ivfHeader(800, 600);
    expect(header.length).toBe(32);
    expect(header.toString('latin1', 0, 4)).toBe('DKIF');
    expect(header.toString('latin1', 8, 12)).toBe('MJPG');
    expect([header.readUInt16LE(12), header.readUInt16LE(14), header.readUInt32LE(16), header.readUInt32LE(20)]).toEqual([800, 600, 1000, 1]);
    const frame = ivfFrame(Buffer.from([1, 2, 3]), 1234.6);
    expect(frame.readUInt32LE(0)).toBe(3);
    expect(frame.readBigUInt64LE(4)).toBe(1235n);
    expect([...frame.subarray(12)]).toEqual([1, 2, 3]);
  });
});

describe('marks on the film', () => {
  it("places a CSS point on the film's pixels: the frame's scale, then the film's fit, centred", () => {
    // A DPR 2 page 640 CSS px wide: frames of 1280 × 800, filmed at 1280 × 800.
    expect(filmPoint({ x: 100, y: 50 }, { frameWidth: 1280, frameHeight: 800, cssWidth: 640, film: { width: 1280, height: 800 } })).toEqual({ x: 200, y: 100 });
    // A later frame half as tall in a film of the first size: scaled to fit and centred.
    expect(filmPoint({ x: 100, y: 50 }, { frameWidth: 800, frameHeight: 300, cssWidth: 800, film: { width: 800, height: 600 } })).toEqual({ x: 100, y: 200 });
    expect(filmSize({ width: 801, height: 599 })).toEqual({ width: 800, height: 598 });
  });

  it("draws the pointer from its first mark, and each press's ring for CLICK_SHOWN_MS", () => {
    const commands = pointerCommands(
      [
        { at: 500, kind: 'move', x: 10, y: 20 },
        { at: 1000, kind: 'press', x: 100, y: 200 },
      ],
      40,
    );
    expect(commands.split('\n').filter(Boolean)).toEqual([
      '0.000 overlay@pointer x -10000;',
      '0.500 overlay@pointer x 10, overlay@pointer y 20;',
      '1.000 overlay@pointer x 100, overlay@pointer y 200;',
      '1.000 overlay@ring x 80, overlay@ring y 180;',
      `${((1000 + CLICK_SHOWN_MS) / 1000).toFixed(3)} overlay@ring x -10000;`,
    ]);
    // No marks: still one command (ffmpeg's sendcmd refuses an empty list).
    expect(pointerCommands([], 40).trim()).toBe('0.000 overlay@pointer x -10000;');
  });

  it('draws a white arrow with a dark edge, its tip at the top-left, and a ring of RING_SIZE', () => {
    const pointer = PNG.sync.read(pointerImage());
    const at = (png: PNG, x: number, y: number) => [...png.data.subarray((png.width * y + x) * 4, (png.width * y + x) * 4 + 4)];
    expect(at(pointer, 3, 10)).toEqual([255, 255, 255, 255]);
    expect(at(pointer, 0, 0)).toEqual([20, 20, 20, 255]);
    expect(at(pointer, pointer.width - 1, 0)[3]).toBe(0);
    const ring = PNG.sync.read(ringImage());
    expect([ring.width, ring.height]).toEqual([RING_SIZE, RING_SIZE]);
    expect(at(ring, 1, RING_SIZE / 2)[3]).toBeGreaterThan(200);
    expect(at(ring, 0, 0)[3]).toBe(0);
  });
});

describe('chapters', () => {
  const record = (time: number, kind: string, durationMs: number, extra: Partial<ActionRecord> = {}): ActionRecord => ({
    time: new Date(time).toISOString(),
    profile: 'clawd',
    kind,
    durationMs,
    outcome: 'ok',
    actor: 'agent',
    ...extra,
  });

  it('makes one per action the film saw, from when it began until the next began', () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const chapters = chaptersOf(
      [
        record(start - 100, 'navigate', 50), // ended before the film
        record(start + 200, 'snapshot', 300), // began before it: starts at 0
        record(start + 1000, 'click', 100, { ref: 'e3', targetId: 'T1' }),
        record(start + 1500, 'type', 200, { outcome: 'error', ref: 'e4' }),
        record(start + 9000, 'close', 10), // after the film stopped
      ],
      start,
      5000,
    );
    expect(chapters).toEqual([
      { at: 0, end: 900, title: 'snapshot · ok', kind: 'snapshot', outcome: 'ok' },
      { at: 900, end: 1300, title: 'click e3 · ok', kind: 'click', ref: 'e3', targetId: 'T1', outcome: 'ok' },
      { at: 1300, end: 5000, title: 'type e4 · error', kind: 'type', ref: 'e4', outcome: 'error' },
    ]);
  });

  it('writes them as ffmpeg metadata, its special characters escaped', () => {
    const text = chapterMetadata([{ at: 0, end: 0, title: 'a=b;c#d\\e', kind: 'x', outcome: 'ok' }], 'film\nof x');
    expect(text).toBe(';FFMETADATA1\ntitle=film\\\nof x\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1\ntitle=a\\=b\\;c\\#d\\\\e\n');
  });
});

describe('the encoding', () => {
  it("keeps each frame's own time, maps the chapters, and names only files in its own folder", () => {
    const files = {
      frames: 'f.frames.ivf',
      metadata: 'f.chapters.txt',
      commands: 'f.pointer.txt',
      ring: 'f.ring.png',
      pointer: 'f.pointer.png',
      output: 'f.webm',
    };
    const webm = ffmpegArgs(files, 'webm', { width: 800, height: 600 });
    expect(webm.join(' ')).toContain('-vsync passthrough');
    expect(webm.join(' ')).toContain('-map_chapters 1');
    expect(webm).toContain('libvpx');
    expect(webm[webm.length - 1]).toBe('f.webm');
    expect(webm.join(' ')).toContain('sendcmd=f=f.pointer.txt,scale=800:600');
    expect(ffmpegArgs({ ...files, output: 'f.mp4' }, 'mp4', { width: 800, height: 600 })).toContain('libx264');
  });
});
