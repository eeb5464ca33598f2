import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asStorageCredential, fromStorageCredential, type Passkey } from '../../relay/src/driver/secrets/virtual-authenticators.js';

/** A passkey as Chrome's authenticator holds it, and as Playwright's storage state carries it: the same key either way. */

describe('passkeys in storage state', () => {
  it("carry CDP's credential in Playwright's shape, the public key made from the private one, and back", () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const passkey: Passkey = {
      credentialId: Buffer.from('credential-id-bytes').toString('base64'),
      isResidentCredential: true,
      rpId: 'acme.example',
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      userHandle: Buffer.from([1, 2, 3]).toString('base64'),
      signCount: 7,
    };
    const stored = asStorageCredential(passkey);
    expect(stored).toMatchObject({ id: Buffer.from('credential-id-bytes').toString('base64url'), rpId: 'acme.example', userHandle: 'AQID', signCount: 7 });
    // What the stored public key verifies, the stored private key signed.
    const signature = sign('sha256', Buffer.from('challenge'), privateKey);
    expect(
      verify('sha256', Buffer.from('challenge'), createPublicKey({ key: Buffer.from(stored.publicKey, 'base64url'), format: 'der', type: 'spki' }), signature),
    ).toBe(true);
    expect(fromStorageCredential(stored)).toEqual(passkey);
  });
});
