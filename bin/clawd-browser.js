#!/usr/bin/env node
import v8 from 'node:v8';

// The young generation stays at its first size rather than doubling under load: a client flooding
// the relay otherwise grows the heap by about 25 MiB that is never given back (bench:flood), and the
// relay's round trips measured the same either way. Set before anything else allocates.
v8.setFlagsFromString('--semi-space-growth-factor=1');
// The CLI is compiled to dist/ by `npm run build`; this shim keeps the bin path stable.
import('../dist/node/relay/src/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/node')) {
    console.error('clawd-browser: not built yet. Run `npm run build` first.');
    process.exit(1);
  }
  throw error;
});
