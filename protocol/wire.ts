/**
 * The private protocol between the extension (a thin chrome.debugger
 * transport) and the relay. Bundled into the extension too: no Node imports.
 *
 * Relay -> extension: one JSON object per WebSocket text frame.
 *
 * Extension -> relay: a small JSON *header*, a newline, then an optional raw
 * JSON *payload*. The payload is the CDP result/params exactly as the
 * extension serialised them. The relay reads only the header and splices the
 * payload bytes into the message it sends to CDP clients, so a 5 MB
 * screenshot is never parsed or re-serialised on the relay's hot path.
 * JSON.stringify never emits a raw newline, so the first '\n' always ends the
 * header.
 *
 * Batching: under load both sides put several messages in one WebSocket
 * frame (each WebSocket message costs a syscall and an IPC hop in Chrome's
 * network service). The relay sends a JSON array of commands; the extension
 * joins frames with '\n' (header line, payload line, header line, …).
 */

/** What the extension knows about a tab it shares. */
export interface SharedTab {
  tabId: number;
  /** The DevTools target id of the tab's page (from chrome.debugger.getTargets). */
  targetId: string;
  url: string;
  title: string;
  /** The page target id of the tab that opened this one (popups, target=_blank). */
  openerTargetId?: string;
  /** The name of its "clawd:<name>" tab group (group mode): only clients of that group (`/cdp?group=<name>`) see it. */
  group?: string;
}

/** A client group's name (`/cdp?group=<name>`, the Chrome tab group "clawd:<name>"). */
export const GROUP_NAME = /^[A-Za-z0-9._-]{1,40}$/;

/** A download a shared tab started, as chrome.downloads reports it. */
export interface SharedDownload {
  /** chrome.downloads id. */
  id: number;
  url: string;
  /** Absolute path once Chrome has chosen it (the user's download folder). */
  filename: string;
  /** The name the site suggested, before Chrome made it unique in the folder ("report.txt", saved as "report (1).txt"). */
  suggestedFilename?: string;
  state: 'in_progress' | 'complete' | 'interrupted';
  bytesReceived: number;
  totalBytes: number;
  error?: string;
}

export interface BrowserInfo {
  /** navigator.userAgent of the extension's worker (the user's real browser). */
  userAgent: string;
  /** e.g. "Chrome/156.0.8078.79". */
  product: string;
}

// ---- relay -> extension -------------------------------------------------

export type RelayCommand =
  /** chrome.debugger.sendCommand({tabId, sessionId}, method, params). */
  | { type: 'cdp'; id: number; tabId: number; sessionId?: string; method: string; params?: object }
  /** Open a tab and share it; answered with {tabId, targetId} after `tabShared`. */
  | { type: 'createTab'; id: number; url: string; active: boolean; group?: string }
  | { type: 'closeTab'; id: number; tabId: number }
  | { type: 'activateTab'; id: number; tabId: number };

/** One WebSocket message from the relay: a single message or a batch. */
export type RelayBatch = RelayMessage | RelayMessage[];

export type RelayMessage =
  | RelayCommand
  /** The relay's answer to the extension's auth: its proof of the extension key, and its own nonce (link-auth.ts). */
  | { type: 'auth'; nonce: string; proof: string }
  | { type: 'pong' }
  /** The relay could not use a frame the extension sent; logged by the extension. */
  | { type: 'protocolError'; message: string }
  /**
   * Asks the user (in the extension's own page, never the web) whether the
   * cookies of these domains may be saved to clawd-browser's vault for the
   * tenant. Answered with `consentAnswer`.
   */
  | { type: 'consentRequest'; id: number; tenant: string; domains: string[] }
  /**
   * An agent handed this shared tab to the person at this Chrome: the badge
   * and a notification say so; the link opens the hand-off's page, where
   * they answer.
   */
  | { type: 'handoff'; tabId: number; id: string; reason: string; link: string }
  /** The hand-off ended (answered, timed out, cancelled): the badge and notification go. */
  | { type: 'handoffEnded'; tabId: number; id: string }
  /** The answer to a `teach` request: what the server said, or why it could not. */
  | { type: 'taught'; id: number; ok: boolean; answer?: unknown; error?: string };

