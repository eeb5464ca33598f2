import { Agent, createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log.js';
import { resolveHost, type UrlPolicy } from '../runtime/url-policy.js';
import { decideEgress, type EgressDecision } from './egress-decision.js';
import { type DescriptorBudget, serverDescriptors } from './descriptor-budget.js';
import { CONNECT_TIMEOUT_MS, connectFailure, connectTimeout, EgressFailures } from './egress-failures.js';

/**
 * One browser's only way out (spec §14): an HTTP proxy (forward requests,
 * CONNECT tunnels, WebSocket upgrades) that the browser is launched behind.
 * Each connection is decided by egress-decision.ts against the policy as it
 * is now (config edits apply to the next connection), and made to the
 * address that was judged. Bytes are counted each way. A refused request is
 * a 403 whose body names the rule; a refused tunnel is a 403 to CONNECT
 * (Chromium reports it as ERR_TUNNEL_CONNECTION_FAILED).
 *
 * It listens on a loopback port, or on a unix socket for a jailed browser,
 * whose network namespace reaches the socket through a bridge
 * (jail/netns.ts).
 */

export interface EgressCounters {
  bytesIn: number;
  bytesOut: number;
  connections: number;
  refused: number;
}

/** Counters that add up `counted` (none: all zero): a browser launched again adds to its earlier launches. */
export function sumCounters(...counted: Array<EgressCounters | undefined>): EgressCounters {
  const sum: EgressCounters = { bytesIn: 0, bytesOut: 0, connections: 0, refused: 0 };
  for (const counters of counted) for (const key of Object.keys(sum) as Array<keyof EgressCounters>) sum[key] += counters?.[key] ?? 0;
  return sum;
}

export interface EgressOptions {
  /** Whose way out this is (a profile's or a session's name), for the log. */
  owner: string;
  policy: () => UrlPolicy | undefined;
  forbiddenPorts: () => ReadonlySet<number>;
  log: Logger;
  /** A resolver other than the system's (tests). */
  resolve?: (host: string) => Promise<string[]>;
  /** Connections held through it at once (a session's sessionLimits.connections); beyond, a new one is closed at once. */
  maxConnections?: number;
  /** The server's descriptors all proxies share (descriptor-budget.ts); the process's own by default. */
  descriptors?: DescriptorBudget;
}

/** Connections a browser that is not a task session's may hold through its way out at once. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Each connection through a proxy: the browser's socket and the site's. */
const DESCRIPTORS_PER_CONNECTION = 2;

/** Methods whose request, without a body, is sent again when a reused connection to the site turns out closed. */
const RESENDABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Headers that belong to the hop to the proxy, not to the site. */
const HOP_HEADERS = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']);

export class EgressProxy {
  readonly counters = sumCounters();
  /** Why connections failed here lately, for the answer of a navigation that failed (egress-failures.ts). */
  readonly failures = new EgressFailures();
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();
  /** Connections from the browser held now (admit()). */
  private held = 0;
  private fullSaidAt = 0;
  /** Connections to sites kept for the next request to the same address (as the browser itself would keep them). */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });

  constructor(private readonly options: EgressOptions) {
    this.server = createServer((request, response) => void this.forward(request, response));
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head));
    this.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(request, socket, head));
    this.server.on('connection', (socket: Socket) => this.admit(socket));
  }

  /** Connections held through the proxy now. */
  get open(): number {
    return this.held;
  }

  /**
   * A connection from the browser, pending or not, is held only within the
   * proxy's cap and the server's descriptors (descriptor-budget.ts); beyond
   * either it is closed at once, counted as refused, and said in the log (once
   * a minute at most): what one browser opens cannot take what others need.
   */
  private admit(socket: Socket): void {
    this.track(socket);
    const max = this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const descriptors = this.options.descriptors ?? serverDescriptors;
    const full =
      this.held >= max
        ? `holds ${max} connections, its most`
        : !descriptors.take(DESCRIPTORS_PER_CONNECTION)
          ? "the server's descriptors for ways out are spent"
          : undefined;
    if (full) {
      this.counters.refused++;
      if (Date.now() - this.fullSaidAt > 60_000) {
        this.fullSaidAt = Date.now();
        this.options.log.warn(`egress ${this.options.owner}: ${full}; new connections are closed until some end`);
      }
      return void socket.destroy();
    }
    this.held++;
    socket.once('close', () => {
      this.held--;
      descriptors.give(DESCRIPTORS_PER_CONNECTION);
    });
  }

  /** Listens on a loopback port (0: any free one) or a unix socket path; resolves to the port (0 for a path). */
  listen(where: { port: number } | { path: string }): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const done = () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      };
      if ('path' in where) this.server.listen(where.path, done);
      else this.server.listen(where.port, '127.0.0.1', done);
    });
  }

  /** Stops listening and cuts every connection through it. */
  async close(): Promise<void> {
    this.agent.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private decide(host: string, port: number): Promise<EgressDecision> {
    return decideEgress(host, port, {
      policy: this.options.policy(),
      resolve: this.options.resolve ?? resolveHost,
      forbiddenPorts: this.options.forbiddenPorts,
    });
  }

  private refused(host: string, why: string): void {
    this.counters.refused++;
    this.failures.note(host, why);
    this.options.log.info(`egress ${this.options.owner}: ${host} refused: ${why}`);
  }

  /** A connection to a site that could not be made (refused, timed out, unreachable). */
  private failed(host: string, port: number, error: NodeJS.ErrnoException): string {
    const why = connectFailure(host, port, error);
    this.failures.note(host, why);
    this.options.log.info(`egress ${this.options.owner}: ${why}`);
    return why;
  }

  /** A plain-HTTP request in absolute form (`GET http://host/path`). */
  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(request.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      return void response.writeHead(400, { 'content-type': 'text/plain' }).end('clawd-browser egress: only proxied http:// requests and CONNECT are served');
    }
    const port = Number(target.port || 80);
    const decision = await this.decide(target.hostname, port);
    if ('refused' in decision) {
      this.refused(target.host, decision.refused);
      return void response
        .writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'x-clawd-refused': 'urlPolicy' })
        .end(`Refused by clawd-browser: ${decision.refused}\n`);
    }
    this.counters.connections++;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    // A request without a body that nothing changes may be sent again (RFC 9110 §9.2.2), as browsers do.
    const resendable =
      RESENDABLE.has(request.method ?? '') && request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined;
    const send = (mayResend: boolean) => {
      const upstream = httpRequest({
        host: decision.address,
        port,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers,
        setHost: false,
        agent: this.agent,
      });
      // A request the browser abandons ends its connection to the site too (a finished one goes back to the pool).
      response.once('close', () => !response.writableFinished && upstream.destroy());
      request.on('error', () => upstream.destroy());
      response.on('error', () => upstream.destroy());
      upstream.on('response', (answer) => {
        answer.on('error', () => response.destroy());
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => (this.counters.bytesIn += chunk.length));
        answer.pipe(response);
      });
      upstream.once('socket', (socket) => boundConnect(socket, () => upstream.destroy(connectTimeout(target.hostname, port))));
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the site closed just as it was reused (its idle timeout): sent again on a new one.
        if (mayResend && upstream.reusedSocket && !response.headersSent && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return send(false);
        if (!response.headersSent)
          response
            .writeHead(502, { 'content-type': 'text/plain', 'x-clawd-egress': 'failed' })
            .end(`clawd-browser egress: ${this.failed(target.hostname, port, error)}`);
        else response.destroy();
      });
      if (resendable) upstream.end();
      else request.pipe(upstream);
    };
    request.on('data', (chunk: Buffer) => (this.counters.bytesOut += chunk.length));
    send(resendable);
  }

  /** CONNECT host:port: a tunnel (https, wss, ws through a proxy, anything TCP). */
  private async tunnel(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    const authority = request.url ?? '';
    const split = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority);
    const decision = split ? await this.decide(split[1], Number(split[2])) : ({ refused: `egress: ${JSON.stringify(authority)} is not host:port` } as const);
    if ('refused' in decision) {
      this.refused(authority, decision.refused);
      return void client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nx-clawd-refused: urlPolicy\r\n\r\nRefused by clawd-browser: ${decision.refused}\n`,
      );
    }
    this.pipeTo(decision, client, 'HTTP/1.1 200 Connection Established\r\n\r\n', head, split![1]);
  }

  /** A WebSocket (or other upgrade) sent in absolute form: its request head is passed on as it came. */
  private async upgrade(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    }
    const port = Number(target.port || 80);
    const decision = await this.decide(target.hostname, port);
    if ('refused' in decision) {
      this.refused(target.host, decision.refused);
      return void client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nRefused by clawd-browser: ${decision.refused}\n`);
    }
    const lines = [`${request.method} ${target.pathname}${target.search} HTTP/1.1`];
    for (let i = 0; i < request.rawHeaders.length; i += 2)
      if (!HOP_HEADERS.has(request.rawHeaders[i].toLowerCase()) || request.rawHeaders[i].toLowerCase() === 'connection')
        lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
    this.pipeTo(decision, client, undefined, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), head]), target.hostname);
  }

  /** Connects to the judged address and joins the two sockets, counting bytes. */
  private pipeTo(decision: { address: string; port: number }, client: Duplex, greeting: string | undefined, first: Buffer, asked: string): void {
    this.counters.connections++;
    const upstream = connect({ host: decision.address, port: decision.port });
    this.track(upstream);
    boundConnect(upstream, () => upstream.destroy(connectTimeout(asked, decision.port)));
    let connected = false;
    upstream.once('connect', () => (connected = true));
    upstream.once('connect', () => {
      if (greeting) client.write(greeting);
      if (first.length) {
        this.counters.bytesOut += first.length;
        upstream.write(first);
      }
      upstream.on('data', (chunk: Buffer) => (this.counters.bytesIn += chunk.length));
      client.on('data', (chunk: Buffer) => (this.counters.bytesOut += chunk.length));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const end = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected) this.failed(asked, decision.port, error);
      return greeting && !client.destroyed ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : end();
    });
    client.once('close', end);
    upstream.once('close', end);
  }

  /**
   * Every socket of the proxy, either side, is tracked (closed with it) and
   * has an error listener from its first moment: a browser or a site that
   * hangs up mid-stream ends that connection, never the server.
   */
  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => this.sockets.delete(socket));
  }
}

/** A socket still connecting gets CONNECT_TIMEOUT_MS to connect (`onTimeout` then); a connected one (a kept one) none. */
function boundConnect(socket: Socket, onTimeout: () => void): void {
  if (!socket.connecting) return;
  const timer = setTimeout(onTimeout, CONNECT_TIMEOUT_MS);
  socket.once('connect', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}
