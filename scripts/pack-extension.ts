/**
 * `npm run pack:extension`: the built extension (dist/extension) as the zip
 * a person loads (unzipped, with Load unpacked) or a store accepts:
 * dist/clawd-browser-extension-<version>.zip (`--out DIR` puts it elsewhere). It refuses a build whose
 * manifest lost the fixed key (the extension's ID would change, and the
 * native host and pairing with it) or whose version is not the package's.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipArchive } from './zip-archive.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'extension');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const source = JSON.parse(readFileSync(join(root, 'extension', 'manifest.json'), 'utf8')) as { key: string };
const manifest = JSON.parse(readFileSync(join(built, 'manifest.json'), 'utf8')) as { version: string; key?: string };

function fail(message: string): never {
  console.error(`pack:extension: ${message}`);
  process.exit(1);
}
if (manifest.key !== source.key) fail('dist/extension/manifest.json does not carry the fixed key: run `npm run build:extension` again');
if (manifest.version !== version) fail(`dist/extension is version ${manifest.version}, the package ${version}: run \`npm run build:extension\` again`);

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}
// crxjs's own bookkeeping is not part of the extension.
const entries = files(built)
  .map((path) => ({ path: relative(built, path).split(sep).join('/'), data: readFileSync(path) }))
  .filter((entry) => !entry.path.startsWith('.vite/'));
const outArg = process.argv.indexOf('--out');
const out = join(outArg > 0 ? process.argv[outArg + 1] : join(root, 'dist'), `clawd-browser-extension-${version}.zip`);
writeFileSync(out, zipArchive(entries));
console.log(`wrote ${out}: ${entries.length} files, ${Math.round(statSync(out).size / 1024)} KiB`);
