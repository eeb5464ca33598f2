import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Binds a server and returns its port (0 picks one). A port already taken is
 * almost always a server already running, so the error says so.
 */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`${host}:${port} is already in use: is \`clawd-browser serve\` already running? (--port picks another)`)
          : error,
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
