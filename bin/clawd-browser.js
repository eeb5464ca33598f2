#!/usr/bin/env node
// The CLI is bundled into dist/cli by `npm run build` (scripts/build-cli.ts); this shim keeps the bin path stable.
// The launcher sets the server's V8 flag for `serve`, `mcp` and the native host, and runs the bundle (relay/src/cli/launch.ts).
import('../dist/cli/launch.js').then(
  ({ launch }) => launch(),
  (error) => {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli')) {
      console.error('clawd-browser: not built yet. Run `npm run build` first.');
      process.exit(1);
    }
    throw error;
  },
);
