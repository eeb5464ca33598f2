import type { SharedTab } from '../../protocol/wire';
import type { NativeHostState } from './native-host';
import type { LinkState } from './relay-link';

/** Messages between the options page and the service worker. */
export type OptionsRequest = { type: 'status' } | { type: 'pair'; relayUrl: string; key: string };

export interface ExtensionStatus {
  link: LinkState;
  lastError?: string;
  relayUrl?: string;
  pairedVia?: 'manual' | 'native-host';
  nativeHost: NativeHostState;
  nativeHostError?: string;
  tabs: SharedTab[];
}