/**
 * What the person asks of clawd-browser about teaching in a shared tab
 * (spec §23): start or stop a demonstration, mark elements for a note and
 * send it, or ask how things stand.
 */
export type TeachOp = 'demonstrate' | 'stop' | 'discard' | 'mark' | 'note' | 'cancel' | 'state';
export const TEACH_OPS: readonly TeachOp[] = ['demonstrate', 'stop', 'discard', 'mark', 'note', 'cancel', 'state'];

// ---- extension -> relay -------------------------------------------------

export type ExtensionHeader =
  /** Payload: the command's result object. */
  | { type: 'result'; id: number }
  /** Payload: a CDP error object {code, message}. */
  | { type: 'error'; id: number }
  /** Payload: the event's params. sessionId is set for child sessions (OOPIFs, workers). */
  | { type: 'event'; tabId: number; sessionId?: string; method: string }
  /** First on every connection: a fresh nonce the relay must prove the extension key over (link-auth.ts). */
  | { type: 'auth'; nonce: string }
  /**
   * Sent once the relay has proved the key, carrying the extension's proof;
   * the relay reconciles its tabs with this list.
   */
  | { type: 'hello'; protocol: number; browser: BrowserInfo; tabs: SharedTab[]; proof: string }
  | { type: 'tabShared'; tab: SharedTab }
  | { type: 'tabUpdated'; tab: SharedTab }
  | { type: 'tabUnshared'; tabId: number; reason: string }
  /** A download started or changed in a shared tab (the relay cannot see downloads over CDP). */
  | { type: 'download'; tabId: number; download: SharedDownload }
  /** The user's answer to a consentRequest: the domains they allowed (none when they refused or closed the page). */
  | { type: 'consentAnswer'; id: number; allowed: boolean; domains: string[] }
  /** The person's teaching request on a shared tab; answered with `taught` (name, description: a routine's; text: a note's). */
  | { type: 'teach'; id: number; tabId: number; op: TeachOp; name?: string; description?: string; text?: string }
  /** Keeps the service worker alive and lets the relay notice a dead link. */
  | { type: 'ping' };

const NEWLINE = 10;
const decoder = new TextDecoder();

export function encodeExtensionFrame(header: ExtensionHeader, payloadJson = ''): string {
  return `${JSON.stringify(header)}\n${payloadJson}`;
}

/** Joins encoded frames into one WebSocket message. */
export function joinExtensionFrames(frames: string[]): string {
  return frames.join('\n');
}

export interface DecodedExtensionFrame {
  header: ExtensionHeader;
  /** Raw JSON bytes (may be empty). A view into the received buffer. */
  payload: Uint8Array;
}

/** A frame that could not be decoded; the others in the message still count. */
export interface MalformedExtensionFrame {
  error: string;
}

/** Splits a WebSocket message into its frames (one or more). */
export function decodeExtensionFrames(data: Uint8Array): Array<DecodedExtensionFrame | MalformedExtensionFrame> {
  const frames: Array<DecodedExtensionFrame | MalformedExtensionFrame> = [];
  let position = 0;
  while (position < data.length) {
    const headerEnd = indexOrEnd(data, position);
    const payloadEnd = headerEnd === data.length ? headerEnd : indexOrEnd(data, headerEnd + 1);
    const payload = data.subarray(Math.min(headerEnd + 1, data.length), payloadEnd);
    frames.push(decodeHeader(data.subarray(position, headerEnd), payload));
    position = payloadEnd + 1;
  }
  return frames;
}

function indexOrEnd(data: Uint8Array, from: number): number {
  const index = data.indexOf(NEWLINE, from);
  return index === -1 ? data.length : index;
}

function decodeHeader(headerBytes: Uint8Array, payload: Uint8Array): DecodedExtensionFrame | MalformedExtensionFrame {
  let header: unknown;
  try {
    header = JSON.parse(decoder.decode(headerBytes));
  } catch {
    return { error: 'extension frame header is not JSON' };
  }
  if (!header || typeof header !== 'object' || typeof (header as { type?: unknown }).type !== 'string') return { error: 'extension frame header has no type' };
  return { header: header as ExtensionHeader, payload };
}
