import { crx } from '@crxjs/vite-plugin';
import { defineConfig } from 'vite';
import manifest from './extension/manifest.json' with { type: 'json' };
import pkg from './package.json' with { type: 'json' };

// Builds extension/ into dist/extension/, loadable with --load-extension.
export default defineConfig({
  root: 'extension',
  // The extension's version is the package's: one number for the relay and the extension a person loads.
  plugins: [crx({ manifest: { ...manifest, version: pkg.version } })],
  build: {
    outDir: '../dist/extension',
    emptyOutDir: true,
    // Keep the worker readable in chrome://inspect; it is small anyway.
    minify: false,
    // Pages the manifest does not name: the Teach page (demonstrations and notes), opened from the button's menu and the options page.
    rollupOptions: { input: { teach: 'teach.html' } },
  },
  // crxjs starts a dev server for HMR; this project only ever builds.
  server: { port: 0 },
});
