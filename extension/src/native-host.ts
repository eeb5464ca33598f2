import { NATIVE_HOST_NAME } from '../../relay/src/config/defaults';

/**
 * The native messaging host (`clawd-browser install-native-host`): hands us
 * the relay URL and the extension key, and starts the relay when it does not answer.
 */

export type NativeHostState = 'unknown' | 'available' | 'missing' | 'failing';

export class NativeHostError extends Error {
  constructor(readonly missing: boolean, message: string) {
    super(message);
  }
}

export interface Bootstrap {
  relayUrl: string;
  extensionKey: string;
  version: string;
}

export interface EnsuredRelay {
  state: 'running' | 'spawned';
  relayUrl: string;
}

type Answer = { ok: true } | { ok: false; error: { code: string; message: string } };

export async function askNativeHost<T>(op: 'bootstrap' | 'ensure_relay' | 'status'): Promise<T> {
  let answer: Answer & T;
  try {
    answer = (await chrome.runtime.sendNativeMessage(NATIVE_HOST_NAME, { op, v: 1 })) as Answer & T;
  } catch (error) {
    const message = (error as Error).message;
    // Chrome's words when no manifest is installed for this extension.
    throw new NativeHostError(/not found|forbidden/i.test(message), message);
  }
  if (!answer?.ok) throw new NativeHostError(false, answer?.error?.message ?? 'the native host gave no answer');
  return answer;
}
