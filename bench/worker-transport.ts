import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { EXTENSION_ID } from '../protocol/constants.js';
import type { LaunchedChromium } from '../tests/harness/chromium.js';
import { freePortPair } from '../tests/harness/ports.js';
import { runInWorker } from './chrome-debugger-floor.js';

/**
 * The relay's link against the other transport an extension has (issue 27):
 * from inside the extension's worker, a CDP-sized message echoed by a Node
 * process over a WebSocket (what the extension uses: the worker's socket
 * crosses Chrome's network service) and over native messaging
 * (chrome.runtime.connectNative: Chrome's browser process and a pipe to a
 * host it starts). Each echo is one such transport's round trip, with
 * nothing else on it; a real native-messaging link would add the host's own
 * hop to the relay on top.
 */

export interface TransportTimes {
  p50: number;
  p99: number;
  /** Messages a second with `inFlight` outstanding. */
  throughput: number;
}

export interface TransportFigures {
  webSocket: TransportTimes;
  nativeMessaging: TransportTimes;
  /** The client's own hop: this process to a Node echo server over a WebSocket, as a CDP client reaches the relay. */
  clientHop: TransportTimes;
}

const ECHO = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const HOST_NAME = 'com.clawd.bench_echo';

export async function measureWorkerTransports(
  cdp: LaunchedChromium['cdp'],
  userDataDir: string,
  counts: { sequential: number; pipelined: number; inFlight: number },
): Promise<TransportFigures> {
  // Chromium reads native-host manifests from its user-data dir.
  const hosts = join(userDataDir, 'NativeMessagingHosts');
  mkdirSync(hosts, { recursive: true });
  const launcher = join(hosts, 'bench-echo.sh');
  writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${ECHO}" native\n`);
  chmodSync(launcher, 0o755);
  writeFileSync(
    join(hosts, `${HOST_NAME}.json`),
    JSON.stringify({ name: HOST_NAME, description: 'bench echo', path: launcher, type: 'stdio', allowed_origins: [`chrome-extension://${EXTENSION_ID}/`] }),
  );
  const { control: port } = await freePortPair();
  const server: ChildProcess = spawn(process.execPath, [ECHO, 'ws', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => server.stdout!.once('data', resolve));
  try {
    const clientHop = await measureClientHop(`ws://127.0.0.1:${port}`, counts);
    const inWorker = await runInWorker<Omit<TransportFigures, 'clientHop'>>(
      cdp,
      `(async () => {
      const message = { id: 1, sessionId: 'A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6', method: 'Runtime.evaluate', params: { expression: '1+1', returnByValue: true } };
      const text = JSON.stringify(message);
      const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))];
      async function measure(link) {
        let received = 0;
        let next = null;
        link.listen(() => { received++; if (next) next(); });
        const roundTrip = () => new Promise((resolve) => { next = resolve; link.send(); });
        for (let i = 0; i < 300; i++) await roundTrip();
        const samples = [];
        for (let i = 0; i < ${counts.sequential}; i++) { const start = performance.now(); await roundTrip(); samples.push(performance.now() - start); }
        samples.sort((a, b) => a - b);
        const rates = [];
        for (let round = 0; round < 3; round++) {
          received = 0;
          let sent = 0;
          const start = performance.now();
          await new Promise((resolve) => {
            next = () => { if (received === ${counts.pipelined}) resolve(); else if (sent < ${counts.pipelined}) { sent++; link.send(); } };
            for (let i = 0; i < ${counts.inFlight}; i++) { sent++; link.send(); }
          });
          rates.push(${counts.pipelined} / ((performance.now() - start) / 1000));
        }
        rates.sort((a, b) => a - b);
        link.close();
        return { p50: at(samples, 50), p99: at(samples, 99), throughput: rates[1] };
      }
      const socket = new WebSocket('ws://127.0.0.1:${port}');
      await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = () => reject(new Error('no echo server')); });
      const webSocket = await measure({ send: () => socket.send(text), listen: (f) => { socket.onmessage = f; }, close: () => socket.close() });
      const native = chrome.runtime.connectNative(${JSON.stringify(HOST_NAME)});
      const nativeMessaging = await measure({ send: () => native.postMessage(message), listen: (f) => native.onMessage.addListener(f), close: () => native.disconnect() });
      return JSON.stringify({ webSocket, nativeMessaging });
    })()`,
    );
    return { ...inWorker, clientHop };
  } finally {
    server.kill();
  }
}

/** The same echo from this process (Node's `ws`, as CDP clients and the relay use). */
async function measureClientHop(url: string, counts: { sequential: number; pipelined: number; inFlight: number }): Promise<TransportTimes> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const text = JSON.stringify({
    id: 1,
    sessionId: 'A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6',
    method: 'Runtime.evaluate',
    params: { expression: '1+1', returnByValue: true },
  });
  let next: (() => void) | undefined;
  socket.on('message', () => next?.());
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      next = resolve;
      socket.send(text);
    });
  for (let i = 0; i < 300; i++) await roundTrip();
  const samples: number[] = [];
  for (let i = 0; i < counts.sequential; i++) {
    const start = performance.now();
    await roundTrip();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const rates: number[] = [];
  for (let round = 0; round < 3; round++) {
    let received = 0;
    let sent = 0;
    const start = performance.now();
    await new Promise<void>((resolve) => {
      next = () => {
        received++;
        if (received === counts.pipelined) resolve();
        else if (sent < counts.pipelined) {
          sent++;
          socket.send(text);
        }
      };
      for (let i = 0; i < counts.inFlight; i++, sent++) socket.send(text);
    });
    rates.push(counts.pipelined / ((performance.now() - start) / 1000));
  }
  socket.close();
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
  return { p50: at(50), p99: at(99), throughput: rates.sort((a, b) => a - b)[1] };
}
