// Static HTTP server for tests/fixtures/, bound to 127.0.0.1 on a random port.
//
// The same server is reachable as both 127.0.0.1 and localhost; browsers treat
// those as different origins, which gives us cross-origin iframes without a
// second server.

import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

export interface FixtureServer {
  port: number;
  /** http://127.0.0.1:PORT/path */
  url(path: string): string;
  /** http://localhost:PORT/path: same files, different origin. */
  crossOriginUrl(path: string): string;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const withSlash = (path: string) => (path.startsWith('/') ? path : `/${path}`);

  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${withSlash(path)}`,
    crossOriginUrl: (path) => `http://localhost:${port}${withSlash(path)}`,
    close: () =>
      new Promise<void>((resolveClose, reject) => {
        // Browsers keep connections alive; without this close() would wait for them.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolveClose()));
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fixture');
  const noCache = { 'cache-control': 'no-store' };

  // Ad-hoc pages without writing a fixture file: /echo?body=<html>
  if (url.pathname === '/echo') {
    res.writeHead(200, { ...noCache, 'content-type': CONTENT_TYPES['.html'] });
    res.end(url.searchParams.get('body') ?? '');
    return;
  }

  // What a request carried, for tests of headers a browser adds: its headers as JSON, to any origin.
  if (url.pathname === '/headers') {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' };
    res.writeHead(req.method === 'OPTIONS' ? 204 : 200, { ...noCache, ...cors, 'content-type': 'application/json' });
    res.end(req.method === 'OPTIONS' ? undefined : JSON.stringify(req.headers));
    return;
  }
  // HTTP Basic: user "agent", password "s3cret".
  if (url.pathname === '/basic-auth') {
    const ok = req.headers.authorization === `Basic ${Buffer.from('agent:s3cret').toString('base64')}`;
    res.writeHead(ok ? 200 : 401, { ...noCache, 'content-type': 'text/plain', ...(ok ? {} : { 'www-authenticate': 'Basic realm="fixture"' }) });
    res.end(ok ? 'welcome' : 'who are you?');
    return;
  }

  const pathname = url.pathname === '/' ? '/index.html' : decodeURIComponent(url.pathname);
  const file = resolve(FIXTURES_DIR, `.${pathname}`);
  const contentType = CONTENT_TYPES[extname(file)];
  // Refuse anything outside the fixtures dir (e.g. /../package.json) and unknown types.
  if (!file.startsWith(FIXTURES_DIR.endsWith(sep) ? FIXTURES_DIR : FIXTURES_DIR + sep) || !contentType) {
    notFound(res);
    return;
  }
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    notFound(res);
    return;
  }
  res.writeHead(200, { ...noCache, 'content-type': contentType, 'content-length': body.length });
  res.end(body);
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
}
