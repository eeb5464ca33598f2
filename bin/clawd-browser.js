#!/usr/bin/env node
// The young generation stays at its first size rather than doubling under load: a client flooding
// the relay otherwise grows the heap by about 25 MiB that is never given back (bench:flood), and the
// relay's round trips measured the same either way. Set before anything else allocates, for the
// commands that run for long (a server); a command that asks one question and exits skips loading node:v8.
if (process.argv.slice(2).some((arg) => arg === 'serve' || arg === 'mcp' || arg === 'native-host')) {
  const { default: v8 } = await import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
// The CLI is bundled into dist/cli by `npm run build` (scripts/build-cli.ts); this shim keeps the bin path stable.
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
