import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { startTestSite } from './test-site.js';

/**
 * Python's own documentation (Debian's python3-doc, which .ci/run installs)
 * served as a site: long pages nobody here wrote, with their stylesheets
 * (so what Sphinx hides stays hidden).
 */

export const PYTHON_DOCS = '/usr/share/doc/python3-doc/html';
const TYPES: Record<string, string> = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png', '.svg': 'image/svg+xml' };

export function startPythonDocsSite(): ReturnType<typeof startTestSite> {
  if (!existsSync(join(PYTHON_DOCS, 'library/os.html')))
    throw new Error(`Python's documentation is not at ${PYTHON_DOCS}: apt-get install python3-doc (.ci/run does)`);
  return startTestSite((_request, response, url) => {
    const path = join(PYTHON_DOCS, decodeURIComponent(url.pathname));
    if (!path.startsWith(PYTHON_DOCS) || !existsSync(path)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
  });
}
