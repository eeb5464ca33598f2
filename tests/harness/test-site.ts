import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site a test writes in a few lines (a login, a redirect, a page that
 * never finishes), on 127.0.0.1 at a free port. `localhost` reaches the same
 * server as another site.
 */
export async function startTestSite(
  handle: (request: IncomingMessage, response: ServerResponse, url: URL) => void,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => handle(request, response, new URL(request.url ?? '/', 'http://site')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The error a promise fails with; a test failure if it succeeds. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure, and the call succeeded');
    },
    (error: unknown) => error as Error,
  );
}
