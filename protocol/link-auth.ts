/**
 * Mutual proof on the extension link (spec §9): the extension and the relay
 * each show that they hold the extension key ($CLAWD_HOME/extension-key)
 * without sending it. CDP clients hold only the client token, never this key,
 * so a token holder cannot pose as the extension; and a process squatting on
 * the relay port cannot prove the key, so the extension tells it nothing and
 * obeys nothing.
 *
 *   extension -> relay   {type:"auth", nonce: E}
 *   relay -> extension   {type:"auth", nonce: R, proof: HMAC(key, "clawd-relay|E")}
 *   extension -> relay   {type:"hello", proof: HMAC(key, "clawd-extension|R|E"), …}
 *
 * Labels differ per direction, so neither proof can be reflected back as the
 * other. Web Crypto only: the same file runs in Node (globalThis.crypto) and
 * in the extension's service worker.
 */

const encoder = new TextEncoder();

/** 32 random bytes, hex. */
export function newNonce(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function message(role: 'relay' | 'extension', nonces: string[]): Uint8Array<ArrayBuffer> {
  return new Uint8Array(encoder.encode(`clawd-${role}|${nonces.join('|')}`));
}

async function importKey(keyHex: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', fromHex(keyHex), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

export async function prove(keyHex: string, role: 'relay' | 'extension', ...nonces: string[]): Promise<string> {
  const key = await importKey(keyHex);
  return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', key, message(role, nonces))));
}

/** Constant-time check (crypto.subtle.verify) of a proof. */
export async function verifyProof(keyHex: string, role: 'relay' | 'extension', proof: unknown, ...nonces: string[]): Promise<boolean> {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  const key = await importKey(keyHex);
  return crypto.subtle.verify('HMAC', key, fromHex(proof), message(role, nonces));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(hex.length >> 1));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
