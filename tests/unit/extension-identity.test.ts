import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';

describe('extension identity', () => {
  it('EXTENSION_ID is the ID Chrome derives from the manifest key', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../extension/manifest.json', import.meta.url), 'utf8'));
    // Chrome: SHA-256 of the DER public key, first 16 bytes, each hex digit mapped 0-f -> a-p.
    const hex = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
    const id = [...hex].map((digit) => String.fromCharCode(97 + parseInt(digit, 16))).join('');
    expect(id).toBe(EXTENSION_ID);
  });
});
