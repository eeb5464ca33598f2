import { isExtensionKey } from './logic/relay-address';

export { isExtensionKey, normaliseExtensionKey, normaliseRelayUrl } from './logic/relay-address';

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
