import type { Page, Request } from 'playwright-core';
import type { NetworkBody, NetworkEntry } from '../../api/responses.js';
import { NotFoundError } from '../../errors.js';

/**
 * A tab's network log (issue 22): off until asked for, then every request
 * the tab makes, with its headers, status, type, timing and size, the last
 * MAX_ENTRIES kept. Bodies (a response's, or a request's own) are fetched
 * only when asked for, from the browser, while it still holds them, and
 * capped. Headers that carry
 * credentials are redacted unless the caller may see them (redact()).
 */

const MAX_ENTRIES = 1000;
/** A body beyond this is cut (the answer says so). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Headers that carry credentials: a session's cookies (the vault's among them) and tokens. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

export interface NetworkFilter {
  /** A substring of the URL. */
  url?: string;
  /** An exact status (404), or a class (4xx). */
  status?: string;
  /** Playwright's resource type: document, script, image, fetch, xhr, stylesheet, … */
  type?: string;
  limit?: number;
}

export class NetworkLog {
  private recordingSince: string | undefined;
  private nextId = 1;
  private readonly entries: Array<{ entry: NetworkEntry; request: Request }> = [];
  private readonly byRequest = new Map<Request, NetworkEntry>();
  /** Routed before the log saw the request start: said when it does. */
  private readonly routedEarly = new WeakMap<Request, string>();
  private readonly listeners: Array<[string, (request: Request) => void]> = [];

  constructor(private readonly page: Page) {}

  get recording(): boolean {
    return this.recordingSince !== undefined;
  }

  /** Starts (or stops) recording; what was recorded stays until the tab closes or recording starts again. */
  record(on: boolean): void {
    if (on === this.recording) return;
    if (!on) {
      for (const [event, listener] of this.listeners.splice(0)) this.page.off(event as 'request', listener);
      this.recordingSince = undefined;
      return;
    }
    this.entries.length = 0;
    this.byRequest.clear();
    this.recordingSince = new Date().toISOString();
    const listen = (event: 'request' | 'requestfinished' | 'requestfailed', listener: (request: Request) => void) => {
      this.page.on(event as 'request', listener);
      this.listeners.push([event, listener]);
    };
    listen('request', (request) => this.started(request));
    listen('requestfinished', (request) => void this.finished(request).catch(() => {}));
    listen('requestfailed', (request) => {
      const entry = this.byRequest.get(request);
      if (entry) entry.failure = request.failure()?.errorText ?? 'failed';
    });
  }

  list(filter: NetworkFilter = {}): NetworkEntry[] {
    const status = filter.status;
    const statusMatches = (entry: NetworkEntry) =>
      status === undefined ||
      (/^\dxx$/i.test(status) ? entry.status !== undefined && Math.floor(entry.status / 100) === Number(status[0]) : entry.status === Number(status));
    const matching = this.entries
      .map(({ entry }) => entry)
      .filter(
        (entry) =>
          (filter.url === undefined || entry.url.includes(filter.url)) &&
          (filter.type === undefined || entry.resourceType === filter.type) &&
          statusMatches(entry),
      );
    return filter.limit === undefined ? matching : matching.slice(-filter.limit);
  }

  get since(): string | undefined {
    return this.recordingSince;
  }

  /** A response body as the browser still holds it, or the request's own: base64, cut at MAX_BODY_BYTES. */
  async body(id: number, part: 'response' | 'request' = 'response'): Promise<NetworkBody> {
    const held = this.entries.find(({ entry }) => entry.id === id);
    if (!held) throw new NotFoundError(`No request ${id} in this tab's network log (it records from POST /network/record, and keeps the last ${MAX_ENTRIES})`);
    const cut = (body: Buffer, mimeType: string | undefined): NetworkBody => ({
      id,
      part,
      ...(mimeType ? { mimeType } : {}),
      base64: body.subarray(0, MAX_BODY_BYTES).toString('base64'),
      size: body.length,
      truncated: body.length > MAX_BODY_BYTES,
    });
    if (part === 'request') {
      const sent = held.request.postDataBuffer();
      if (!sent) throw new NotFoundError(`Request ${id} (${held.entry.method}) sent no body`);
      return cut(sent, held.entry.requestHeaders['content-type']?.split(';')[0]);
    }
    const response = await held.request.response();
    if (!response) throw new NotFoundError(`Request ${id} got no response${held.entry.failure ? ` (${held.entry.failure})` : ''}`);
    let body: Buffer;
    try {
      body = await response.body();
    } catch (error) {
      throw new NotFoundError(`The browser no longer holds the body of request ${id}: ${(error as Error).message.split('\n')[0]}`);
    }
    return cut(body, held.entry.mimeType);
  }

