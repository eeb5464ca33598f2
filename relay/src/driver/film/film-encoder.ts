import { spawn } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { UnavailableError } from '../../errors.js';
import { chapterMetadata, ffmpegArgs, type FilmChapter, type FilmFiles, type FilmFormat, type FilmMark, pointerCommands } from '../../replay/film-plan.js';
import { pointerImage, RING_SIZE, ringImage } from '../../replay/pointer-images.js';

/**
 * Runs ffmpeg once per film (replay/film-plan.ts says how): found at
 * config `recordings.ffmpeg`, else on PATH. Missing, it is a 503 naming it
 * and how to get it, asked when a film starts, so no frames are kept for a
 * film that could never be made.
 */

/** The ffmpeg a film uses: the configured one, else the first on PATH; a 503 naming it when there is none. */
export function findFfmpeg(configured: string | undefined): string {
  const candidates = configured
    ? [configured]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'ffmpeg'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // the next one
    }
  }
  throw new UnavailableError(
    configured
      ? `ffmpeg is not at ${configured} (config recordings.ffmpeg): films are encoded with it`
      : 'ffmpeg is not installed (not on PATH): films are encoded with it. Install it (Debian: apt-get install ffmpeg) or set config recordings.ffmpeg to its path',
  );
}

export interface FilmMaterial {
  /** The folder the frames are in; the film is written there too. */
  dir: string;
  /** The frames file's name in it (film-frames.ts). */
  frames: string;
  marks: FilmMark[];
  size: { width: number; height: number };
}

/** Writes the film's side files beside its frames and runs ffmpeg there, which writes `output` in that folder. */
export async function encodeFilm(
  ffmpeg: string,
  material: FilmMaterial,
  chapters: FilmChapter[],
  title: string,
  format: FilmFormat,
  output: string,
): Promise<void> {
  const base = material.frames.replace(/\.frames\.ivf$/, '');
  const files: FilmFiles = {
    frames: material.frames,
    metadata: `${base}.chapters.txt`,
    commands: `${base}.pointer.txt`,
    ring: `${base}.ring.png`,
    pointer: `${base}.pointer.png`,
    output,
  };
  writeFileSync(join(material.dir, files.metadata), chapterMetadata(chapters, title), { mode: 0o600 });
  writeFileSync(join(material.dir, files.commands), pointerCommands(material.marks, RING_SIZE), { mode: 0o600 });
  writeFileSync(join(material.dir, files.ring), ringImage(), { mode: 0o600 });
  writeFileSync(join(material.dir, files.pointer), pointerImage(), { mode: 0o600 });
  await run(ffmpeg, ffmpegArgs(files, format, material.size), material.dir);
}

/** The side files of an encoding (kept frames included), to remove once the film is written. */
export function sideFiles(frames: string): string[] {
  const base = frames.replace(/\.frames\.ivf$/, '');
  return [frames, `${base}.chapters.txt`, `${base}.pointer.txt`, `${base}.ring.png`, `${base}.pointer.png`];
}

function run(ffmpeg: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
    child.on('error', (error) => reject(new UnavailableError(`ffmpeg (${ffmpeg}) did not start: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new UnavailableError(
            `ffmpeg could not make the film (${signal ?? `exit ${code}`}): ${errors.trim().split('\n').slice(-3).join(' | ') || 'no message'}`,
          ),
        );
    });
  });
}
