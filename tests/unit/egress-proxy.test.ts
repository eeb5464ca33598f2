import { request as httpRequest, createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy } from '../../relay/src/egress/egress-proxy.js';
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
  proxy = new EgressProxy({ owner: 'test', policy: () => UrlPolicySchema.parse({ deny: ['denied.test'] }), forbiddenPorts: () => new Set([1]), log: silent, resolve: async (host) => (host.endsWith('.test') ? ['127.0.0.1'] : []) });
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
});
