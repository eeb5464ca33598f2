import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the three API stand-ins share: a real HTTP server on loopback that
 * records every request (its path, headers and body), can be told to stall
 * (hold a request without a byte of answer, as a model that hangs), and
 * notes when a caller's socket closes before its answer was sent: the proof
 * that a cancel reached the model request in flight.
 */

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface StandIn {
  url: string;
  readonly requests: RecordedRequest[];
  /** Requests whose caller closed the connection before the answer ended. */
  readonly dropped: RecordedRequest[];
  /** While true, requests are held unanswered (until the caller goes). */
  stall: boolean;
  /** Resolves when the next request arrives (or now, with `count`, once that many have). */
  arrived(count?: number): Promise<void>;
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void;

export async function startStandIn(handle: Handler): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const dropped: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const state = { stall: false };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'body is not JSON', type: 'invalid_request_error' } }));
        return;
      }
      const recorded: RecordedRequest = { path: (request.url ?? '/').split('?')[0], headers: request.headers, body };
      requests.push(recorded);
      response.once('close', () => {
        if (!response.writableFinished) dropped.push(recorded);
      });
      for (const waiter of waiters.splice(0)) {
        if (requests.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
      if (state.stall) return;
      handle(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    dropped,
    get stall() {
      return state.stall;
    },
    set stall(value: boolean) {
      state.stall = value;
    },
    arrived: (count = requests.length + 1) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes one server-sent event: `event:` when named (Anthropic's and the Responses API's), `data:` always. */
export function sendEvent(response: ServerResponse, data: unknown, event?: string): void {
  if (!response.headersSent) response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export function sendJson(response: ServerResponse, status: number, data: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data));
}

/** A base64 picture from a data URL (`data:image/png;base64,…`). */
export function pictureOf(dataUrl: unknown): Buffer | undefined {
  const match = typeof dataUrl === 'string' ? /^data:image\/\w+;base64,(.*)$/s.exec(dataUrl) : null;
  return match ? Buffer.from(match[1], 'base64') : undefined;
}
