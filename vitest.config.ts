import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const stress = process.env.STRESS ? ['tests/stress/**/*.test.ts'] : [];

/**
 * Workers for the suites that need no browser. Vitest's default is one less
 * than the cores, which on a 2-core machine is one: the files ran one at a
 * time after all. They mostly wait (on sockets, on timeouts they test), so
 * four side by side even on two cores; more cores, more workers.
 */
const unitWorkers = Math.max(4, availableParallelism());

// Separate from vite.config.ts, which builds the extension.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './tests/summary-reporter.ts'],
    // The page runtime's bundle, written again from its modules when they changed (scripts/page-runtime.ts).
    globalSetup: ['./tests/harness/page-runtime-setup.ts'],
    projects: [
      {
        // What needs no browser runs first, its files side by side.
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts', 'tests/fuzz/**/*.test.ts', 'tests/security/**/*.test.ts'],
          fileParallelism: true,
          maxWorkers: unitWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // End-to-end files each start a real Chromium; on a 2-core machine they run one at a time, after the rest.
        // The long fault series run with `npm run test:stress` (STRESS=1), not in `npm test`.
        extends: true,
        test: { name: 'browser', include: ['tests/e2e/**/*.test.ts', ...stress], fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
