/**
 * Films (spec §17), on the managed and the extension profile, for an
 * animating tab (tests/fixtures/animation.html) over FILM_SECONDS (60 by
 * default):
 * - a viewer's CPU: the live view streamed to a reader for that long;
 * - a recorder's CPU: the same page filmed for that long (the frames kept),
 *   then what making the film costs (ffmpeg's CPU seconds, from this
 *   process's reaped children, and the wall time of POST /video/stop);
 * - the film: frames per second in the file, megabytes per minute of film,
 *   and of the frames kept while it was filmed.
 * CPU is this process (the server runs in it: tests/harness/control-env.ts) and
 * every Chromium, as a share of one core, above the same page unwatched.
 * Run with `npm run bench:films`; `npm run bench` runs it too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlEnv } from '../tests/harness/control-env.js';
import { cpuSeconds } from './runtime.js';

const FILM_SECONDS = Number(process.env.BENCH_FILM_SECONDS ?? 60);
const IDLE_SECONDS = Math.min(10, FILM_SECONDS);

export interface FilmFigures {
  profile: string;
  /** Share of one core above the unwatched page. */
  viewerCpu: number;
  viewerFps: number;
  recorderCpu: number;
  /** ffmpeg's CPU seconds per minute of film, and POST /video/stop's wall time per minute. */
  encodeCpuPerMinute: number;
  stopSecondsPerMinute: number;
  fileFps: number;
  fileMbPerMinute: number;
  framesMbPerMinute: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds of the processes this one started and reaped (ffmpeg), from /proc/self/stat's cutime and cstime. */
function reapedChildrenCpuSeconds(): number {
  const own = readFileSync('/proc/self/stat', 'utf8');
  const fields = own.slice(own.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ on Linux
}

/** The share of one core used while `work` runs for `seconds`. */
async function cpuShare(seconds: number, work: (ms: number) => Promise<unknown> = sleep): Promise<number> {
  const before = cpuSeconds();
  const started = performance.now();
  await work(seconds * 1000);
  return (cpuSeconds() - before) / ((performance.now() - started) / 1000);
}

export async function measureFilms(): Promise<FilmFigures[]> {
  const env = await startControlEnv();
  const figures: FilmFigures[] = [];
  try {
    for (const profile of ['clawd', 'extension']) {
      const client = env.client(profile);
      const targetId = profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;
      await client.navigate(env.fixtures.url('animation.html'), targetId);
      await sleep(1000);
      const idle = await cpuShare(IDLE_SECONDS);

      let viewerFrames = 0;
      const viewer = await cpuShare(FILM_SECONDS, async (ms) => {
        const controller = new AbortController();
        const response = await env.raw(`/screencast?profile=${profile}&targetId=${targetId}`, { signal: controller.signal });
        const reader = response.body!.getReader();
        const started = performance.now();
        while (performance.now() - started < ms) {
          const { value, done } = await reader.read();
          if (done) break;
          // Each frame is a multipart part with its own Content-Length header.
          viewerFrames += (
            Buffer.from(value)
              .toString('latin1')
              .match(/Content-Length:/gi) ?? []
          ).length;
        }
        controller.abort();
      });

      await client.video.start({ targetId });
      const recorder = await cpuShare(FILM_SECONDS);
      const dir = join(env.home, 'recordings', profile);
      const framesBytes = readdirSync(dir)
        .filter((file) => file.endsWith('.frames.ivf'))
        .reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
      const encodeBefore = reapedChildrenCpuSeconds();
      const stopStarted = performance.now();
      const film = await client.video.stop();
      const stopSeconds = (performance.now() - stopStarted) / 1000;
      const minutes = film.durationMs / 60_000;
      figures.push({
        profile,
        viewerCpu: viewer - idle,
        viewerFps: viewerFrames / FILM_SECONDS,
        recorderCpu: recorder - idle,
        encodeCpuPerMinute: (reapedChildrenCpuSeconds() - encodeBefore) / minutes,
        stopSecondsPerMinute: stopSeconds / minutes,
        fileFps: film.frames / (film.durationMs / 1000),
        fileMbPerMinute: film.bytes / 1e6 / minutes,
        framesMbPerMinute: framesBytes / 1e6 / minutes,
      });
    }
  } finally {
    await env.close();
  }
  return figures;
}

export function reportFilms(figures: FilmFigures[]): void {
  console.log(`\nfilms: ${FILM_SECONDS} s of an animating tab; CPU as a share of one core above the page unwatched`);
  console.log(
    `${'profile'.padEnd(10)} ${'viewer CPU'.padStart(11)} ${'viewer fps'.padStart(11)} ${'recorder CPU'.padStart(13)} ${'encode CPU s/min'.padStart(17)} ${'stop s/min'.padStart(11)} ${'file fps'.padStart(9)} ${'file MB/min'.padStart(12)} ${'frames MB/min'.padStart(14)}`,
  );
  for (const f of figures) {
    console.log(
      `${f.profile.padEnd(10)} ${`${(f.viewerCpu * 100).toFixed(0)}%`.padStart(11)} ${f.viewerFps.toFixed(1).padStart(11)} ${`${(f.recorderCpu * 100).toFixed(0)}%`.padStart(13)} ${f.encodeCpuPerMinute.toFixed(1).padStart(17)} ${f.stopSecondsPerMinute.toFixed(1).padStart(11)} ${f.fileFps.toFixed(1).padStart(9)} ${f.fileMbPerMinute.toFixed(2).padStart(12)} ${f.framesMbPerMinute.toFixed(1).padStart(14)}`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportFilms(await measureFilms());
}
