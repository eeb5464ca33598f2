import { createHmac } from 'node:crypto';
import { BadRequestError } from '../errors.js';

/**
 * One-time codes (RFC 6238 TOTP, spec §22): a site's seed, as the base32
 * text it shows beside its QR code or as the `otpauth://totp/…` URI the QR
 * code holds, with the digits, period and hash the site set (6, 30 s and
 * SHA-1 unless it says otherwise). The seed is kept sealed as a named
 * secret (secret-store.ts); a code is made from it at the moment it is typed.
 */

export interface TotpSeed {
  /** The key, base32 (RFC 4648), upper case, without padding or spaces. */
  secret: string;
  digits: number;
  /** Seconds. */
  period: number;
  algorithm: 'SHA1' | 'SHA256' | 'SHA512';
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const;

/** A seed from what a site shows: base32 text (spaces, dashes and padding allowed) or an `otpauth://totp/` URI. A 400 naming what is wrong otherwise. */
export function parseTotpSeed(given: string): TotpSeed {
  const text = given.trim();
  if (!/^otpauth:/i.test(text)) return { secret: base32Key(text), digits: 6, period: 30, algorithm: 'SHA1' };
  let uri: URL;
  try {
    uri = new URL(text);
  } catch {
    throw new BadRequestError('The one-time code seed is not a valid otpauth:// URI');
  }
  if (uri.host.toLowerCase() !== 'totp')
    throw new BadRequestError(`The otpauth URI is for ${uri.host || 'no kind'} codes: only time-based ones (otpauth://totp/…) are typed`);
  const number = (key: string, fallback: number, min: number, max: number) => {
    const raw = uri.searchParams.get(key);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new BadRequestError(`The otpauth URI's ${key} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    return value;
  };
  const algorithm = (uri.searchParams.get('algorithm') ?? 'SHA1').toUpperCase();
  if (!ALGORITHMS.includes(algorithm as TotpSeed['algorithm']))
    throw new BadRequestError(`The otpauth URI's algorithm must be SHA1, SHA256 or SHA512, not ${JSON.stringify(algorithm)}`);
  return {
    secret: base32Key(uri.searchParams.get('secret') ?? ''),
    digits: number('digits', 6, 6, 10),
    period: number('period', 30, 1, 3600),
    algorithm: algorithm as TotpSeed['algorithm'],
  };
}

/** The code for `at` (epoch ms): HOTP (RFC 4226) of the period it falls in. */
export function totpCode(seed: TotpSeed, at: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / seed.period)));
  const mac = createHmac(seed.algorithm.replace('SHA', 'sha'), base32Bytes(seed.secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** seed.digits).padStart(seed.digits, '0');
}

/** A base32 key, normalised; a 400 when it is none (or too short to be a site's: under 80 bits). */
function base32Key(text: string): string {
  const key = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!key) throw new BadRequestError('The one-time code seed is empty: give the base32 key the site shows, or its otpauth://totp/ URI');
  const wrong = [...key].find((char) => !BASE32.includes(char));
  if (wrong !== undefined) throw new BadRequestError(`The one-time code seed is not base32: ${JSON.stringify(wrong)} is not a base32 letter (A-Z, 2-7)`);
  if (key.length * 5 < 80) throw new BadRequestError(`The one-time code seed is ${key.length * 5} bits: a site's is 80 bits or more (16 base32 letters)`);
  return key;
}

function base32Bytes(key: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of key) {
    value = ((value << 5) | BASE32.indexOf(char)) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}
