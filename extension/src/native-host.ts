import { NATIVE_HOST_NAME } from '../../protocol/constants';
import { HOST_PROTOCOL_VERSION, type NativeHostOp, type NativeHostReply, type NativeHostRequest } from '../../protocol/native-host';

/**
 * The native messaging host (`clawd-browser install-native-host`): hands us
 * the relay URL and the extension key, and starts the relay when it does not answer.
 */

export type NativeHostState = 'unknown' | 'available' | 'missing' | 'failing';

export class NativeHostError extends Error {
  constructor(
    readonly missing: boolean,
    message: string,
  ) {
    super(message);
  }
}

export type { BootstrapReply as Bootstrap, EnsureRelayReply as EnsuredRelay } from '../../protocol/native-host';

export async function askNativeHost<T>(op: NativeHostOp): Promise<T> {
  let answer: NativeHostReply<T>;
  try {
    const request: NativeHostRequest = { op, v: HOST_PROTOCOL_VERSION };
    answer = (await chrome.runtime.sendNativeMessage(NATIVE_HOST_NAME, request)) as NativeHostReply<T>;
  } catch (error) {
    const message = (error as Error).message;
    // Chrome's words when no manifest is installed for this extension.
    throw new NativeHostError(/not found|forbidden/i.test(message), message);
  }
  if (!answer) throw new NativeHostError(false, 'the native host gave no answer');
  if (!answer.ok) throw new NativeHostError(false, answer.error?.message ?? 'the native host failed');
  return answer;
}
