import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { waitFor } from '../harness/chromium.js';
import { startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Every way a page can open a connection, against a denied host (spec §12,
 * §14): with `urlPolicy: {deny: ["localhost"]}`, an allowed page on
 * 127.0.0.1 tries fetch, an image, an iframe, a WebSocket, EventSource, a
 * beacon, a hyperlink ping, a preconnect and a DNS prefetch, speculation
 * rules (prefetch and prerender), a dedicated worker, a service worker, and
 * WebRTC with a STUN server on the denied host. The denied host's own TCP
 * and UDP listeners count what reaches them: nothing may. The allowed page
 * still works (its own fetch answers). On the managed profile and in a task
 * session, whose browsers reach the network only through their egress proxy.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** The denied host's listeners: every TCP connection and UDP datagram that reaches them. */
const reached: string[] = [];
let tcp: Server[] = [];
let udp: UdpSocket;
let deniedPort: number;
let stunPort: number;

function page(): string {
  const denied = `localhost:${deniedPort}`;
  return `<!doctype html><title>ways out</title>
<link rel="preconnect" href="http://${denied}">
<link rel="dns-prefetch" href="http://${denied}">
<script type="speculationrules">${JSON.stringify({ prefetch: [{ source: 'list', urls: [`http://${denied}/prefetch`] }], prerender: [{ source: 'list', urls: [`http://${denied}/prerender`] }] })}</script>
<img src="http://${denied}/img.png">
<iframe src="http://${denied}/frame"></iframe>
<a id="pinged" href="#here" ping="http://${denied}/ping">ping</a>
<p id="own">waiting</p>
<script>
  const denied = ${JSON.stringify(denied)};
  const tries = [];
  const attempt = (what, run) => tries.push(Promise.resolve().then(run).then(() => what + ': went', (e) => what + ': ' + e));
  attempt('fetch', () => fetch('http://' + denied + '/fetch', { mode: 'no-cors' }));
  attempt('websocket', () => new Promise((resolve, reject) => { const ws = new WebSocket('ws://' + denied + '/ws'); ws.onopen = resolve; ws.onerror = () => reject('error'); }));
  attempt('eventsource', () => new Promise((resolve, reject) => { const es = new EventSource('http://' + denied + '/sse'); es.onopen = resolve; es.onerror = () => { es.close(); reject('error'); }; }));
  attempt('beacon', () => navigator.sendBeacon('http://' + denied + '/beacon', 'x'));
  attempt('worker', () => new Promise((resolve) => { const w = new Worker(URL.createObjectURL(new Blob(["fetch('http://" + denied + "/worker', {mode: 'no-cors'}).then(() => postMessage('went'), (e) => postMessage(String(e)))"]))); w.onmessage = (m) => resolve(m.data); }));
  attempt('service worker', () => navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready));
  attempt('webrtc', async () => {
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:' + denied.replace(/:\\d+$/, ':${stunPort}') }] });
    pc.createDataChannel('x');
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => setTimeout(resolve, 1500));
    pc.close();
  });
  document.getElementById('pinged').click();
  fetch('/own').then((r) => r.text()).then((t) => (document.getElementById('own').textContent = t));
  Promise.all(tries).then((all) => (window.tried = all));
</script>`;
}

beforeAll(async () => {
  env = await startControlEnv();
  // The denied host: whatever reaches it is recorded, and answered so a request would complete.
  const record = (socket: Socket) => {
    reached.push(`tcp from ${socket.remoteAddress}`);
    socket.once('data', (data) => reached.push(`tcp: ${data.toString('latin1').split('\r\n')[0]}`));
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  };
  const first = createServer(record);
  await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
  deniedPort = (first.address() as { port: number }).port;
  const second = createServer(record);
  await new Promise<void>((resolve) => second.once('error', () => resolve()).listen(deniedPort, '::1', resolve));
  tcp = [first, second];
  udp = createSocket('udp4');
  udp.on('message', (message, from) => reached.push(`udp ${message.length} bytes from ${from.address}:${from.port}`));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  stunPort = udp.address().port;
  site = await startTestSite((request, response, url) => {
    if (url.pathname === '/own') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('own fetch answered');
    if (url.pathname === '/sw.js')
      return void response
        .writeHead(200, { 'content-type': 'text/javascript' })
        .end(`self.addEventListener('install', () => fetch('http://localhost:${deniedPort}/sw', { mode: 'no-cors' }).catch(() => {}));`);
    response.writeHead(200, { 'content-type': 'text/html' }).end(page());
  });
  const path = join(env.home, 'config.json');
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), urlPolicy: { deny: ['localhost'] } }));
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
  for (const server of tcp) server.close();
  udp?.close();
});

async function tryEveryWayOut(client: BrowserClient, targetId: string): Promise<string[]> {
  reached.length = 0;
  await client.navigate(`${site.url}/ways-out`, targetId);
  await client.wait({ text: 'own fetch answered', targetId });
  await waitFor(async () => (await client.evaluate('() => Array.isArray(window.tried)', { targetId })).result === true, {
    timeoutMs: 15_000,
    message: 'the page never finished trying',
  });
  // Speculative loads and pings go at the browser's own pace: give them time to try.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  return (await client.evaluate('() => window.tried', { targetId })).result as string[];
}

describe('the denied host hears nothing from an allowed page', () => {
  it('on the managed profile', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab('about:blank');
    const tried = await tryEveryWayOut(client, targetId);
    expect(reached).toEqual([]);
    // Every way was tried; the WebSocket could not open (a proxied fetch "goes" as an opaque 403).
    expect(tried).toHaveLength(7);
    expect(tried).toContain('websocket: error');
    await client.closeTab(targetId);
  }, 60_000);

  it('in a task session', async () => {
    const session = await env.client('clawd').openSession({ credential_mode: 'clean' });
    // As root on Linux (this machine, CI) a session is jailed; its answer says which it got.
    expect(session.isolation).toBe(process.platform === 'linux' && process.getuid?.() === 0 ? 'jail' : 'process');
    const client = new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: session.key!, profile: session.profile });
    const { targetId } = await client.openTab('about:blank');
    await tryEveryWayOut(client, targetId);
    expect(reached).toEqual([]);
    await env.client('clawd').closeSession(session.id);
  }, 60_000);
});
