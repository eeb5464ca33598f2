import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installed package's root (where package.json, bin/ and host-manifest/
 * are), found by walking up from this file: it sits at different depths in
 * the sources (relay/src/config/) and in the build (dist/node/relay/src/config/).
 */
function findPackageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'clawd-browser') return dir;
    if (dirname(dir) === dir) throw new Error(`clawd-browser's package.json not found above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(fileURLToPath(import.meta.url));
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** bin/clawd-browser.js: what the native host starts `serve` with. */
export const CLI_PATH = join(PACKAGE_ROOT, 'bin', 'clawd-browser.js');
/** The built extension (dist/extension): the folder a person loads in chrome://extensions (Load unpacked). */
export const EXTENSION_DIR = join(PACKAGE_ROOT, 'dist', 'extension');
