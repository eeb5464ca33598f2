import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Film } from '../../relay/src/api/replay-schemas.js';
import { TooManyError } from '../../relay/src/client/browser-client.js';
import { startPackageSite } from '../harness/package-site.js';
import { rejection, startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Films on real Chromium, made by Debian's ffmpeg, checked in the file
 * itself (ffprobe's packets and chapters, frames decoded back to pixels):
 * the pointer and the click ring are where the agent clicked, a chapter per
 * action, a still page adds no frames and is still a film of the right
 * length, an animation keeps its pace, a film at the recordings' bound
 * stops growing and is still made; on the managed profile, on a shared
 * tab, and for a task session opened with `record: "video"` whose kept film
 * is served with ranges after it ended.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
let pad: Awaited<ReturnType<typeof startPackageSite>>;
const scratch = mkdtempSync(join(tmpdir(), 'clawd-film-'));

/** A dark page (the white pointer shows on it), a button that counts, and a box that moves with ?animate. */
const PAGE = (animate: boolean) => `<!doctype html><title>film</title>
<style>html,body{margin:0;background:#10204a;color:#fff;font:16px sans-serif;height:100%}
button{position:absolute;left:300px;top:200px;width:160px;height:60px}
#box{position:absolute;left:0;top:400px;width:80px;height:80px;background:#e33;${animate ? 'animation:slide 1s linear infinite alternate' : ''}}
@keyframes slide{from{transform:translateX(0)}to{transform:translateX(600px)}}</style>
<button id=b onclick="this.textContent = 'clicked ' + (++window.clicks)">Count</button><div id=box></div><script>window.clicks = 0</script>`;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((_request, response, url) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(url.searchParams.has('animate'))));
  pad = await startPackageSite('signature_pad');
}, 90_000);
afterAll(async () => {
  await pad?.close();
  await site?.close();
  await env?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** What ffprobe reads in the file: its duration, its packets' times, its chapters' titles and times. */
function probe(path: string) {
  const out = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_format', '-show_chapters', '-show_packets', '-show_streams', '-of', 'json', path], { encoding: 'utf8' }),
  ) as {
    format: { duration: string };
    streams: Array<{ codec_name: string; width: number; height: number }>;
    packets: Array<{ pts_time: string }>;
    chapters: Array<{ start_time: string; tags: { title: string } }>;
  };
  return {
    duration: Number(out.format.duration),
    stream: out.streams[0],
    packets: out.packets.map((p) => Number(p.pts_time)),
    chapters: out.chapters.map((c) => ({ at: Number(c.start_time), title: c.tags.title })),
  };
}

/** The film's picture at a time (seconds), decoded. */
function frameAt(path: string, seconds: number): PNG {
  const png = join(scratch, `frame-${Date.now()}.png`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', path, '-ss', seconds.toFixed(3), '-frames:v', '1', png]);
  return PNG.sync.read(readFileSync(png));
}

function pixel(png: PNG, x: number, y: number): [number, number, number] {
  const at = (png.width * Math.round(y) + Math.round(x)) * 4;
  return [png.data[at], png.data[at + 1], png.data[at + 2]];
}

/** The first time, in the 1.5 s from `from`, a frame shows the click ring's orange at (x, y); frames every 0.1 s. */
function firstRinged(path: string, from: number, x: number, y: number): number | undefined {
  for (let seconds = from; seconds <= from + 1.5; seconds += 0.1) {
    const [r, g, b] = pixel(frameAt(path, seconds), x, y);
    if (r > 200 && g < 150 && b < 100) return seconds;
  }
  return undefined;
}

describe('films of the managed profile', () => {
  it('draws the pointer and the click ring where the agent clicked, with a chapter per action', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${site.url}/`);
    await client.toolbox.emulate({ targetId, viewport: { width: 800, height: 600 } });
    await client.video.start({ targetId });
    const snapshot = await client.snapshot({ targetId });
    const ref = /button "Count" \[ref=(e\d+)\]/.exec(snapshot.text)![1];
    const clickedAt = Date.now();
    await client.act({ kind: 'click', ref, targetId });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await client.act({ kind: 'click', x: 100, y: 100, targetId });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const film = await client.video.stop();

    expect(await client.act({ kind: 'evaluate', targetId, fn: '() => window.clicks' })).toMatchObject({ result: 1 });
    expect(film).toMatchObject({ format: 'webm', size: { width: 800, height: 600 }, tabs: [targetId] });
    expect(existsSync(film.path)).toBe(true);
    const probed = probe(film.path);
    expect(probed.stream).toMatchObject({ codec_name: 'vp8', width: 800, height: 600 });
    expect(probed.packets).toHaveLength(film.frames);
    // Its length is the time it was filmed, though the page was still most of it.
    expect(probed.duration).toBeGreaterThan(film.durationMs / 1000 - 0.2);
    expect(probed.duration).toBeLessThan(film.durationMs / 1000 + 1.2);
    // A chapter per action, in the file as in the answer.
    const kinds = film.chapters.map((chapter) => chapter.kind);
    expect(kinds).toEqual(expect.arrayContaining(['snapshot', 'click']));
    const clicks = film.chapters.filter((chapter) => chapter.kind === 'click');
    expect(clicks).toHaveLength(2);
    expect(clicks[0]).toMatchObject({ ref, outcome: 'ok', title: `click ${ref} · ok` });
    expect(probed.chapters.map((chapter) => chapter.title)).toEqual(film.chapters.map((chapter) => chapter.title));
    expect(Math.abs(probed.chapters[kinds.indexOf('click')].at * 1000 - clicks[0].at)).toBeLessThan(2);
    expect(clicks[0].at).toBeGreaterThanOrEqual(0);
    expect(clicks[0].at).toBeLessThan(Date.now() - clickedAt + 1000);

    // Soon after the click by ref began (its press comes after the act's own checks): the ring is round the button's middle (380, 230), the pointer's tip there.
    const ringedAt = firstRinged(film.path, clicks[0].at / 1000, 380 + 18, 230);
    expect(ringedAt, 'no frame showed the ring round the button').toBeDefined();
    const ringed = frameAt(film.path, ringedAt!);
    expect(Math.min(...pixel(ringed, 382, 240))).toBeGreaterThan(200); // the pointer's white body, below its tip
    // A second after the ring showed, it is gone and the pointer stays.
    const after = frameAt(film.path, ringedAt! + 1);
    const [r2, , b2] = pixel(after, 380 + 18, 230);
    expect(r2 - b2).toBeLessThan(60); // the button's grey again, not the ring's orange
    expect(Math.min(...pixel(after, 382, 240))).toBeGreaterThan(200);
    // The click by coordinates: the pointer went to (100, 100).
    const secondAt = firstRinged(film.path, clicks[1].at / 1000, 100 + 18, 100);
    expect(secondAt, 'no frame showed the ring at (100, 100)').toBeDefined();
    expect(Math.min(...pixel(frameAt(film.path, secondAt!), 102, 110))).toBeGreaterThan(200);
  });

  it("adds no frames while the page is still, and keeps an animation's pace", async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${site.url}/`);
    await client.video.start({ targetId, format: 'mp4' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const still = await client.video.stop();
    expect(still.format).toBe('mp4');
    // The first picture, and the last again at the end: a still page is two frames, three seconds long.
    expect(still.frames).toBeLessThanOrEqual(4);
    expect(probe(still.path).duration).toBeGreaterThan(2.8);
    expect(probe(still.path).stream.codec_name).toBe('h264');

    await client.navigate(`${site.url}/?animate`, targetId);
    await client.video.start({ targetId });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const moving = await client.video.stop();
    const fps = moving.frames / (moving.durationMs / 1000);
    expect(fps).toBeGreaterThan(8);
    expect(fps).toBeLessThanOrEqual(31);
    expect(moving.bytes).toBeGreaterThan(still.bytes);
    await client.closeTab(targetId);
  });

  it('follows the tab each request uses when it films the whole profile', async () => {
    const client = env.client('clawd');
    const first = await client.openTab(`${site.url}/`);
    await client.video.start();
    const second = await client.openTab(pad.url('/docs/index.html'));
    await client.snapshot({ targetId: second.targetId });
    await client.snapshot({ targetId: first.targetId });
    const film = await client.video.stop();
    expect(film.tabs).toEqual([first.targetId, second.targetId, first.targetId]);
    expect((await client.video.list()).films.map((listed) => listed.name)).toContain(film.name);
    await client.closeTab(first.targetId);
    await client.closeTab(second.targetId);
  });

  it('refuses what cannot be done, by name, and the server goes on', async () => {
    const client = env.client('clawd');
    expect((await rejection(client.video.stop())).message).toMatch(/not being filmed: POST \/video\/start first/);
    const { targetId } = await client.openTab(`${site.url}/`);
    await client.video.start({ targetId });
    expect((await rejection(client.video.start({ targetId }))).message).toMatch(/being filmed since .*: stop that film first/);
    await client.video.stop();
    const bad = await env.raw('/video/start', { method: 'POST', body: JSON.stringify({ format: 'avi' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/format/);
    // Without ffmpeg, a 503 that names it, asked before any frame is kept.
    const configPath = join(env.home, 'config.json');
    const config = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(config), recordings: { ffmpeg: '/nonexistent/ffmpeg' } }));
    try {
      const missing = await env.raw('/video/start', { method: 'POST', body: '{}' });
      expect(missing.status).toBe(503);
      expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(
        /ffmpeg is not at \/nonexistent\/ffmpeg \(config recordings.ffmpeg\)/,
      );
    } finally {
      writeFileSync(configPath, config);
    }
    const bogus = await env.raw('/videos/file?name=..%2Fconfig.json');
    expect(bogus.status).toBe(400);
    await client.closeTab(targetId);
  });

  it("stops growing at the recordings' bound, is still made from what it has, and the next one is refused", async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${site.url}/?animate`);
    const configPath = join(env.home, 'config.json');
    const config = readFileSync(configPath, 'utf8');
    // The profile's recordings already take all but 80 KB of a 1 MiB bound.
    const dir = join(env.home, 'recordings', 'clawd');
    mkdirSync(dir, { recursive: true });
    const used = readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    const filler = join(dir, 'filler.har');
    writeFileSync(filler, Buffer.alloc(Math.max(0, 1024 * 1024 - 80 * 1024 - used)));
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(config), recordings: { maxMiB: 1 } }));
    try {
      await client.video.start({ targetId });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const film = await client.video.stop();
      expect(film.stoppedGrowing).toMatch(/recordings' bound \(config recordings.maxMiB\)/);
      expect(film.frames).toBeGreaterThan(0);
      expect(probe(film.path).packets).toHaveLength(film.frames);
      // At the bound, none starts.
      writeFileSync(filler, Buffer.alloc(1024 * 1024));
      const refused = await rejection(client.video.start({ targetId }));
      expect(refused).toBeInstanceOf(TooManyError);
      expect(refused.message).toMatch(/at their bound of 1 MiB \(config recordings.maxMiB\)/);
    } finally {
      writeFileSync(configPath, config);
      rmSync(filler, { force: true });
      await client.closeTab(targetId);
    }
  });
});

describe('films of a shared tab and of a task session', () => {
  it('films a tab the user shared, with its actions', async () => {
    const client = env.client('extension');
    const [shared] = await client.tabs();
    await client.video.start({ targetId: shared.targetId });
    await client.snapshot({ targetId: shared.targetId });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const film = await client.video.stop();
    expect(film.frames).toBeGreaterThan(0);
    expect(film.chapters.map((chapter) => chapter.kind)).toContain('snapshot');
    expect(probe(film.path).duration).toBeGreaterThan(0.8);
  });

  it('films a session opened with record "video", keeps the film when it ends, and serves it with ranges', async () => {
    const opened = (await (await env.raw('/sessions', { method: 'POST', body: JSON.stringify({ credential_mode: 'clean', record: 'video' }) })).json()) as {
      id: string;
      profile: string;
    };
    const client = env.client(opened.profile);
    const { targetId } = await client.openTab(`${site.url}/`);
    const snapshot = await client.snapshot({ targetId });
    await client.act({ kind: 'click', ref: /button "Count" \[ref=(e\d+)\]/.exec(snapshot.text)![1], targetId });
    expect((await client.video.list()).filming).toBeDefined();
    expect((await (await env.raw(`/sessions/${opened.id}`, { method: 'DELETE' })).json()) as object).toBeDefined();

    const listed = (await (await env.raw(`/videos?profile=${opened.profile}`)).json()) as { films: Film[] };
    expect(listed.films).toHaveLength(1);
    const [film] = listed.films;
    expect(film).toMatchObject({ kept: true, format: 'webm' });
    expect(film.chapters.map((chapter) => chapter.kind)).toEqual(expect.arrayContaining(['open', 'snapshot', 'click']));
    const whole = await env.raw(`/videos/file?profile=${opened.profile}&name=${film.name}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/webm');
    expect((await whole.arrayBuffer()).byteLength).toBe(film.bytes);
    const part = await env.raw(`/videos/file?profile=${opened.profile}&name=${film.name}`, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
  });
});
