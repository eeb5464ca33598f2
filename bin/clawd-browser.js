#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm run build`; this shim keeps the bin path stable.
import('../dist/node/relay/src/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/node')) {
    console.error('clawd-browser: not built yet. Run `npm run build` first.');
    process.exit(1);
  }
  throw error;
});
