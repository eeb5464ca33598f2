import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAGES } from './suite.js';

/**
 * The suite's pages on loopback, and what they report: each page posts its
 * own state to `/state`, merged here into the record of the task running
 * now. The score is read from this record, not from anything a model said.
 */
export interface EvalSite {
  origin: string;
  /** The state the pages reported since the last reset. */
  state(): Record<string, unknown>;
  reset(): void;
  close(): Promise<void>;
}

export async function startEvalSite(host = '127.0.0.1'): Promise<EvalSite> {
  let state: Record<string, unknown> = {};
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/state' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        try {
          state = { ...state, ...(JSON.parse(body) as Record<string, unknown>) };
          response.writeHead(204).end();
        } catch {
          response.writeHead(400).end();
        }
      });
      return;
    }
    const html = PAGES[path];
    if (!html) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    state: () => state,
    reset: () => void (state = {}),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
