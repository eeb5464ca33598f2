/**
 * Writes docs/openapi.json from the route table and its zod schemas
 * (relay/src/api/openapi.ts). With --check (run by `npm run typecheck`), it
 * writes nothing and fails when the checked-in document differs from what
 * the code says: run `npm run openapi` and commit the result.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../relay/src/api/openapi.js';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
const path = fileURLToPath(new URL('docs/openapi.json', root));
const text = `${JSON.stringify(openApiDocument(version), null, 2)}\n`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {}
  if (current !== text) {
    console.error('docs/openapi.json is stale: the routes or their schemas changed. Run `npm run openapi` and commit it.');
    process.exit(1);
  }
} else {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
