/**
 * The rounds of CDP commands that relay.ts (the extension relay) and
 * chrome-consent.ts (the `chrome` profile) both time: one tab reached two
 * ways, straight at Chromium's debugging port and through clawd-browser, the
 * same commands sent down both paths in turn so drift hits both. They live
 * here once so the two benchmarks measure the same thing the same way.
 */
import { chromium, type Page } from 'playwright-core';
import { waitFor } from '../tests/harness/chromium.js';
import { cpuShares, cpuTicks } from './process-stats.js';
import { RawCdp } from './raw-cdp.js';

/** The two ways to the tab: Chromium's own endpoint, and through clawd-browser. */
export type Path = 'direct' | 'relay';
const PATHS: Path[] = ['direct', 'relay'];

/** How many of each round: the knobs both benchmarks take (docs/benchmarks.md). */
export const ROUND_COUNTS = {
  sequential: Number(process.env.BENCH_SEQUENTIAL ?? 2500),
  pipelined: Number(process.env.BENCH_PIPELINED ?? 5000),
  /** Pipelined commands outstanding at all times. */
  inFlight: 100,
  screenshots: Number(process.env.BENCH_SCREENSHOTS ?? 5),
  connects: Number(process.env.BENCH_CONNECTS ?? 7),
};
const SEQUENTIAL_ROUNDS = 5;
const PIPELINED_ROUNDS = 3;
const WARM_UP = 300;

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const now = () => performance.now();

/** A full-page clip, as Page.captureScreenshot takes it. */
export interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
}

/** Bare CDP clients on both paths, attached to the same tab. */
export class CdpRounds {
  private constructor(
    private readonly clients: Record<Path, RawCdp>,
    private readonly sessions: Record<Path, string>,
  ) {}

  /** Connects both paths, attaches each to the tab and warms both up. */
  static async open(endpoints: Record<Path, string>, pageTargetId: string): Promise<CdpRounds> {
    const clients: Record<Path, RawCdp> = { direct: await RawCdp.connect(endpoints.direct), relay: await RawCdp.connect(endpoints.relay) };
    const sessions: Record<Path, string> = { direct: await clients.direct.attach(pageTargetId), relay: await clients.relay.attach(pageTargetId) };
    const rounds = new CdpRounds(clients, sessions);
    for (let i = 0; i < WARM_UP; i++) {
      await rounds.evaluate('direct');
      await rounds.evaluate('relay');
    }
    return rounds;
  }

  private evaluate(path: Path): Promise<unknown> {
    return this.clients[path].send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, this.sessions[path]);
  }

  /** Sequential Runtime.evaluate round trips (ms, sorted), interleaved in rounds so drift hits both paths. */
  async sequential(count: number): Promise<Record<Path, number[]>> {
    const latency: Record<Path, number[]> = { direct: [], relay: [] };
    for (let round = 0; round < SEQUENTIAL_ROUNDS; round++) {
      for (const path of PATHS) {
        for (let i = 0; i < count / SEQUENTIAL_ROUNDS; i++) {
          const start = now();
          await this.evaluate(path);
          latency[path].push(now() - start);
        }
      }
    }
    return { direct: latency.direct.sort((a, b) => a - b), relay: latency.relay.sort((a, b) => a - b) };
  }

  /**
   * Pipelined Runtime.evaluate, `inFlight` outstanding at all times: ops/s,
   * one per round. Given `processName`, also where the CPU went during the
   * middle round of each path (shares of one core, by the names it gives).
   */
  async pipelined(
    count: number,
    inFlight: number,
    processName?: (cmdline: string, pid: number) => string | undefined,
  ): Promise<{ throughput: Record<Path, number[]>; cpu: Record<Path, Record<string, number>> }> {
    const throughput: Record<Path, number[]> = { direct: [], relay: [] };
    const cpu: Record<Path, Record<string, number>> = { direct: {}, relay: {} };
    for (let round = 0; round < PIPELINED_ROUNDS; round++) {
      for (const path of PATHS) {
        const ticks = processName && cpuTicks();
        const start = now();
        let sent = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (sent < count) {
              sent++;
              await this.evaluate(path);
            }
          }),
        );
        throughput[path].push(count / ((now() - start) / 1000));
        if (processName && ticks && round === 1) cpu[path] = cpuShares(ticks, cpuTicks(), (now() - start) / 1000, processName);
      }
    }
    return { throughput, cpu };
  }

  /**
   * Takes the tab to `bigUrl` (a page of ~5 MB as a PNG) and times full-page
   * screenshots on each path in turn; the clip is returned for other
   * measurements of the same picture.
   */
  async screenshots(bigUrl: string, count: number): Promise<{ screenshot: Record<Path, number[]>; bytes: number; clip: Clip }> {
    const { direct } = this.clients;
    await this.navigate(bigUrl);
    await waitFor(
      async () =>
        (await direct.send('Runtime.evaluate', { expression: 'document.body?.dataset.ready', returnByValue: true }, this.sessions.direct)).result.value === '1',
      {
        message: 'big.html never drew',
      },
    );
    const { cssContentSize } = await direct.send('Page.getLayoutMetrics', {}, this.sessions.direct);
    const clip: Clip = { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 };
    const screenshot: Record<Path, number[]> = { direct: [], relay: [] };
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      for (const path of PATHS) {
        const start = now();
        const { data } = await this.clients[path].send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true }, this.sessions[path]);
        screenshot[path].push(now() - start);
        bytes = Buffer.from(data, 'base64').length;
      }
    }
    return { screenshot, bytes, clip };
  }

  /** Sends the tab to `url` (on the direct path). */
  async navigate(url: string): Promise<void> {
    await this.clients.direct.send('Page.navigate', { url }, this.sessions.direct);
  }

  close(): void {
    this.clients.direct.close();
    this.clients.relay.close();
  }
}

/** Playwright's connectOverCDP → a first evaluate in the page `choose` picks (ms, each path in turn). */
export async function connectRounds(
  endpoints: Record<Path, string>,
  count: number,
  choose: (pages: Page[]) => Page | undefined,
): Promise<Record<Path, number[]>> {
  const connect: Record<Path, number[]> = { direct: [], relay: [] };
  for (let i = 0; i < count; i++) {
    for (const path of PATHS) {
      const start = now();
      const client = await chromium.connectOverCDP(endpoints[path]);
      await choose(client.contexts()[0].pages())!.evaluate(() => 1 + 1);
      connect[path].push(now() - start);
      await client.close();
    }
  }
  return connect;
}
