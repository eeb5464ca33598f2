import { describe, expect, it } from 'vitest';
import { parseTotpSeed, totpCode } from '../../relay/src/vault/one-time-codes.js';

/** RFC 6238's own test vectors (appendix B), and the seeds sites show: base32 text and otpauth:// URIs. */

const base32 = (ascii: string) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(ascii)) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
};

describe('one-time codes', () => {
  it("make RFC 6238's codes for SHA-1, SHA-256 and SHA-512", () => {
    const keys = {
      SHA1: '12345678901234567890',
      SHA256: '12345678901234567890123456789012',
      SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
    } as const;
    const vectors: Array<[number, Record<keyof typeof keys, string>]> = [
      [59, { SHA1: '94287082', SHA256: '46119246', SHA512: '90693936' }],
      [1111111109, { SHA1: '07081804', SHA256: '68084774', SHA512: '25091201' }],
      [1234567890, { SHA1: '89005924', SHA256: '91819424', SHA512: '93441116' }],
      [20000000000, { SHA1: '65353130', SHA256: '77737706', SHA512: '47863826' }],
    ];
    for (const [seconds, codes] of vectors)
      for (const algorithm of Object.keys(keys) as Array<keyof typeof keys>)
        expect(totpCode({ secret: base32(keys[algorithm]), digits: 8, period: 30, algorithm }, seconds * 1000), `${algorithm} at ${seconds}`).toBe(
          codes[algorithm],
        );
  });

  it('read base32 as sites show it, and otpauth URIs with their digits, period and algorithm', () => {
    expect(parseTotpSeed(' jbsw y3dp-ehpk 3pxp jbsw y3dp== ')).toEqual({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DP', digits: 6, period: 30, algorithm: 'SHA1' });
    expect(parseTotpSeed('otpauth://totp/Acme:alice%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme&algorithm=sha256&digits=8&period=60')).toEqual({
      secret: 'JBSWY3DPEHPK3PXP',
      digits: 8,
      period: 60,
      algorithm: 'SHA256',
    });
    expect(totpCode(parseTotpSeed('JBSWY3DPEHPK3PXP'), 0)).toMatch(/^\d{6}$/);
  });

  it('refuse what is not a time-based seed, saying what is wrong', () => {
    expect(() => parseTotpSeed('')).toThrow(/empty/);
    expect(() => parseTotpSeed('JBSW1!')).toThrow(/"1" is not a base32 letter/);
    expect(() => parseTotpSeed('JBSWY3DP')).toThrow(/40 bits/);
    expect(() => parseTotpSeed('otpauth://hotp/Acme?secret=JBSWY3DPEHPK3PXP&counter=1')).toThrow(/only time-based/);
    expect(() => parseTotpSeed('otpauth://totp/Acme?secret=JBSWY3DPEHPK3PXP&digits=4')).toThrow(/digits must be a whole number from 6 to 10/);
    expect(() => parseTotpSeed('otpauth://totp/Acme?secret=JBSWY3DPEHPK3PXP&algorithm=MD5')).toThrow(/algorithm must be SHA1, SHA256 or SHA512/);
    expect(() => parseTotpSeed('otpauth://totp/Acme')).toThrow(/empty/);
  });
});
