/**
 * Chrome's native messaging framing: each message is a 32-bit length in
 * native byte order (little-endian on every platform Chrome ships on), then
 * that many bytes of UTF-8 JSON. Chrome refuses host-to-browser messages
 * over 1 MiB, so the host never writes one.
 */

export const MAX_HOST_TO_BROWSER_BYTES = 1024 * 1024;
/** Our requests are tiny; anything near Chrome's 64 MiB limit is garbage. */
export const MAX_BROWSER_TO_HOST_BYTES = 1024 * 1024;

export class FrameTooLargeError extends Error {}

export function encodeNativeMessage(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (body.length > MAX_HOST_TO_BROWSER_BYTES) throw new FrameTooLargeError(`reply of ${body.length} bytes exceeds Chrome's 1 MiB limit for native messages`);
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length, 0);
  return Buffer.concat([header, body]);
}

export type DecodedNativeMessage = { message: unknown } | { error: 'not_json' | 'too_large'; detail: string };

/**
 * Accumulates stdin chunks and yields complete messages. An oversized frame
 * is reported and its bytes skipped, so the stream stays in step.
 */
export class NativeMessageReader {
  private buffered: Buffer = Buffer.alloc(0);
  private skipping = 0;

  push(chunk: Buffer): DecodedNativeMessage[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const out: DecodedNativeMessage[] = [];
    for (;;) {
      if (this.skipping) {
        const dropped = Math.min(this.skipping, this.buffered.length);
        this.skipping -= dropped;
        this.buffered = this.buffered.subarray(dropped);
        if (this.skipping) return out;
      }
      if (this.buffered.length < 4) return out;
      const length = this.buffered.readUInt32LE(0);
      if (length > MAX_BROWSER_TO_HOST_BYTES) {
        out.push({ error: 'too_large', detail: `message of ${length} bytes exceeds the ${MAX_BROWSER_TO_HOST_BYTES}-byte limit` });
        this.skipping = length;
        this.buffered = this.buffered.subarray(4);
        continue;
      }
      if (this.buffered.length < 4 + length) return out;
      const body = this.buffered.subarray(4, 4 + length).toString('utf8');
      this.buffered = this.buffered.subarray(4 + length);
      try {
        out.push({ message: JSON.parse(body) });
      } catch {
        out.push({ error: 'not_json', detail: 'message is not valid JSON' });
      }
    }
  }

  /** Bytes of an incomplete frame left when the input ended (a truncated message). */
  get pendingBytes(): number {
    return this.buffered.length + this.skipping;
  }
}
