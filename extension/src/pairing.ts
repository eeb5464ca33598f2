/**
 * Where the relay is and the token it wants. Set by hand on the options page
 * (or, later, by the native host). Kept in storage.local so it survives restarts.
 */
export interface Pairing {
  /** e.g. ws://127.0.0.1:18792 */
  relayUrl: string;
  token: string;
  via: 'manual' | 'native-host';
}

const KEY = 'pairing';

export async function loadPairing(): Promise<Pairing | undefined> {
  const stored = (await chrome.storage.local.get(KEY))[KEY] as Partial<Pairing> | undefined;
  if (!stored?.relayUrl || !stored.token) return undefined;
  return { relayUrl: stored.relayUrl, token: stored.token, via: stored.via ?? 'manual' };
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
