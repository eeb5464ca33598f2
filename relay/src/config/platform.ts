/** The operating systems whose Chrome paths and native-host locations we know. */
export type Platform = 'linux' | 'darwin' | 'win32';

/** This machine's platform; anything else Unix-like is treated as Linux (same paths, same manifests). */
export function currentPlatform(): Platform {
  return process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
}
