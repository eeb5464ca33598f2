import { describe, expect, it } from 'vitest';
import { encodeNativeMessage, FrameTooLargeError, NativeMessageReader } from '../../relay/src/native-host/framing.js';

function frame(body: string | Buffer, length?: number): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const header = Buffer.alloc(4);
  header.writeUInt32LE(length ?? bytes.length, 0);
  return Buffer.concat([header, bytes]);
}

describe('native messaging framing', () => {
  it('writes a little-endian length then UTF-8 JSON', () => {
    const encoded = encodeNativeMessage({ op: 'status', note: 'é' });
    expect(encoded.readUInt32LE(0)).toBe(encoded.length - 4);
    expect(JSON.parse(encoded.subarray(4).toString('utf8'))).toEqual({ op: 'status', note: 'é' });
  });

  it('refuses to write a reply over 1 MiB', () => {
    expect(() => encodeNativeMessage({ blob: 'x'.repeat(1024 * 1024) })).toThrow(FrameTooLargeError);
  });

  it('reads messages split across chunks and several in one chunk', () => {
    const reader = new NativeMessageReader();
    const both = Buffer.concat([frame('{"op":"a"}'), frame('{"op":"b"}')]);
    expect(reader.push(both.subarray(0, 3))).toEqual([]);
    expect(reader.push(both.subarray(3, 12))).toEqual([]);
    expect(reader.push(both.subarray(12))).toEqual([{ message: { op: 'a' } }, { message: { op: 'b' } }]);
    expect(reader.pendingBytes).toBe(0);
  });

  it('reports bad JSON and oversized frames, then keeps reading in step', () => {
    const reader = new NativeMessageReader();
    const huge = 2 * 1024 * 1024;
    const decoded = reader.push(Buffer.concat([frame('{nope'), frame(Buffer.alloc(0), huge)]));
    expect(decoded).toEqual([
      { error: 'not_json', detail: expect.any(String) },
      { error: 'too_large', detail: expect.stringMatching(/2097152 bytes/) },
    ]);
    expect(reader.push(Buffer.alloc(huge))).toEqual([]);
    expect(reader.push(frame('{"op":"after"}'))).toEqual([{ message: { op: 'after' } }]);
  });

  it('knows when the input ended inside a frame', () => {
    const reader = new NativeMessageReader();
    reader.push(frame('{"op":"status"}').subarray(0, 8));
    expect(reader.pendingBytes).toBe(8);
  });
});
