import type { Command } from 'commander';
import type { Film } from '../api/replay-schemas.js';
import type { BrowserClient } from '../client/browser-client.js';
import type { Print } from './print.js';

/** Films (spec §17): `video start`, `video stop`, `video list`. */

/** One line per film: where it is, how long, how many chapters. */
export function filmLine(film: Film): string {
  return `${film.path} (${(film.durationMs / 1000).toFixed(1)} s, ${film.frames} frames, ${film.chapters.length} chapters${film.kept ? ', kept' : ''})`;
}

export function addVideoCommands(program: Command, client: () => BrowserClient, print: Print): void {
  const video = program
    .command('video')
    .description('film a tab or the whole profile: WebM or MP4 with the pointer, clicks and a chapter per action (needs ffmpeg)');
  video
    .command('start')
    .description('start filming (without --target: every tab the profile uses, one after another)')
    .option('--target <targetId>', 'film this tab only')
    .option('--format <format>', 'webm or mp4', 'webm')
    .action(async (options: { target?: string; format: 'webm' | 'mp4' }) => {
      const started = await client().video.start({ targetId: options.target, format: options.format });
      print(started, () => `filming ${started.targetId ? `tab ${started.targetId}` : 'every tab the profile uses'} since ${started.since}`);
    });
  video
    .command('stop')
    .description('stop filming and make the film (under $CLAWD_HOME/recordings)')
    .option('--keep', 'keep it after a task session ends')
    .action(async (options: { keep?: boolean }) => {
      const film = await client().video.stop({ keep: options.keep });
      print(film, () => [filmLine(film), ...film.chapters.map((chapter) => `  ${(chapter.at / 1000).toFixed(1).padStart(6)} s  ${chapter.title}`)].join('\n'));
    });
  video
    .command('list')
    .description("the profile's films (an ended task session's kept ones too: --profile session-<id>)")
    .action(async () => {
      const listed = await client().video.list();
      print(listed, () => [...listed.films.map(filmLine), ...(listed.filming ? [`filming since ${listed.filming.since}`] : [])].join('\n') || '(no films)');
    });
}
