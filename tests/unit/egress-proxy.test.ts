import { request as httpRequest, createServer, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy } from '../../relay/src/egress/egress-proxy.js';
import { DescriptorBudget, openFileLimit } from '../../relay/src/egress/descriptor-budget.js';
import { CONNECT_TIMEOUT_MS, connectFailure } from '../../relay/src/egress/egress-failures.js';
import { UrlPolicySchema } from '../../relay/src/runtime/url-policy.js';

/**
 * The egress proxy on real sockets (no browser): proxied requests and
 * tunnels go to the judged address and are counted; refusals name the rule;
 * a client or a site that hangs up mid-stream ends that connection only, and
 * the proxy goes on serving.
 */

let site: Server;
let sitePort: number;
let proxy: EgressProxy;
let proxyPort: number;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

beforeAll(async () => {
  site = createServer((request, response) => {
    if (request.url === '/slow') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first part ');
      return; // never ends: the client will hang up
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from ${request.headers.host}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  proxy = new EgressProxy({
    owner: 'test',
    policy: () => UrlPolicySchema.parse({ deny: ['denied.test'] }),
    forbiddenPorts: () => new Set([1]),
    log: silent,
    resolve: async (host) => (host.endsWith('.test') ? ['127.0.0.1'] : []),
  });
  proxyPort = await proxy.listen({ port: 0 });
});
afterAll(async () => {
  await proxy.close();
  site.closeAllConnections();
  site.close();
});

function viaProxy(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: proxyPort, path: url, headers: { host: new URL(url).host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

function tunnel(authority: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`));
    let said = '';
    socket.on('data', (chunk) => {
      said += chunk.toString();
      if (said.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(said.split('\r\n')[0]);
      }
    });
    socket.on('error', () => resolve(said));
  });
}

describe('the egress proxy', () => {
  it('sends a GET again on a new connection when the site closed the kept-alive one just as it was reused', async () => {
    let answered = 0;
    const requestsOn = new WeakMap<object, number>();
    // A site whose idle timeout runs out as the next request arrives: the second request on a connection is closed unanswered.
    const closing = createServer((request, response) => {
      const seen = (requestsOn.get(request.socket) ?? 0) + 1;
      requestsOn.set(request.socket, seen);
      if (seen > 1) return void request.socket.destroy();
      answered++;
      response.end(`answer ${answered}`);
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const port = (closing.address() as AddressInfo).port;
    try {
      expect(await viaProxy(`http://allowed.test:${port}/first`)).toEqual({ status: 200, body: 'answer 1' });
      expect(await viaProxy(`http://allowed.test:${port}/second`)).toEqual({ status: 200, body: 'answer 2' });
    } finally {
      closing.closeAllConnections();
      closing.close();
    }
  });

  it('forwards an allowed request to the judged address, and refuses a denied one with the rule', async () => {
    expect(await viaProxy(`http://allowed.test:${sitePort}/`)).toEqual({ status: 200, body: `hello from allowed.test:${sitePort}` });
    const refused = await viaProxy(`http://denied.test:${sitePort}/`);
    expect(refused.status).toBe(403);
    expect(refused.body).toBe('Refused by clawd-browser: urlPolicy deny: denied.test matches "denied.test"\n');
    expect(proxy.counters.refused).toBeGreaterThanOrEqual(1);
    expect(proxy.counters.bytesIn).toBeGreaterThan(0);
  });

  it('opens tunnels by the same rules', async () => {
    expect(await tunnel(`allowed.test:${sitePort}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(await tunnel(`denied.test:${sitePort}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await tunnel('127.0.0.1:1')).toBe('HTTP/1.1 403 Forbidden');
  });

  it('survives a client that hangs up mid-response, and goes on serving', async () => {
    await new Promise<void>((resolve) => {
      const request = httpRequest({ host: '127.0.0.1', port: proxyPort, path: `http://allowed.test:${sitePort}/slow` }, (response) => {
        response.once('data', () => {
          request.destroy();
          setTimeout(resolve, 200);
        });
        response.on('error', () => {});
      });
      request.on('error', () => {});
      request.end();
    });
    expect(await viaProxy(`http://allowed.test:${sitePort}/`)).toMatchObject({ status: 200 });
  });

  it('answers anything but a proxied request with a 400 (it speaks no CDP)', async () => {
    const response = await fetch(`http://127.0.0.1:${proxyPort}/json/version`);
    expect(response.status).toBe(400);
  });

  it("keeps why each connection failed, by host, for the answer of a navigation: no such name, refused, the rule; a plain request's failure is marked", async () => {
    const since = Date.now();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));

    expect(await tunnel(`closed.test:${closed}`)).toBe('HTTP/1.1 502 Bad Gateway');
    expect(proxy.failures.latest('closed.test', since)).toMatchObject({
      reason: `closed.test:${closed} refused the connection: nothing listens there (ECONNREFUSED)`,
      byPolicy: false,
    });
    const plain = await new Promise<{ status: number; marked: string | undefined; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port: proxyPort, path: `http://other.test:${closed}/`, headers: { host: `other.test:${closed}` } },
        (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, marked: response.headers['x-clawd-egress'] as string | undefined, body }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(plain).toEqual({
      status: 502,
      marked: 'failed',
      body: `clawd-browser egress: other.test:${closed} refused the connection: nothing listens there (ECONNREFUSED)`,
    });

    expect((await viaProxy('http://nowhere.example/')).status).toBe(403);
    expect(proxy.failures.latest('NOWHERE.example.', since)).toMatchObject({
      reason: 'nowhere.example does not resolve: the name is unknown, or this machine has no network or DNS',
      byPolicy: false,
    });
    await viaProxy(`http://denied.test:${sitePort}/`);
    expect(proxy.failures.latest('denied.test', since)).toMatchObject({ reason: 'urlPolicy deny: denied.test matches "denied.test"', byPolicy: true });
    // Only what failed since the navigation began answers for it.
    expect(proxy.failures.latest('closed.test', Date.now() + 1)).toBeUndefined();
    expect(proxy.failures.latest('allowed.test', since)).toBeUndefined();
  });

  it('gives a site that does not accept a connection CONNECT_TIMEOUT_MS, then answers 502 and keeps why', async () => {
    // A listener whose process never accepts (its event loop held), its queue full: the next SYN is dropped, as by a site that is down.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => { console.log(s.address().port); setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 40000), 50); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = Number(await new Promise<string>((resolve) => holder.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const queued = [1, 2, 3, 4].map(() => connect(port, '127.0.0.1').on('error', () => {}));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const since = Date.now();
      expect(await tunnel(`hung.test:${port}`)).toBe('HTTP/1.1 502 Bad Gateway');
      expect(Date.now() - since).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 100);
      expect(proxy.failures.latest('hung.test', since)?.reason).toBe(
        `hung.test:${port} did not answer within 15 s: it is down, or something between drops the packets (ETIMEDOUT)`,
      );
      for (const socket of queued) socket.destroy();
    } finally {
      holder.kill('SIGKILL');
    }
  }, 30_000);

  it('says a site that did not accept a connection in time, or cannot be routed to, in words', () => {
    const error = (code: string) => Object.assign(new Error(code), { code });
    expect(CONNECT_TIMEOUT_MS).toBe(15_000);
    expect(connectFailure('slow.example', 443, error('ETIMEDOUT'))).toBe(
      'slow.example:443 did not answer within 15 s: it is down, or something between drops the packets (ETIMEDOUT)',
    );
    expect(connectFailure('far.example', 443, error('ENETUNREACH'))).toBe(
      'far.example:443 cannot be reached from this machine: no route to it, or no network (ENETUNREACH)',
    );
    expect(connectFailure('[::1]', 8080, error('ECONNREFUSED'))).toBe('[::1]:8080 refused the connection: nothing listens there (ECONNREFUSED)');
  });
});

