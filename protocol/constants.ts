/**
 * The embedded defaults of spec §3. The extension imports this file too (it is
 * bundled by Vite), so it must stay free of Node imports.
 */

export const DEFAULT_CONTROL_PORT = 18791;
/** The relay always sits one port above the control API (spec §3); 0 (any free port) stays 0. */
export function relayPortFor(controlPort: number): number {
  return controlPort === 0 ? 0 : controlPort + 1;
}
export const DEFAULT_RELAY_PORT = relayPortFor(DEFAULT_CONTROL_PORT);
export const DEFAULT_HOST = '127.0.0.1';
export const NATIVE_HOST_NAME = 'com.clawd.browser_relay';
export const ACCENT_COLOR = '#FF4500';

/**
 * The extension's manifest carries a fixed public `key`, so Chrome derives the
 * same ID on every machine. A unit test checks this constant against the key.
 */
export const EXTENSION_ID = 'opdopiaocmjejejdfeokihimdckpgibd';
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`;

/** Version of the extension <-> relay wire protocol (protocol/wire.ts). */
export const WIRE_PROTOCOL_VERSION = 1;