  /** A network route answered the request (network-routes.ts): the entry says so. */
  markRouted(request: Request, how: string): void {
    if (!this.recording) return;
    const entry = this.byRequest.get(request);
    if (entry) entry.routed = how;
    else this.routedEarly.set(request, how);
  }

  private started(request: Request): void {
    const entry: NetworkEntry = {
      id: this.nextId++,
      url: request.url(),
      method: request.method(),
      resourceType: request.resourceType(),
      requestHeaders: request.headers(),
      startedAt: new Date().toISOString(),
    };
    const sent = request.postDataBuffer();
    if (sent) entry.requestBodySize = sent.length;
    const routed = this.routedEarly.get(request);
    if (routed) entry.routed = routed;
    this.entries.push({ entry, request });
    this.byRequest.set(request, entry);
    if (this.entries.length > MAX_ENTRIES) this.byRequest.delete(this.entries.shift()!.request);
    // The full request headers (cookies included) and the response come later.
    void request.allHeaders().then(
      (headers) => (entry.requestHeaders = headers),
      () => {},
    );
  }

  private async finished(request: Request): Promise<void> {
    const entry = this.byRequest.get(request);
    const response = await request.response();
    if (!entry || !response) return;
    entry.status = response.status();
    entry.statusText = response.statusText();
    entry.responseHeaders = await response.allHeaders();
    entry.mimeType = entry.responseHeaders['content-type']?.split(';')[0];
    const timing = request.timing();
    if (timing.responseEnd > 0) entry.durationMs = Math.round(timing.responseEnd);
    entry.size = (await request.sizes().catch(() => undefined))?.responseBodySize;
  }
}

/** The entry with its credential-bearing headers replaced, as anyone but the token's holder sees it. */
export function redact(entry: NetworkEntry): NetworkEntry {
  const clean = (headers: Record<string, string> | undefined) =>
    headers && Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
  return { ...entry, requestHeaders: clean(entry.requestHeaders)!, ...(entry.responseHeaders ? { responseHeaders: clean(entry.responseHeaders) } : {}) };
}

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) of these entries: what browsers' DevTools and HAR viewers open. */
export function toHar(entries: NetworkEntry[], creatorVersion: string): object {
  const pairs = (headers: Record<string, string> | undefined) => Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
  return {
    log: {
      version: '1.2',
      creator: { name: 'clawd-browser', version: creatorVersion },
      pages: [],
      entries: entries.map((entry) => {
        const url = new URL(entry.url);
        return {
          startedDateTime: entry.startedAt,
          time: entry.durationMs ?? -1,
          request: {
            method: entry.method,
            url: entry.url,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(entry.requestHeaders),
            queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
            headersSize: -1,
            bodySize: entry.requestBodySize ?? 0,
          },
          response: {
            status: entry.status ?? 0,
            statusText: entry.statusText ?? entry.failure ?? '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(entry.responseHeaders),
            content: { size: entry.size ?? -1, mimeType: entry.mimeType ?? '' },
            redirectURL: entry.responseHeaders?.location ?? '',
            headersSize: -1,
            bodySize: entry.size ?? -1,
          },
          cache: {},
          timings: { send: 0, wait: entry.durationMs ?? -1, receive: 0 },
          _resourceType: entry.resourceType,
          ...(entry.failure ? { _failure: entry.failure } : {}),
        };
      }),
    },
  };
}
