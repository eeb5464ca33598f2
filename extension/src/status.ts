import type { SharedTab } from '../../protocol/wire';
import type { NativeHostState } from './native-host';
import type { LinkState } from './relay-link';

/** Messages between the options page and the service worker. */
export type OptionsRequest =
  | { type: 'status' }
  | { type: 'pair'; relayUrl: string; key: string }
  /** The consent page asks what it is asked for. */
  | { type: 'consent'; id: number }
  /** The person's answer, from the consent page. */
  | { type: 'consentAnswer'; id: number; allowed: boolean; domains: string[] };

/** What the relay asks the person to allow (options page, `#consent=<id>`). */
export interface ConsentRequest {
  id: number;
  tenant: string;
  domains: string[];
}

export interface ExtensionStatus {
  link: LinkState;
  lastError?: string;
  relayUrl?: string;
  pairedVia?: 'manual' | 'native-host';
  nativeHost: NativeHostState;
  nativeHostError?: string;
  tabs: SharedTab[];
}
