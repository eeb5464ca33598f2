// Minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`.
//
// Chromium reads commands from its fd 3 and writes replies/events to its fd 4.
// Each message is one JSON object terminated by a NUL byte (no length prefix),
// so we buffer incoming bytes and split on '\0'.

import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';

type Listener = (params: any, sessionId?: string) => void;

interface Pending {
  method: string;
  resolve: (result: any) => void;
  reject: (error: Error) => void;
}

interface IncomingMessage {
  id?: number;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: string };
  sessionId?: string;
}

/** Known CDP event names, plus any string so new/experimental events still type-check. */
export type CdpEventName = keyof ProtocolMapping.Events | (string & {});

export class PipeCdp {
  #write: NodeJS.WritableStream;
  #read: NodeJS.ReadableStream;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #listeners = new Map<string, Set<Listener>>();
  // Chunks of the message currently being received (may span many reads:
  // a full-page screenshot reply is several MB).
  #partial: Buffer[] = [];
  #closedError: Error | undefined;
  // waitForEvent callers to fail when the pipe goes away.
  #onCloseCallbacks = new Set<(error: Error) => void>();

  constructor(write: NodeJS.WritableStream, read: NodeJS.ReadableStream) {
    this.#write = write;
    this.#read = read;
    read.on('data', this.#onData);
    read.on('close', this.#onClose);
    read.on('end', this.#onClose);
    read.on('error', this.#onClose);
    // Writing after Chromium exits raises EPIPE on the write side; the read
    // side's close already fails pending calls, so just swallow it here.
    write.on('error', () => {});
  }

  get closed(): boolean {
    return this.#closedError !== undefined;
  }

  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (this.#closedError) {
      return Promise.reject(new Error(`CDP ${method} failed: ${this.#closedError.message}`));
    }
    const id = this.#nextId++;
    const message: Record<string, unknown> = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      this.#write.write(JSON.stringify(message) + '\0');
    });
  }

  on(method: CdpEventName, listener: Listener): void {
    let set = this.#listeners.get(method);
    if (!set) this.#listeners.set(method, (set = new Set()));
    set.add(listener);
  }

  off(method: CdpEventName, listener: Listener): void {
    this.#listeners.get(method)?.delete(listener);
  }

  /** Resolves with the params of the first matching event. */
  waitForEvent<T = any>(method: CdpEventName, predicate: (params: T, sessionId?: string) => boolean = () => true, timeoutMs = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.off(method, listener);
        this.#onCloseCallbacks.delete(onClose);
      };
      const listener: Listener = (params, sessionId) => {
        let matched: boolean;
        try {
          matched = predicate(params, sessionId);
        } catch (error) {
          cleanup();
          reject(error);
          return;
        }
        if (matched) {
          cleanup();
          resolve(params);
        }
      };
      const onClose = (error: Error) => {
        cleanup();
        reject(new Error(`${error.message} while waiting for CDP event ${method}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for CDP event ${method}`));
      }, timeoutMs);
      if (this.#closedError) {
        onClose(this.#closedError);
        return;
      }
      this.on(method, listener);
      this.#onCloseCallbacks.add(onClose);
    });
  }

  /** Stops listening and fails outstanding calls; does not touch the browser process. */
  close(): void {
    this.#read.off('data', this.#onData);
    this.#failAll(new Error('CDP pipe closed by client'));
    this.#write.end();
  }

  #onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let nul: number;
    while ((nul = buf.indexOf(0)) !== -1) {
      this.#partial.push(buf.subarray(0, nul));
      const text = Buffer.concat(this.#partial).toString('utf8');
      this.#partial = [];
      buf = buf.subarray(nul + 1);
      this.#dispatch(text);
    }
    if (buf.length) this.#partial.push(buf);
  };

  #dispatch(text: string): void {
    let message: IncomingMessage;
    try {
      message = JSON.parse(text);
    } catch {
      return; // Not ours to crash on; Chromium only sends JSON.
    }
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) {
        const detail = message.error.data ? ` (${message.error.data})` : '';
        pending.reject(new Error(`CDP ${pending.method} failed: ${message.error.message}${detail}`));
      } else {
        pending.resolve(message.result);
      }
      return;
    }
    if (message.method) {
      // Copy so listeners may unsubscribe themselves while we iterate.
      for (const listener of [...(this.#listeners.get(message.method) ?? [])]) {
        listener(message.params, message.sessionId);
      }
    }
  }

  #onClose = () => {
    this.#failAll(new Error('CDP pipe closed'));
  };

  #failAll(error: Error): void {
    this.#closedError ??= error;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(new Error(`CDP ${pending.method} failed: ${error.message}`));
    }
    for (const callback of [...this.#onCloseCallbacks]) callback(error);
  }
}
