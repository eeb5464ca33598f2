import { request as httpRequest } from 'node:http';
import type { BrowseEvent, BrowseOptions, BrowseRequest, BrowseResult } from '../api/browse-schemas.js';
import { errorFromBody, UnavailableError } from '../errors.js';
import type { RouteKey } from '../api/routes.js';
import { routeTarget } from './route-call.js';

/**
 * `POST /browse` for the typed client (BrowserClient.browse): the run's
 * server-sent events read as they come (each handed to `onEvent`), its
 * `end` event the answer. Aborting the signal drops the connection, and
 * the server cancels the run (its model request and act in flight).
 * No timeout of its own: a run is bounded by its steps and their timeout.
 */

export interface BrowseTarget {
  baseUrl: string;
  token: string;
  profile?: string;
  signal?: AbortSignal;
}

/** Splits a server-sent event stream into its events (`event:` and `data:` lines, a blank line ends one). */
export class EventStreamReader {
  private buffer = '';

  constructor(private readonly onEvent: (name: string, data: string) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      let name = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = value;
        if (field === 'data') data.push(value);
      }
      if (data.length) this.onEvent(name, data.join('\n'));
    }
  }
}

export function browseOver(target: BrowseTarget, request: BrowseRequest, options: BrowseOptions = {}): Promise<BrowseResult> {
  // The table's route (api/browse-routes.ts), read as a stream of its events.
  const { method, path } = routeTarget('POST /browse' satisfies RouteKey);
  const url = new URL(path, target.baseUrl);
  if (target.profile) url.searchParams.set('profile', target.profile);
  const signals = [target.signal, options.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  const signal = signals.length ? AbortSignal.any(signals) : undefined;
  return new Promise<BrowseResult>((resolve, reject) => {
    const body = JSON.stringify(request);
    const call = httpRequest(
      url,
      { method, agent: false, signal, headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', accept: 'text/event-stream' } },
      (response) => {
        response.setEncoding('utf8');
        const status = response.statusCode ?? 0;
        if (status >= 400) {
          let text = '';
          response.on('error', reject);
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            reject(errorFromBody(status, parsed));
          });
          return;
        }
        let ended: BrowseResult | undefined;
        const reader = new EventStreamReader((name, data) => {
          const parsed = JSON.parse(data) as unknown;
          if (name === 'error') return reject(errorFromBody(500, parsed));
          if (name === 'end') ended = parsed as BrowseResult;
          if (name === 'start' || name === 'step' || name === 'end') options.onEvent?.({ kind: name, data: parsed } as BrowseEvent);
        });
        response.on('data', (chunk: string) => reader.push(chunk));
        response.on('end', () =>
          ended ? resolve(ended) : reject(new UnavailableError("The browse run's stream ended before its end event: the server went away")),
        );
        response.on('error', reject);
      },
    );
    call.on('error', (error) =>
      reject(
        signal?.aborted
          ? signal.reason
          : new UnavailableError(`Cannot reach the control API at ${target.baseUrl}: is \`clawd-browser serve\` running? (${error.message})`),
      ),
    );
    call.end(body);
  });
}
