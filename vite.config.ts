import { crx } from '@crxjs/vite-plugin';
import { defineConfig } from 'vite';
import manifest from './extension/manifest.json' with { type: 'json' };

// Builds extension/ into dist/extension/, loadable with --load-extension.
export default defineConfig({
  root: 'extension',
  plugins: [crx({ manifest })],
  build: {
    outDir: '../dist/extension',
    emptyOutDir: true,
    // Keep the worker readable in chrome://inspect; it is small anyway.
    minify: false,
  },
  // crxjs starts a dev server for HMR; this project only ever builds.
  server: { port: 0 },
});
