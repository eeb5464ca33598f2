/**
 * `npm run bench:flood`: the relay's memory under a client that never reads
 * (the consent-boundary issue, item 7). `clawd-browser serve` runs as its own
 * process; one CDP client pauses its socket and sends FLOOD_COMMANDS cheap
 * commands (Browser.getVersion, answered by the relay itself, so no browser
 * is needed). The relay's RSS is sampled before, at its peak, and after the
 * client is gone. A second client's round trip shows the relay still serves.
 *
 * BENCH_CLI=/path/to/bin/clawd-browser.js measures another build (e.g. an
 * older checkout) the same way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { waitFor } from '../tests/harness/chromium.js';
import { freePortPair } from '../tests/harness/ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = process.env.BENCH_CLI ?? join(ROOT, 'bin/clawd-browser.js');
const COMMANDS = Number(process.env.FLOOD_COMMANDS ?? 1_000_000);
const PEAK_WINDOW_MS = Number(process.env.FLOOD_WINDOW_MS ?? 30_000);

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function roundTripMs(url: string): Promise<number> {
  const socket = await open(url);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    socket.once('message', () => resolve());
    socket.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
  });
  const elapsed = performance.now() - started;
  socket.close();
  return elapsed;
}

export interface FloodFigures {
  commands: number;
  rssMiB: { before: number; peak: number; afterClientGone: number };
  flooderCutOffByRelay: boolean;
  otherClientRoundTripMsDuringFlood: number;
  floodSeconds: number;
}

export async function measureFlood(): Promise<FloodFigures> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-flood-'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  const { control, relay: relayPort } = await freePortPair();
  const serve: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', String(control), '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  serve.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const cdpUrl = `ws://127.0.0.1:${relayPort}/cdp?token=${token}`;
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${relayPort}/json/version?token=${token}`).catch(() => undefined))?.ok === true, {
      timeoutMs: 15_000,
      message: 'serve did not start',
    });
    await roundTripMs(cdpUrl);
    await sleep(500);
    const before = rssMiB(serve.pid!);

    const flooder = await open(cdpUrl);
    flooder.pause();
    const command = JSON.stringify({ id: 1, method: 'Browser.getVersion' });
    const started = performance.now();
    for (let i = 0; i < COMMANDS && flooder.readyState === WebSocket.OPEN; i++) {
      flooder.send(command);
      if (i % 10_000 === 0) await sleep(0); // let the socket drain to the relay
    }
    let peak = rssMiB(serve.pid!);
    const deadline = performance.now() + PEAK_WINDOW_MS;
    let settled = 0;
    while (performance.now() < deadline) {
      await sleep(250);
      const now = rssMiB(serve.pid!);
      settled = now <= peak ? settled + 1 : 0;
      peak = Math.max(peak, now);
      if (settled >= 12) break; // no new peak for 3 s
    }
    const duringRoundTrip = await roundTripMs(cdpUrl).catch(() => Number.NaN);
    flooder.resume();
    flooder.terminate();
    await sleep(5000);
    const after = rssMiB(serve.pid!);
    const cutOff = /not reading its messages/.test(log);
    return {
      commands: COMMANDS,
      rssMiB: { before, peak, afterClientGone: after },
      flooderCutOffByRelay: cutOff,
      otherClientRoundTripMsDuringFlood: Math.round(duringRoundTrip * 100) / 100,
      floodSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

export function reportFlood(figures: FloodFigures): void {
  const { before, peak, afterClientGone } = figures.rssMiB;
  console.log(
    `\na client that never reads, ${figures.commands.toLocaleString('en')} commands: relay RSS ${before} → peak ${peak} → ${afterClientGone} MiB after it left; another client's round trip meanwhile ${figures.otherClientRoundTripMsDuringFlood} ms`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = await measureFlood();
  console.log(JSON.stringify({ cli: CLI, ...figures }, null, 2));
}
