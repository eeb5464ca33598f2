import { describe, expect, it } from 'vitest';
import { decodeExtensionFrame, encodeExtensionFrame } from '../../relay/src/bridge/wire.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

describe('extension wire frames', () => {
  it('round-trips a header and keeps the payload as raw bytes', () => {
    const payload = JSON.stringify({ data: 'line one\nline two', nested: { ok: true } });
    const frame = encodeExtensionFrame({ type: 'result', id: 7 }, payload);
    const decoded = decodeExtensionFrame(bytes(frame));
    expect(decoded.header).toEqual({ type: 'result', id: 7 });
    // JSON escapes newlines inside strings, so the first raw newline ends the header.
    expect(text(decoded.payload)).toBe(payload);
    expect(JSON.parse(text(decoded.payload)).data).toBe('line one\nline two');
  });
  it('accepts a header with no payload', () => {
    const decoded = decodeExtensionFrame(bytes(encodeExtensionFrame({ type: 'ping' })));
    expect(decoded.header).toEqual({ type: 'ping' });
    expect(decoded.payload.length).toBe(0);
    expect(decodeExtensionFrame(bytes('{"type":"ping"}')).payload.length).toBe(0);
  });
  it('rejects frames whose header is not a typed JSON object', () => {
    expect(() => decodeExtensionFrame(bytes('not json\n{}'))).toThrow(/not JSON/);
    expect(() => decodeExtensionFrame(bytes('[1,2]\n'))).toThrow(/no type/);
    expect(() => decodeExtensionFrame(bytes('{"id":1}\n{}'))).toThrow(/no type/);
  });
});
