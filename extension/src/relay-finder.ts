import { askNativeHost, type Bootstrap, NativeHostError, type NativeHostState } from './native-host';
import { isExtensionKey, loadPairing, normaliseRelayUrl, type Pairing, savePairing } from './pairing';
import type { RelayLink } from './relay-link';

/**
 * Finds the relay: a pairing made by hand stands; otherwise the native host
 * says where the relay is and with which key, and starts it when it does
 * not answer. What the host last said is kept for the options page and the
 * badge's reasons.
 */
export class RelayFinder {
  state: NativeHostState = 'unknown';
  error: string | undefined;

  constructor(private readonly link: RelayLink) {}

  /** The pairing to use; the native host is asked again each time (the key or port may have changed). */
  async currentPairing(): Promise<Pairing | undefined> {
    const stored = await loadPairing();
    if (stored?.via === 'manual') return stored;
    try {
      const boot = await askNativeHost<Bootstrap>('bootstrap');
      this.state = 'available';
      this.error = undefined;
      if (!isExtensionKey(boot.extensionKey)) throw new Error('the native host sent no extension key: update clawd-browser and re-run install-native-host');
      const pairing: Pairing = { relayUrl: normaliseRelayUrl(boot.relayUrl), key: boot.extensionKey, via: 'native-host' };
      if (pairing.relayUrl !== stored?.relayUrl || pairing.key !== stored?.key || stored?.via !== 'native-host') await savePairing(pairing);
      return pairing;
    } catch (error) {
      this.state = error instanceof NativeHostError && error.missing ? 'missing' : 'failing';
      this.error = (error as Error).message;
      return stored;
    }
  }

  /** Asks the native host to start the relay if it does not answer, then connects. */
  async ensureRelay(pairing: Pairing): Promise<void> {
    if (pairing.via !== 'native-host' || this.link.state === 'open') return;
    try {
      await askNativeHost('ensure_relay');
      this.link.retryNow();
    } catch (error) {
      this.error = (error as Error).message;
    }
  }
}
