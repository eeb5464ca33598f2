/**
 * The `chrome` profile (a person's own Chrome attached through its
 * remote-debugging consent) against direct CDP to the same Chromium, as
 * people run it: `clawd-browser serve` as its own process, Chromium with
 * --remote-debugging-port on a folder of its own (it writes
 * DevToolsActivePort, as a person's Chrome does; headless, it asks nobody).
 *   - attach: `POST /chrome/attach` → attached;
 *   - lend: the picker's request (made by the picker page itself, in that
 *     Chromium) → the tab listed at /json/list?profile=chrome;
 *   - Runtime.evaluate round trips, sequential and pipelined; a 5 MB
 *     screenshot; connectOverCDP → first evaluate: direct and through the relay.
 * `npm run bench:chrome` runs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openTab, pageTargets, waitFor } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { freePortPair } from '../tests/harness/ports.js';
import { CdpRounds, connectRounds, median, type Path, percentile, ROUND_COUNTS } from './cdp-rounds.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ATTACHES = Number(process.env.BENCH_ATTACHES ?? 5);
const LENDS = Number(process.env.BENCH_LENDS ?? 10);

const now = () => performance.now();
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'clawd-bench-chrome-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'clawd-bench-person-'));
  const token = randomBytes(32).toString('hex');
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  const { control, relay: relayPort } = await freePortPair();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, chrome: { userDataDir } }));
  const serve: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const fixtures = await startFixtureServer();
  const person = await launchChromium({ userDataDir, remoteDebuggingPort: 0 });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${control}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  const relayUrl = `ws://127.0.0.1:${relayPort}/cdp?profile=chrome&token=${token}`;
  const lentIds = async () =>
    ((await (await fetch(`http://127.0.0.1:${relayPort}/json/list?profile=chrome&token=${token}`)).json()) as Array<{ id: string }>).map((tab) => tab.id);
  try {
    await waitFor(async () => (await api('/chrome').catch(() => undefined))?.ok === true, { timeoutMs: 15_000, message: 'serve did not start' });

    // Attach, and let go again, ATTACHES times.
    const attach: number[] = [];
    for (let i = 0; i < ATTACHES; i++) {
      const start = now();
      const status = (await (await api('/chrome/attach', { method: 'POST', body: '{}' })).json()) as { state: string };
      if (status.state !== 'attached') throw new Error(`not attached: ${JSON.stringify(status)}`);
      attach.push(now() - start);
      if (i < ATTACHES - 1) await api('/chrome/detach', { method: 'POST' });
    }

    // The picker, opened in the person's Chromium; its own page lends and takes back a tab.
    const { pageTargetId } = await openTab(person.cdp, fixtures.url('index.html'));
    await api('/chrome/picker/open', { method: 'POST' });
    let picker: string | undefined;
    await waitFor(async () => (picker = (await pageTargets(person.cdp)).find((target) => target.url.endsWith('/chrome/picker'))?.targetId) !== undefined, {
      message: 'no picker',
    });
    const { sessionId: pickerSession } = await person.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: picker!, flatten: true });
    const inPicker = (lent: boolean) =>
      person.cdp.send(
        'Runtime.evaluate',
        {
          expression: `fetch('/chrome/picker/lend', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ targetId: ${JSON.stringify(pageTargetId)}, lent: ${lent} }) }).then((r) => r.status)`,
          awaitPromise: true,
          returnByValue: true,
        },
        pickerSession,
      );
    const lend: number[] = [];
    for (let i = 0; i < LENDS; i++) {
      const start = now();
      await inPicker(true);
      await waitFor(async () => (await lentIds()).includes(pageTargetId), { intervalMs: 1, message: 'not lent' });
      lend.push(now() - start);
      if (i < LENDS - 1) {
        await inPicker(false);
        await waitFor(async () => !(await lentIds()).includes(pageTargetId), { intervalMs: 1, message: 'not taken back' });
      }
    }

    // The same rounds as relay.ts, on the lent tab: direct and through the relay.
    const endpoints: Record<Path, string> = { direct: person.wsEndpoint!, relay: relayUrl };
    const rounds = await CdpRounds.open(endpoints, pageTargetId);
    const latency = await rounds.sequential(ROUND_COUNTS.sequential);
    const { throughput } = await rounds.pipelined(ROUND_COUNTS.pipelined, ROUND_COUNTS.inFlight);
    const { screenshot, bytes } = await rounds.screenshots(fixtures.url('big.html'), ROUND_COUNTS.screenshots);
    rounds.close();
    // The person's Chromium has other pages (the picker's): the one measured is the lent tab.
    const connect = await connectRounds(endpoints, ROUND_COUNTS.connects, (pages) => pages.find((each) => each.url().includes('big.html')));

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const line = (path: Path) => {
      const l = latency[path];
      return `p50 ${ms(percentile(l, 50))}, p99 ${ms(percentile(l, 99))}; pipelined ${median(throughput[path]).toFixed(0)} ops/s; ${(bytes / 1e6).toFixed(1)} MB screenshot ${ms(median(screenshot[path]))}; connectOverCDP → first evaluate ${ms(median(connect[path]))}`;
    };
    console.log(
      `chrome profile (${ROUND_COUNTS.sequential} sequential, ${ROUND_COUNTS.pipelined} pipelined with ${ROUND_COUNTS.inFlight} in flight, medians of rounds):`,
    );
    console.log(
      `  POST /chrome/attach → attached: p50 ${ms(percentile(sorted(attach), 50))} (${ATTACHES} attaches; a person's Chrome adds the time they take to answer)`,
    );
    console.log(`  the picker's lend → at /json/list?profile=chrome: p50 ${ms(percentile(sorted(lend), 50))}, max ${ms(Math.max(...lend))} (${LENDS} lends)`);
    console.log(`  Runtime.evaluate direct:  ${line('direct')}`);
    console.log(`  Runtime.evaluate relay:   ${line('relay')}`);
    const ratio = (record: Record<Path, number[]>) => (median(record.relay) / median(record.direct)).toFixed(2);
    console.log(
      `  relay ÷ direct: p50 ${(percentile(latency.relay, 50) / percentile(latency.direct, 50)).toFixed(2)}×, pipelined ${ratio(throughput)}×, screenshot ${ratio(screenshot)}×, connect ${ratio(connect)}×`,
    );
  } finally {
    await person.close();
    serve.kill('SIGTERM');
    await fixtures.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

await main();
