import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TooManyError } from '../errors.js';

/**
 * The room a profile's recordings have (config `recordings.maxMiB`): HARs,
 * traces and films, kept or not, count together; a new one is refused when
 * they take it all, and a film stops growing when it would.
 */

/** Bytes left to a profile's recordings; a 429 saying what to remove when none is. */
export function roomLeft(name: string, dirs: string[], maxMiB: number): number {
  const used = dirs.reduce((sum, dir) => sum + bytesIn(dir), 0);
  const bound = maxMiB * 1024 * 1024;
  if (used >= bound)
    throw new TooManyError(
      `The recordings of ${name} take ${(used / 1024 / 1024).toFixed(1)} MiB, at their bound of ${maxMiB} MiB (config recordings.maxMiB): remove some from ${dirs.join(' or ')}`,
    );
  return bound - used;
}

/** The bytes of the files in a folder (recordings are flat: no subfolders). */
function bytesIn(dir: string): number {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  return entries.reduce((sum, entry) => sum + (statSync(join(dir, entry), { throwIfNoEntry: false })?.size ?? 0), 0);
}
