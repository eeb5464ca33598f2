/**
 * The frames of a film being made, as they are kept until it is encoded: an
 * IVF stream of JPEG pictures (fourcc MJPG), each with its own time in
 * milliseconds. IVF is the smallest container ffmpeg reads with a time per
 * frame (a 32-byte header, 12 bytes per frame), so a film keeps real time
 * without a frame being repeated: a page that paints nothing for a minute
 * adds nothing to it, and a burst of paint keeps its own pace. Writing one
 * costs appending bytes; the encoding happens once, when the film stops.
 */

const HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;

/** The stream's header: the picture size is a hint (ffmpeg reads each JPEG's own), the time base is a millisecond. */
export function ivfHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('DKIF', 0, 'latin1');
  header.writeUInt16LE(0, 4); // version
  header.writeUInt16LE(HEADER_BYTES, 6);
  header.write('MJPG', 8, 'latin1');
  header.writeUInt16LE(Math.min(width, 0xffff), 12);
  header.writeUInt16LE(Math.min(height, 0xffff), 14);
  header.writeUInt32LE(1000, 16); // time base: 1/1000 s
  header.writeUInt32LE(1, 20);
  header.writeUInt32LE(0, 24); // frame count: not known while it is written
  return header;
}

/** One frame: its size, its time (ms from the film's start), then the JPEG. */
export function ivfFrame(jpeg: Buffer, atMs: number): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32LE(jpeg.length, 0);
  header.writeBigUInt64LE(BigInt(Math.max(0, Math.round(atMs))), 4);
  return Buffer.concat([header, jpeg]);
}

/** A JPEG's picture size, read from its frame header (SOFn) without decoding it; undefined when it is not a JPEG. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } | undefined {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 < jpeg.length) {
    if (jpeg[at] !== 0xff) return undefined;
    const marker = jpeg[at + 1];
    // Markers without a length (fill bytes, restart markers).
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker >= 0xd0 && marker <= 0xd7) {
      at += 2;
      continue;
    }
    const length = jpeg.readUInt16BE(at + 2);
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC): height, then width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: jpeg.readUInt16BE(at + 5), width: jpeg.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}
