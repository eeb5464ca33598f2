import { describe, expect, it } from 'vitest';
import { readChromeMessage } from '../../relay/src/attach/chrome-messages.js';

/** Chrome's messages read for the wire without re-serialising their payloads (attach/chrome-messages.ts). */
describe('reading a message of the attached Chrome', () => {
  it("cuts out an answer's result or error, with its session", () => {
    expect(readChromeMessage('{"id":7,"result":{"data":"iVBOR"},"sessionId":"AB12"}')).toEqual({
      id: 7,
      error: false,
      sessionId: 'AB12',
      payload: '{"data":"iVBOR"}',
    });
    expect(readChromeMessage('{"id":8,"error":{"code":-32000,"message":"No node"}}')).toEqual({
      id: 8,
      error: true,
      sessionId: undefined,
      payload: '{"code":-32000,"message":"No node"}',
    });
  });

  it("cuts out an event's params, with or without a session", () => {
    expect(readChromeMessage('{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"S1"}')).toEqual({
      method: 'Page.loadEventFired',
      sessionId: 'S1',
      payload: '{"timestamp":1}',
    });
    expect(readChromeMessage('{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T"}}}')).toEqual({
      method: 'Target.targetCreated',
      sessionId: undefined,
      payload: '{"targetInfo":{"targetId":"T"}}',
    });
  });

  it("never takes a sessionId inside the payload for the message's own", () => {
    // Target.attachToTarget's answer names the new session inside its result; the message itself is the browser's.
    expect(readChromeMessage('{"id":3,"result":{"sessionId":"NEW"}}')).toEqual({ id: 3, error: false, sessionId: undefined, payload: '{"sessionId":"NEW"}' });
    expect(
      readChromeMessage(
        '{"method":"Target.attachedToTarget","params":{"sessionId":"CHILD","waitingForDebugger":false,"sessionId2":"x","sessionId":"CHILD"},"sessionId":"PARENT"}',
      ).sessionId,
    ).toBe('PARENT');
  });

  it('reads a message of another shape in full', () => {
    expect(readChromeMessage('{"sessionId":"S","id":4,"result":{"a":1}}')).toEqual({ id: 4, error: false, sessionId: 'S', payload: '{"a":1}' });
    expect(readChromeMessage('{"id":5,"result":null}')).toEqual({ id: 5, error: false, sessionId: undefined, payload: '{}' });
    expect(() => readChromeMessage('not json')).toThrow();
  });

  it('keeps a large payload as the very text Chrome wrote', () => {
    const data = 'A'.repeat(5_000_000);
    const message = readChromeMessage(`{"id":9,"result":{"data":"${data}"},"sessionId":"S"}`);
    expect(message.payload.length).toBe(data.length + 11);
    expect(message.sessionId).toBe('S');
  });
});
