import type { SharedTab, TeachOp } from '../../protocol/wire';
import type { NativeHostState } from './native-host';
import type { LinkState } from './relay-link';

/** Messages between the options page and the service worker. */
export type OptionsRequest =
  | { type: 'status' }
  | { type: 'pair'; relayUrl: string; key: string }
  /** The consent page asks what it is asked for. */
  | { type: 'consent'; id: number }
  /** The person's answer, from the consent page. */
  | { type: 'consentAnswer'; id: number; allowed: boolean; domains: string[] }
  /** The Teach page: a demonstration or a note in a shared tab (teaching.ts). */
  | { type: 'teach'; tabId: number; op: TeachOp; name?: string; description?: string; text?: string }
  /** The Teach page asks which shared tab it is for. */
  | { type: 'teachTab'; tabId: number };

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
