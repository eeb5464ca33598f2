import { z } from 'zod';
import { HOST_PROTOCOL_VERSION } from '../../../protocol/native-host.js';
import type { Logger } from '../log.js';
import { encodeNativeMessage, NativeMessageReader } from './framing.js';
import { bootstrap, ensureRelay, type HostContext, status } from './operations.js';
import { describeIssues } from '../validation.js';

/**
 * The native messaging host's loop: frames in on stdin, frames out on stdout
 * (and nothing else there), one reply per request. Bad input gets an error
 * reply; a caller whose origin is not allowed gets one refusal, then the host
 * exits.
 */

export { HOST_PROTOCOL_VERSION };

const Request = z.object({
  op: z.string(),
  id: z.union([z.string(), z.number()]).optional(),
  v: z.number().int().optional(),
});

const OPERATIONS: Record<string, (context: HostContext) => Promise<object>> = {
  bootstrap,
  ensure_relay: ensureRelay,
  status,
};

export interface NativeHostOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Chrome passes the caller's origin (chrome-extension://ID/) as the first argument. */
  origin: string | undefined;
  allowedOrigins: string[];
  context: HostContext;
  log: Logger;
}

type Reply = { id?: string | number; ok: true; op: string; protocol: number } & object;
type ErrorReply = { id?: string | number; ok: false; protocol: number; error: { code: string; message: string } };

/** Resolves with the exit code once stdin ends (or after refusing a foreign caller). */
export function runNativeHost(options: NativeHostOptions): Promise<number> {
  const { input, output, log } = options;
  const reader = new NativeMessageReader();
  const originAllowed = options.origin !== undefined && options.allowedOrigins.includes(options.origin);
  let queue = Promise.resolve();

  const send = (reply: Reply | ErrorReply) => {
    try {
      output.write(encodeNativeMessage(reply));
    } catch (error) {
      output.write(encodeNativeMessage(failure(reply.id, 'reply_too_large', (error as Error).message)));
    }
  };

  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      input.removeAllListeners('data');
      resolve(code);
    };
    input.on('data', (chunk: Buffer) => {
      for (const decoded of reader.push(chunk)) {
        if (!originAllowed) {
          log.warn(`refusing caller with origin ${JSON.stringify(options.origin)}`);
          send(failure(undefined, 'forbidden_origin', `origin ${JSON.stringify(options.origin)} is not allowed to use this host`));
          return void queue.then(() => finish(1));
        }
        if ('error' in decoded) {
          send(failure(undefined, decoded.error, decoded.detail));
          continue;
        }
        // One request at a time, in order: ensure_relay may take seconds.
        queue = queue.then(() => handle(decoded.message)).then(send);
      }
    });
    input.on('end', () => {
      if (reader.pendingBytes) log.warn(`input ended inside a message (${reader.pendingBytes} bytes unread)`);
      void queue.then(() => finish(0));
    });
  });

  async function handle(message: unknown): Promise<Reply | ErrorReply> {
    const parsed = Request.safeParse(message);
    if (!parsed.success) {
      const id = (message as { id?: unknown } | null)?.id;
      const detail = describeIssues(parsed.error, 'message');
      return failure(typeof id === 'string' || typeof id === 'number' ? id : undefined, 'bad_request', detail);
    }
    const { op, id, v } = parsed.data;
    if (v !== undefined && v > HOST_PROTOCOL_VERSION)
      return failure(id, 'unsupported_version', `host protocol ${v} requested; this host speaks ${HOST_PROTOCOL_VERSION}`);
    const operation = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
    if (!operation) return failure(id, 'unknown_op', `unknown op ${JSON.stringify(op)}; known: ${Object.keys(OPERATIONS).join(', ')}`);
    try {
      return { id, ok: true, op, protocol: HOST_PROTOCOL_VERSION, ...(await operation(options.context)) };
    } catch (error) {
      log.error(`${op} failed: ${(error as Error).message}`);
      return failure(id, 'failed', (error as Error).message);
    }
  }
}

function failure(id: string | number | undefined, code: string, message: string): ErrorReply {
  return { ...(id === undefined ? {} : { id }), ok: false, protocol: HOST_PROTOCOL_VERSION, error: { code, message } };
}
