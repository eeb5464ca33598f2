/** What the user types on the options page, checked and normalised. Pure: no chrome.* here. */

/** Accepts ws://, http:// or host:port and returns the ws:// base URL, or throws. */
export function normaliseRelayUrl(input: string): string {
  const trimmed = input
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/extension$/, '');
  const withScheme = /^[a-z]+:\/\//i.test(trimmed) ? trimmed : `ws://${trimmed}`;
  const url = new URL(withScheme.replace(/^http/i, 'ws'));
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('the relay URL must be ws:// (or http://) host:port');
  return `${url.protocol}//${url.host}`;
}

export function isExtensionKey(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/** The key as pasted on the options page, or an error saying what it should look like. */
export function normaliseExtensionKey(input: string): string {
  const key = input.trim().toLowerCase();
  if (!isExtensionKey(key)) throw new Error('the extension key is 64 hex digits: the output of `clawd-browser extension-key`');
  return key;
}
