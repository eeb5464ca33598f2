import { isNonce, newNonce, prove, verifyProof } from '../../../protocol/link-auth.js';
import { decodeExtensionFrames } from '../../../protocol/wire.js';

/**
 * The relay's side of the extension link's mutual proof (protocol/link-auth.ts):
 * fed the messages a new /extension connection sends before it is trusted,
 * it answers the extension's challenge, then checks the proof in its hello.
 * Nothing from an unproven connection reaches the bridge.
 */
export type HandshakeStep =
  /** Send this to the extension and wait for its next message. */
  | { kind: 'reply'; data: string }
  /** Proven: `hello` is the message that carried the proof (hand it to the bridge). */
  | { kind: 'proven'; hello: Uint8Array }
  /** Close the connection with this reason (1008). */
  | { kind: 'refuse'; reason: string };

export class RelayHandshake {
  private extensionNonce: string | undefined;
  private relayNonce: string | undefined;

  constructor(private readonly extensionKey: string) {}

  async receive(data: Uint8Array): Promise<HandshakeStep> {
    const first = decodeExtensionFrames(data)[0];
    if (!first || 'error' in first) return { kind: 'refuse', reason: 'the extension link starts with an auth frame' };
    const header = first.header as { type: string; nonce?: unknown; proof?: unknown };
    if (this.extensionNonce === undefined) {
      if (header.type !== 'auth' || !isNonce(header.nonce)) return { kind: 'refuse', reason: 'the extension link starts with an auth frame carrying a nonce' };
      this.extensionNonce = header.nonce;
      this.relayNonce = newNonce();
      const proof = await prove(this.extensionKey, 'relay', this.extensionNonce);
      return { kind: 'reply', data: JSON.stringify({ type: 'auth', nonce: this.relayNonce, proof }) };
    }
    if (header.type !== 'hello') return { kind: 'refuse', reason: 'expected hello with a proof after auth' };
    if (!(await verifyProof(this.extensionKey, 'extension', header.proof, this.relayNonce!, this.extensionNonce)))
      return { kind: 'refuse', reason: 'the extension did not prove the extension key' };
    return { kind: 'proven', hello: data };
  }
}
