import { writeBundle } from '../../scripts/page-runtime.js';

/**
 * Vitest's global setup: the page runtime's bundle written again when its
 * modules changed since it was (scripts/page-runtime.ts), so every test runs
 * the runtime as its modules are. On a tree whose bundle is current (a clean
 * clone, CI) it writes nothing.
 */
export default async function setup(): Promise<void> {
  if (await writeBundle()) console.log('page runtime: bundle.generated.ts written again from its modules (commit it)');
}
