import WebSocket from 'ws';
import { prove, newNonce, verifyProof } from '../../protocol/link-auth.js';
import { encodeExtensionFrame, type SharedTab } from '../../protocol/wire.js';
import { EXTENSION_ORIGIN, WIRE_PROTOCOL_VERSION } from '../../protocol/constants.js';

/**
 * A hand-written peer on /extension that holds the extension key and does the
 * handshake as the real extension does (link-auth.ts). Tests use it to play a
 * buggy or hostile *extension* (garbage frames); the real extension is driven
 * in real Chromium elsewhere.
 */

export interface FakeExtensionOptions {
  port: number;
  key: string;
  tabs?: SharedTab[];
  origin?: string;
}

export const FAKE_BROWSER = { userAgent: 'Mozilla/5.0 Chrome/156.0.0.0', product: 'Chrome/156.0.0.0' };

function openSocket(url: string, origin: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { origin });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { status: response.statusCode })),
    );
  });
}

function nextMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('message', (data) => resolve(data.toString()));
    socket.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason}`)));
  });
}

/** Connects, proves the key and says hello; resolves with the open socket. */
export async function connectFakeExtension(options: FakeExtensionOptions): Promise<WebSocket> {
  const socket = await openSocket(`ws://127.0.0.1:${options.port}/extension`, options.origin ?? EXTENSION_ORIGIN);
  const nonce = newNonce();
  const reply = nextMessage(socket);
  socket.send(encodeExtensionFrame({ type: 'auth', nonce }));
  const answer = JSON.parse(await reply) as { type: string; nonce: string; proof: string };
  if (answer.type !== 'auth' || !(await verifyProof(options.key, 'relay', answer.proof, nonce))) throw new Error('the relay did not prove the key');
  const proof = await prove(options.key, 'extension', answer.nonce, nonce);
  socket.send(encodeExtensionFrame({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION, browser: FAKE_BROWSER, tabs: options.tabs ?? [], proof }));
  return socket;
}
