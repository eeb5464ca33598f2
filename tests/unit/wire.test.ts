import { describe, expect, it } from 'vitest';
import { decodeExtensionFrames, encodeExtensionFrame, joinExtensionFrames } from '../../protocol/wire.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

describe('extension wire frames', () => {
  it('round-trips a header and keeps the payload as raw bytes', () => {
    const payload = JSON.stringify({ data: 'line one\nline two', nested: { ok: true } });
    const [decoded] = decodeExtensionFrames(bytes(encodeExtensionFrame({ type: 'result', id: 7 }, payload)));
    expect(decoded).toMatchObject({ header: { type: 'result', id: 7 } });
    // JSON escapes newlines inside strings, so raw newlines only separate frames.
    const raw = text((decoded as { payload: Uint8Array }).payload);
    expect(raw).toBe(payload);
    expect(JSON.parse(raw).data).toBe('line one\nline two');
  });

  it('accepts a header with no payload, with or without the newline', () => {
    for (const frame of [encodeExtensionFrame({ type: 'ping' }), '{"type":"ping"}']) {
      const [decoded] = decodeExtensionFrames(bytes(frame));
      expect(decoded).toEqual({ header: { type: 'ping' }, payload: expect.any(Uint8Array) });
      expect((decoded as { payload: Uint8Array }).payload.length).toBe(0);
    }
  });

  it('splits a batch into its frames, empty payloads included', () => {
    const batch = joinExtensionFrames([
      encodeExtensionFrame({ type: 'result', id: 1 }, '{"a":1}'),
      encodeExtensionFrame({ type: 'ping' }),
      encodeExtensionFrame({ type: 'event', tabId: 3, method: 'Page.loadEventFired' }, '{"timestamp":2}'),
    ]);
    const frames = decodeExtensionFrames(bytes(batch)) as Array<{ header: { type: string }; payload: Uint8Array }>;
    expect(frames.map((f) => f.header.type)).toEqual(['result', 'ping', 'event']);
    expect(frames.map((f) => text(f.payload))).toEqual(['{"a":1}', '', '{"timestamp":2}']);
  });

  it('reports frames whose header is not a typed JSON object, and keeps the rest', () => {
    const frames = decodeExtensionFrames(bytes('not json\n{}\n[1,2]\n\n{"id":1}\n{}\n{"type":"ping"}\n'));
    expect(frames).toEqual([
      { error: 'extension frame header is not JSON' },
      { error: 'extension frame header has no type' },
      { error: 'extension frame header has no type' },
      { header: { type: 'ping' }, payload: expect.any(Uint8Array) },
    ]);
  });
});
