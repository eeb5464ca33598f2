import type { Request, Response } from 'express';
import type { AuditEntry } from '../api/session-responses.js';
import { TooManyError } from '../errors.js';
import { LIMITS } from './limits.js';

/**
 * `GET /events`: server-sent events for the operator's console, so that the
 * page changes when the server's state does (a session starts or ends, a
 * grant is issued or revoked, the vault is written) rather than polling it
 * all. Each audit entry is one `audit` event; a comment every 15 s keeps
 * proxies and the browser from closing an idle stream. A viewer that does
 * not read misses entries rather than growing the buffer.
 */

const KEEPALIVE_MS = 15_000;

/** Where entries come from (the audit log). */
export interface AuditFeed {
  subscribe(listener: (entry: AuditEntry) => void): () => void;
}

export class EventStreams {
  private open = 0;

  constructor(private readonly audit: AuditFeed) {}

  /** How many streams are open now: a console is watching. */
  get watching(): number {
    return this.open;
  }

  stream(request: Request, response: Response): void {
    if (this.open >= LIMITS.eventStreams) throw new TooManyError(`${this.open} event streams are open, the most allowed: close a console first`);
    this.open++;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    response.write(': clawd-browser events\n\n');
    const send = (entry: AuditEntry) => {
      if (response.writableLength > LIMITS.screencastBufferedBytes) return;
      response.write(`event: audit\ndata: ${JSON.stringify(entry)}\n\n`);
    };
    const stop = this.audit.subscribe(send);
    const keepalive = setInterval(() => response.write(': keep-alive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    request.once('close', () => {
      this.open--;
      clearInterval(keepalive);
      stop();
    });
  }
}
