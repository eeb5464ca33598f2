/**
 * Where the relay is and the extension key both prove to each other (the key
 * never goes on the wire; see link-auth.ts). Set by the native host, or by
 * hand on the options page. Kept in storage.local so it survives restarts.
 */
export interface Pairing {
  /** e.g. ws://127.0.0.1:18792 */
  relayUrl: string;
  /** $CLAWD_HOME/extension-key: 64 hex digits. */
  key: string;
  via: 'manual' | 'native-host';
}

const KEY = 'pairing';

export async function loadPairing(): Promise<Pairing | undefined> {
  const stored = (await chrome.storage.local.get(KEY))[KEY] as Partial<Pairing> | undefined;
  // A pairing from before the extension key (it held the client token) no longer pairs.
  if (!stored?.relayUrl || !isExtensionKey(stored.key)) return undefined;
  return { relayUrl: stored.relayUrl, key: stored.key, via: stored.via ?? 'manual' };
}

export async function savePairing(pairing: Pairing): Promise<void> {
  await chrome.storage.local.set({ [KEY]: pairing });
}

export function onPairingChanged(listener: () => void): void {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && KEY in changes) listener();
  });
}

/** Accepts ws://, http:// or host:port and returns the ws:// base URL, or throws. */
export function normaliseRelayUrl(input: string): string {
  const trimmed = input.trim().replace(/\/+$/, '').replace(/\/extension$/, '');
  const withScheme = /^[a-z]+:\/\//i.test(trimmed) ? trimmed : `ws://${trimmed}`;
  const url = new URL(withScheme.replace(/^http/i, 'ws'));
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('the relay URL must be ws:// (or http://) host:port');
  return `${url.protocol}//${url.host}`;
}

export function isExtensionKey(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/** The key as pasted on the options page, or an error saying what it should look like. */
export function normaliseExtensionKey(input: string): string {
  const key = input.trim().toLowerCase();
  if (!isExtensionKey(key)) throw new Error('the extension key is 64 hex digits: the output of `clawd-browser extension-key`');
  return key;
}
