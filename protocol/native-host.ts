/**
 * The native messaging host's messages (spec §8), shared by the extension
 * (which asks) and relay/src/native-host/ (which answers). Frames are Chrome's:
 * a 4-byte little-endian length, then UTF-8 JSON, each way.
 */

/** Version of these messages; a request with a newer `v` is refused. */
export const HOST_PROTOCOL_VERSION = 1;

export type NativeHostOp = 'bootstrap' | 'ensure_relay' | 'status';

export interface NativeHostRequest {
  op: NativeHostOp;
  id?: string | number;
  v?: number;
}

/** `bootstrap`: where the relay is, and the extension key (never the client token). */
export interface BootstrapReply {
  relayUrl: string;
  extensionKey: string;
  version: string;
}

/** `ensure_relay`: the relay answers, or was just started detached. */
export interface EnsureRelayReply {
  state: 'running' | 'spawned';
  relayUrl: string;
  pid?: number;
}

export interface StatusReply {
  relay: 'running' | 'stopped';
  relayUrl: string;
  version: string;
  clawdHome: string;
}

export type NativeHostReply<T> =
  | ({ id?: string | number; ok: true; op: NativeHostOp; protocol: number } & T)
  | { id?: string | number; ok: false; protocol: number; error: { code: string; message: string } };
