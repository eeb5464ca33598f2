import { defineConfig } from 'vitest/config';

// Separate from vite.config.ts, which builds the extension.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The long fault series run with `npm run test:stress` (STRESS=1), not in `npm test`.
    exclude: ['**/node_modules/**', ...(process.env.STRESS ? [] : ['tests/stress/**'])],
    // End-to-end files each start a real Chromium; on a 2-core machine they run one at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './tests/summary-reporter.ts'],
    // The page runtime's bundle, written again from its modules when they changed (scripts/page-runtime.ts).
    globalSetup: ['./tests/harness/page-runtime-setup.ts'],
  },
});