describe('what one browser may hold through its way out', () => {
  /** Opens a tunnel and keeps it: resolves to its first line, and the socket (still open when it was taken). */
  function held(port: number, authority: string): Promise<{ line: string; socket: ReturnType<typeof connect> }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`));
      let said = '';
      socket.on('data', (chunk) => {
        said += chunk.toString();
        if (said.includes('\r\n\r\n')) resolve({ line: said.split('\r\n')[0], socket });
      });
      socket.on('close', () => resolve({ line: said.split('\r\n')[0] || 'closed', socket }));
      socket.on('error', () => {});
    });
  }

  it('holds its cap of connections and closes the next at once, and takes more once some end', async () => {
    const warned: string[] = [];
    const capped = new EgressProxy({
      owner: 'capped',
      policy: () => undefined,
      forbiddenPorts: () => new Set(),
      log: { ...silent, warn: (line: string) => void warned.push(line) },
      maxConnections: 5,
      resolve: async () => ['127.0.0.1'],
    });
    const port = await capped.listen({ port: 0 });
    try {
      const tunnels = await Promise.all(Array.from({ length: 8 }, () => held(port, `site.test:${sitePort}`)));
      expect(tunnels.map((tunnel) => tunnel.line).sort()).toEqual([...Array(5).fill('HTTP/1.1 200 Connection Established'), 'closed', 'closed', 'closed']);
      expect(capped.open).toBe(5);
      expect(capped.counters.refused).toBe(3);
      expect(warned).toEqual(['egress capped: holds 5 connections, its most; new connections are closed until some end']);
      for (const tunnel of tunnels.slice(0, 8)) tunnel.socket.destroy();
      await expect.poll(() => capped.open).toBe(0);
      expect((await held(port, `site.test:${sitePort}`)).line).toBe('HTTP/1.1 200 Connection Established');
    } finally {
      await capped.close();
    }
  });

  it('leaves the server its reserve of descriptors, whatever each proxy may hold', async () => {
    // A process limit of 300 with 290 kept: the proxies together may hold 10 descriptors, 5 connections.
    const descriptors = new DescriptorBudget(300, 290);
    const proxies = [0, 1].map(
      (index) =>
        new EgressProxy({
          owner: `p${index}`,
          policy: () => undefined,
          forbiddenPorts: () => new Set(),
          log: silent,
          maxConnections: 100,
          descriptors,
          resolve: async () => ['127.0.0.1'],
        }),
    );
    const ports = await Promise.all(proxies.map((each) => each.listen({ port: 0 })));
    try {
      const first = await Promise.all(Array.from({ length: 3 }, () => held(ports[0], `site.test:${sitePort}`)));
      const second = await Promise.all(Array.from({ length: 3 }, () => held(ports[1], `site.test:${sitePort}`)));
      const lines = [...first, ...second].map((tunnel) => tunnel.line);
      expect(lines.filter((line) => line.includes('200'))).toHaveLength(5);
      expect(lines.filter((line) => line === 'closed')).toHaveLength(1);
      for (const tunnel of [...first, ...second]) tunnel.socket.destroy();
      await expect.poll(() => proxies[0].open + proxies[1].open).toBe(0);
      expect(descriptors.take(10)).toBe(true);
    } finally {
      await Promise.all(proxies.map((each) => each.close()));
    }
  });

  it('reads the process limit on open files', () => {
    expect(openFileLimit()).toBeGreaterThanOrEqual(256);
    expect(new DescriptorBudget(20_000).room).toBe(16_000);
  });
});
