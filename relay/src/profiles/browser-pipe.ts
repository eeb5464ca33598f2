import type { Readable, Writable } from 'node:stream';

/**
 * The channel a launched Chromium speaks CDP on: `--remote-debugging-pipe`,
 * file descriptors 3 (Chromium reads) and 4 (Chromium writes), one JSON
 * message per NUL-terminated frame. Only the process that launched the
 * browser holds the two ends, so no other local process can reach its CDP;
 * and when that process ends, however it ends, Chromium reads end-of-file
 * and exits with it.
 */
export class BrowserPipe {
  private readonly pending: Buffer[] = [];
  private closed = false;
  /** Each whole message Chromium sent, in order. */
  onmessage: (message: string) => void = () => {};
  /** Once, when either end closes or fails. */
  onclose: (reason: string) => void = () => {};

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => this.received(chunk));
    fromBrowser.on('close', () => this.ended('the browser closed its end of the pipe'));
    fromBrowser.on('error', (error) => this.ended(`pipe read failed: ${error.message}`));
    // A write after Chromium exited fails with EPIPE: the pipe is then closed, not the server.
    toBrowser.on('error', (error) => this.ended(`pipe write failed: ${error.message}`));
  }

  send(message: string): void {
    if (this.closed) return;
    this.toBrowser.write(message);
    this.toBrowser.write('\0');
  }

  close(): void {
    this.ended('closed by clawd-browser');
    this.toBrowser.end();
  }

  private received(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      this.pending.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.pending).toString('utf8');
      this.pending.length = 0;
      if (!this.closed) this.onmessage(message);
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  private ended(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose(reason);
  }
}
