import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WIRE_PROTOCOL_VERSION } from '../../protocol/constants.js';
import { encodeExtensionFrame } from '../../protocol/wire.js';
import { CdpBridge, type Outbound } from '../../relay/src/bridge/cdp-bridge.js';
import { encodeNativeMessage, NativeMessageReader } from '../../relay/src/native-host/framing.js';
import { runNativeHost } from '../../relay/src/native-host/host.js';

/**
 * Property-based input (fast-check) on the surfaces that take bytes from
 * outside without a browser: CDP messages from clients, the extension's
 * wire frames, and native-host frames. At least 10,000 cases each: nothing
 * throws, nothing hangs, every answer is well-formed, and memory stays flat
 * (RSS before and after is printed for the record).
 */

const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const METHODS = [
  'Browser.getVersion',
  'Browser.close',
  'Target.setDiscoverTargets',
  'Target.setAutoAttach',
  'Target.getTargets',
  'Target.getTargetInfo',
  'Target.attachToTarget',
  'Target.attachToBrowserTarget',
  'Target.detachFromTarget',
  'Target.createTarget',
  'Target.closeTarget',
  'Target.activateTarget',
  'Target.createBrowserContext',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
  'Runtime.enable',
  'Runtime.disable',
  'Runtime.evaluate',
  'Page.enable',
  'Page.navigate',
  'Network.getAllCookies',
  'Network.clearBrowserCookies',
  'DOM.setFileInputFiles',
  'Page.setDownloadBehavior',
  'Extensions.loadUnpacked',
  'Made.up',
];

function rss(): number {
  return Math.round(process.memoryUsage().rss / 1024 / 1024);
}

/** Every outbound message is well-formed: JSON to clients, JSON to the extension. */
function checkOutbound(out: Outbound[]): void {
  for (const message of out) {
    if (message.to === 'client') {
      const text = typeof message.data === 'string' ? message.data : new TextDecoder().decode(message.data);
      const parsed = JSON.parse(text) as { id?: unknown; method?: unknown; error?: { code: number; message: string } };
      expect(typeof parsed.id === 'number' || typeof parsed.method === 'string' || parsed.error !== undefined).toBe(true);
    } else if (message.to === 'extension') {
      JSON.parse(message.data);
    }
  }
}

