import { describe, expect, it } from 'vitest';
import { BrowserMux } from '../../relay/src/bridge/browser-mux.js';

/**
 * The mux's routing rules, message by message (the pure part; the real
 * thing, with Chromium, Playwright and Puppeteer, is tests/e2e/cdp-doors.test.ts).
 * The browser side is the script of what Chromium writes on its pipe.
 */

interface Sent {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

function setup() {
  const toBrowser: Sent[] = [];
  const mux = new BrowserMux((message) => toBrowser.push(JSON.parse(message)));
  const peer = () => {
    const received: Array<Record<string, unknown>> = [];
    const closed: string[] = [];
    const handle = mux.connect({ send: (message) => received.push(JSON.parse(message)), close: (reason) => closed.push(reason) });
    return { handle, received, closed };
  };
  /** Chromium answers the mux's attachToBrowserTarget for the latest client with `sessionId`. */
  const giveBrowserSession = (sessionId: string) => {
    const ask = toBrowser.filter((message) => message.method === 'Target.attachToBrowserTarget').at(-1)!;
    mux.fromBrowser(JSON.stringify({ id: ask.id, result: { sessionId } }));
  };
  return { mux, toBrowser, peer, giveBrowserSession };
}

describe('BrowserMux', () => {
  it("gives each client its own browser session, renumbers ids and answers with the client's own", () => {
    const { mux, toBrowser, peer, giveBrowserSession } = setup();
    const a = peer();
    a.handle.receive(JSON.stringify({ id: 1, method: 'Browser.getVersion' })); // waits for the session
    expect(toBrowser.map((message) => message.method)).toEqual(['Target.attachToBrowserTarget']);
    giveBrowserSession('A0');
    const b = peer();
    giveBrowserSession('B0');
    b.handle.receive(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    const [forA, forB] = toBrowser.filter((message) => message.method === 'Browser.getVersion');
    expect(forA).toMatchObject({ sessionId: 'A0' });
    expect(forB).toMatchObject({ sessionId: 'B0' });
    expect(forA.id).not.toBe(forB.id);
    mux.fromBrowser(`{"id":${forB.id},"result":{"product":"Chrome/1"},"sessionId":"B0"}`);
    mux.fromBrowser(`{"id":${forA.id},"result":{"product":"Chrome/1"},"sessionId":"A0"}`);
    expect(a.received).toEqual([{ id: 1, result: { product: 'Chrome/1' } }]);
    expect(b.received).toEqual([{ id: 1, result: { product: 'Chrome/1' } }]);
  });

  it("routes a session's messages to its owner only, and refuses another client's session as unknown", () => {
    const { mux, toBrowser, peer, giveBrowserSession } = setup();
    const a = peer();
    giveBrowserSession('A0');
    const b = peer();
    giveBrowserSession('B0');
    // A's auto-attach gives it a page session.
    mux.fromBrowser(
      '{"method":"Target.attachedToTarget","params":{"sessionId":"P1","targetInfo":{"targetId":"T1","type":"page"},"waitingForDebugger":true},"sessionId":"A0"}',
    );
    expect(a.received).toEqual([
      { method: 'Target.attachedToTarget', params: { sessionId: 'P1', targetInfo: { targetId: 'T1', type: 'page' }, waitingForDebugger: true } },
    ]);
    mux.fromBrowser('{"method":"Runtime.consoleAPICalled","params":{"type":"log"},"sessionId":"P1"}');
    expect(a.received.at(-1)).toEqual({ method: 'Runtime.consoleAPICalled', params: { type: 'log' }, sessionId: 'P1' });
    expect(b.received).toEqual([]);

    b.handle.receive(JSON.stringify({ id: 7, method: 'Runtime.evaluate', params: { expression: 'document.cookie' }, sessionId: 'P1' }));
    expect(b.received).toEqual([{ id: 7, sessionId: 'P1', error: { code: -32001, message: 'Session with given id not found.' } }]);
    expect(toBrowser.some((message) => message.method === 'Runtime.evaluate')).toBe(false);

    a.handle.receive(JSON.stringify({ id: 8, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: 'P1' }));
    expect(toBrowser.at(-1)).toMatchObject({ method: 'Runtime.evaluate', sessionId: 'P1' });
  });

  it('gives a client the sessions its attachToTarget answers name, and forgets detached ones', () => {
    const { mux, toBrowser, peer, giveBrowserSession } = setup();
    const a = peer();
    giveBrowserSession('A0');
    a.handle.receive(JSON.stringify({ id: 3, method: 'Target.attachToTarget', params: { targetId: 'T9', flatten: true } }));
    mux.fromBrowser(JSON.stringify({ id: toBrowser.at(-1)!.id, result: { sessionId: 'S9' }, sessionId: 'A0' }));
    expect(a.received).toEqual([{ id: 3, result: { sessionId: 'S9' } }]);
    a.handle.receive(JSON.stringify({ id: 4, method: 'Page.enable', sessionId: 'S9' }));
    expect(toBrowser.at(-1)).toMatchObject({ method: 'Page.enable', sessionId: 'S9' });
    mux.fromBrowser('{"method":"Target.detachedFromTarget","params":{"sessionId":"S9","targetId":"T9"},"sessionId":"A0"}');
    a.handle.receive(JSON.stringify({ id: 5, method: 'Page.enable', sessionId: 'S9' }));
    expect(a.received.at(-1)).toMatchObject({ id: 5, error: { code: -32001 } });
  });

  it('answers malformed messages with an error and goes on', () => {
    const { toBrowser, peer, giveBrowserSession } = setup();
    const a = peer();
    giveBrowserSession('A0');
    a.handle.receive('{not json');
    a.handle.receive('[1,2]');
    a.handle.receive(JSON.stringify({ id: 'x', method: 'Browser.getVersion' }));
    a.handle.receive(JSON.stringify({ id: 2 }));
    expect(a.received.map((message) => (message.error as { code: number }).code)).toEqual([-32700, -32600, -32600, -32600]);
    a.handle.receive(JSON.stringify({ id: 3, method: 'Browser.getVersion' }));
    expect(toBrowser.at(-1)).toMatchObject({ method: 'Browser.getVersion', sessionId: 'A0' });
  });

  it("detaches a leaving client's browser session, drops answers meant for it, and closes everyone when the pipe goes", () => {
    const { mux, toBrowser, peer, giveBrowserSession } = setup();
    const a = peer();
    giveBrowserSession('A0');
    a.handle.receive(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    const pending = toBrowser.at(-1)!;
    a.handle.disconnect();
    expect(toBrowser.at(-1)).toMatchObject({ method: 'Target.detachFromTarget', params: { sessionId: 'A0' } });
    mux.fromBrowser(JSON.stringify({ id: pending.id, result: {}, sessionId: 'A0' }));
    expect(a.received).toEqual([]);
    expect(mux.clientCount).toBe(0);

    const b = peer();
    giveBrowserSession('B0');
    mux.close('the browser went away');
    expect(b.closed).toEqual(['the browser went away']);
    const late = peer();
    expect(late.closed).toEqual(['the browser went away']);
  });

  it('passes large payloads through as text, changing only the id and the sessionId', () => {
    const { mux, toBrowser, giveBrowserSession } = setup();
    let text = '';
    const client = mux.connect({ send: (message) => (text = message), close() {} });
    giveBrowserSession('B0');
    client.receive(JSON.stringify({ id: 99, method: 'Page.captureScreenshot' }));
    const data = 'x'.repeat(3_000_000);
    mux.fromBrowser(`{"id":${toBrowser.at(-1)!.id},"result":{"data":"${data}"},"sessionId":"B0"}`);
    expect(text).toBe(`{"id":99,"result":{"data":"${data}"}}`);
  });
});