describe('fuzzing the pure surfaces', () => {
  it(`CDP messages from clients: ${CASES} cases, one answer per id, nothing thrown`, () => {
    const before = rss();
    const tab = { tabId: 1, targetId: 'PAGE-1', url: 'https://a.example/', title: 'A' };
    const json = fc.jsonValue({ maxDepth: 3 });
    const command = fc.record(
      {
        id: fc.oneof(fc.nat(), fc.integer(), fc.constant(1.5), fc.string()),
        method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
        params: fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 4 }), json),
        sessionId: fc.oneof(fc.constant(undefined), fc.constantFrom('', 'page-2', 'tab-3', 'browser-4'), fc.string({ maxLength: 8 })),
      },
      { requiredKeys: [] },
    );
    const raw = fc.oneof(
      command.map((c) => JSON.stringify(c)),
      fc.string({ maxLength: 200 }),
      json.map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(fc.array(raw, { minLength: 1, maxLength: 8 }), (messages) => {
        const bridge = new CdpBridge({ maxQueuedCommands: 50 });
        bridge.extensionConnected();
        const hello = encodeExtensionFrame({
          type: 'hello',
          protocol: WIRE_PROTOCOL_VERSION,
          browser: { userAgent: 'x', product: 'Chrome/1' },
          tabs: [tab],
          proof: '',
        });
        checkOutbound(bridge.handleExtensionMessage(new TextEncoder().encode(hello)));
        const client = bridge.addClient();
        const answered = new Map<number, number>();
        const count = (out: Outbound[]): void => {
          checkOutbound(out);
          for (const message of out) {
            // The server's side of an emulated upload: refused, as for a path outside the upload folders.
            if (message.to === 'readFiles') count(bridge.filesRead(message.requestId, { error: 'not in the upload folders' }));
            if (message.to !== 'client') continue;
            const text = typeof message.data === 'string' ? message.data : new TextDecoder().decode(message.data);
            const { id, method } = JSON.parse(text) as { id?: number; method?: string };
            if (typeof id === 'number' && method === undefined) answered.set(id, (answered.get(id) ?? 0) + 1);
          }
        };
        const sent: number[] = [];
        const commands: string[] = [];
        for (const text of messages) {
          const out = bridge.handleClientMessage(client, text);
          count(out);
          for (const message of out) if (message.to === 'extension') commands.push(message.data);
          try {
            const id = (JSON.parse(text) as { id?: unknown }).id;
            if (Number.isInteger(id) && (id as number) >= 0) sent.push(id as number);
          } catch {
            // not JSON: answered without an id
          }
        }
        // The extension answers everything it was asked; then every command id has one answer.
        for (const data of commands) {
          for (const command of [JSON.parse(data)].flat() as Array<{ id: number }>) {
            count(bridge.handleExtensionMessage(new TextEncoder().encode(encodeExtensionFrame({ type: 'result', id: command.id }, '{}'))));
          }
        }
        for (const id of new Set(sent)) expect(answered.get(id) ?? 0, `id ${id}`).toBeGreaterThanOrEqual(1);
        count(bridge.removeClient(client));
      }),
      { numRuns: CASES },
    );
    console.log(`client CDP fuzz: ${CASES} cases, RSS ${before} → ${rss()} MiB`);
  });

  it(`extension wire frames: ${CASES} cases, dropped with a protocolError at worst`, () => {
    const before = rss();
    const header = fc.oneof(
      fc.record({ type: fc.constantFrom('result', 'error'), id: fc.oneof(fc.nat(), fc.string()) }, { requiredKeys: [] }),
      fc.record(
        {
          type: fc.constant('event'),
          tabId: fc.oneof(fc.nat(5), fc.string()),
          method: fc.oneof(
            fc.constantFrom('Runtime.executionContextCreated', 'Target.attachedToTarget', 'Target.detachedFromTarget', 'Page.loadEventFired'),
            fc.string(),
          ),
          sessionId: fc.string({ maxLength: 6 }),
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          type: fc.constantFrom('tabShared', 'tabUpdated', 'tabUnshared', 'download', 'consentAnswer', 'ping', 'hello', 'nonsense'),
          tabId: fc.anything(),
          tab: fc.anything(),
          id: fc.anything(),
          download: fc.anything(),
        },
        { requiredKeys: ['type'] },
      ),
      fc.anything(),
    );
    const frame = fc.oneof(
      fc
        .tuple(
          header,
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
            fc.string({ maxLength: 100 }),
          ),
        )
        .map(([h, payload]) => `${JSON.stringify(h) ?? 'null'}\n${payload}`),
      fc.string({ maxLength: 300 }),
    );
    fc.assert(
      fc.property(fc.array(frame, { minLength: 1, maxLength: 6 }), fc.boolean(), (frames, connected) => {
        const bridge = new CdpBridge();
        bridge.extensionConnected();
        if (connected)
          bridge.handleExtensionMessage(
            new TextEncoder().encode(
              encodeExtensionFrame({
                type: 'hello',
                protocol: WIRE_PROTOCOL_VERSION,
                browser: { userAgent: 'x', product: 'y' },
                tabs: [{ tabId: 1, targetId: 'P', url: 'https://a.example/', title: '' }],
                proof: '',
              }),
            ),
          );
        const client = bridge.addClient();
        checkOutbound(
          bridge.handleClientMessage(client, JSON.stringify({ id: 1, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true } })),
        );
        for (const text of [frames.join('\n'), ...frames]) {
          try {
            checkOutbound(bridge.handleExtensionMessage(new TextEncoder().encode(text)));
          } catch (error) {
            // A frame the bridge cannot use is dropped with a protocolError; only BadPayload may surface,
            // and the relay server turns it into closing that socket.
            expect((error as Error).constructor.name).toBe('BadPayload');
          }
        }
        checkOutbound(bridge.expirePending());
        checkOutbound(bridge.extensionDisconnected());
        checkOutbound(bridge.expireGrace());
      }),
      { numRuns: CASES },
    );
    console.log(`extension frame fuzz: ${CASES} cases, RSS ${before} → ${rss()} MiB`);
  });

  it(`native-host frames: ${CASES} frames, one reply per complete frame, the stream stays in step`, async () => {
    const before = rss();
    const message = fc.oneof(
      fc.record(
        {
          op: fc.constantFrom('bootstrap', 'status', 'nonsense', 'ensure_relay_x', '__proto__', 'constructor'),
          id: fc.oneof(fc.nat(), fc.string({ maxLength: 8 })),
          v: fc.oneof(fc.constant(undefined), fc.integer()),
        },
        { requiredKeys: ['op'] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const frame = fc.oneof(
      message.map((m) => encodeNativeMessage(m)),
      fc.uint8Array({ maxLength: 64 }).map((body) => Buffer.concat([Buffer.from(Uint32Array.of(body.length).buffer), Buffer.from(body)])),
    );
    let frames = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 5, maxLength: 10 }), fc.integer({ min: 1, max: 7 }), async (batch, chunk) => {
        frames += batch.length;
        const input = new PassThrough();
        const output = new PassThrough();
        const replies: unknown[] = [];
        const reader = new NativeMessageReader();
        output.on('data', (data: Buffer) => {
          for (const decoded of reader.push(data)) replies.push('message' in decoded ? decoded.message : decoded);
        });
        const exit = runNativeHost({
          input,
          output,
          origin: 'chrome-extension://x/',
          allowedOrigins: ['chrome-extension://x/'],
          context: { home: '/nonexistent/clawd-fuzz', version: '0', cliPath: '/nonexistent' },
          log: { debug() {}, info() {}, warn() {}, error() {} },
        });
        // Written in odd-sized chunks: frames split anywhere must still be read whole.
        const bytes = Buffer.concat(batch);
        for (let at = 0; at < bytes.length; at += chunk) input.write(bytes.subarray(at, at + chunk));
        input.end();
        expect(await exit).toBe(0);
        expect(replies).toHaveLength(batch.length);
        for (const reply of replies) expect(reply).toMatchObject({ ok: expect.any(Boolean), protocol: expect.any(Number) });
      }),
      { numRuns: Math.ceil(CASES / 5) },
    );
    expect(frames).toBeGreaterThanOrEqual(CASES);
    console.log(`native-host fuzz: ${frames} frames, RSS ${before} → ${rss()} MiB`);
  });
});
