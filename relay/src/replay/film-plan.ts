import type { ActionRecord } from '../api/session-responses.js';

/**
 * How a film is made from its frames (film-frames.ts): one ffmpeg run that
 * scales every frame to the film's size, draws the pointer where it was and
 * a ring at each click, and writes a chapter per action, in WebM (VP8) or
 * MP4 (H.264). Pure: the recorder gives the marks and the action log gives
 * the chapters; driver/film/film-encoder.ts runs what this plans.
 */

export type FilmFormat = 'webm' | 'mp4';

/** How long a click's ring stays drawn. */
export const CLICK_SHOWN_MS = 600;
/** Where a hidden mark is drawn: off the picture. */
const HIDDEN = -10_000;

/** The pointer moved, or pressed, at a point of the film (its pixels), ms from the film's start. */
export interface FilmMark {
  at: number;
  kind: 'move' | 'press';
  x: number;
  y: number;
}

/** One action of the film: when (ms from its start), until when, and what it was. */
export interface FilmChapter {
  at: number;
  end: number;
  title: string;
  kind: string;
  ref?: string;
  targetId?: string;
  outcome: string;
}

/** What the frames are, for placing a mark: the last frame's size and the CSS width it shows, and the film's size. */
export interface FrameGeometry {
  frameWidth: number;
  frameHeight: number;
  /** The page's width in CSS pixels when the frame was taken (the screencast's deviceWidth). */
  cssWidth: number;
  film: { width: number; height: number };
}

/** A CSS point of the page, in the film's pixels: the frame is scaled to fit the film and centred (as the encoder does). */
export function filmPoint(point: { x: number; y: number }, geometry: FrameGeometry): { x: number; y: number } {
  const { frameWidth, frameHeight, cssWidth, film } = geometry;
  const fit = Math.min(film.width / frameWidth, film.height / frameHeight);
  const perCss = (frameWidth / cssWidth) * fit;
  return {
    x: Math.round((film.width - frameWidth * fit) / 2 + point.x * perCss),
    y: Math.round((film.height - frameHeight * fit) / 2 + point.y * perCss),
  };
}

/** The film's size: the first frame's, made even (H.264 and VP8 in 4:2:0 want even sides). */
export function filmSize(frame: { width: number; height: number }): { width: number; height: number } {
  return { width: Math.max(2, frame.width - (frame.width % 2)), height: Math.max(2, frame.height - (frame.height % 2)) };
}

/**
 * The pointer and the click rings as ffmpeg `sendcmd` commands: at each mark
 * the pointer's overlay moves there; a press also puts the ring around it
 * for CLICK_SHOWN_MS. The ring image is `ringSize` square, centred on the point.
 */
export function pointerCommands(marks: FilmMark[], ringSize: number): string {
  // The pointer is hidden until it first moves (a line at 0 also keeps the list from being empty, which sendcmd refuses).
  const lines: Array<[number, string]> = [[0, `overlay@pointer x ${HIDDEN}`]];
  const at = (ms: number, commands: Array<[string, string, number]>) =>
    lines.push([ms, commands.map(([target, name, value]) => `overlay@${target} ${name} ${value}`).join(', ')]);
  for (const mark of marks) {
    at(mark.at, [
      ['pointer', 'x', mark.x],
      ['pointer', 'y', mark.y],
    ]);
    if (mark.kind !== 'press') continue;
    const half = Math.round(ringSize / 2);
    at(mark.at, [
      ['ring', 'x', mark.x - half],
      ['ring', 'y', mark.y - half],
    ]);
    at(mark.at + CLICK_SHOWN_MS, [['ring', 'x', HIDDEN]]);
  }
  // Stable: a ring hidden at the very time the next press shows it is hidden first.
  return lines
    .map((line, index) => ({ line, index }))
    .sort((a, b) => a.line[0] - b.line[0] || a.index - b.index)
    .map(({ line: [ms, commands] }) => `${(ms / 1000).toFixed(3)} ${commands};`)
    .join('\n')
    .concat('\n');
}

/**
 * The film's chapters: each action of the profile the film saw, from when it
 * began (a record's time is its end) until the next one began (or the film's
 * end). One that began before the film and ended in it starts at 0.
 */
export function chaptersOf(actions: ActionRecord[], startedAt: number, durationMs: number): FilmChapter[] {
  const inFilm = actions
    .map((action) => ({ action, ended: Date.parse(action.time) - startedAt }))
    .filter(({ ended }) => ended >= 0 && ended <= durationMs)
    .map(({ action, ended }) => ({ action, at: Math.max(0, ended - action.durationMs) }))
    .sort((a, b) => a.at - b.at);
  return inFilm.map(({ action, at }, index) => ({
    at,
    end: index + 1 < inFilm.length ? Math.max(at, inFilm[index + 1].at) : durationMs,
    title: `${action.kind}${action.ref ? ` ${action.ref}` : action.at ? ` at ${Math.round(action.at.x)},${Math.round(action.at.y)}` : ''} · ${action.outcome}`,
    kind: action.kind,
    ...(action.ref ? { ref: action.ref } : {}),
    ...(action.targetId ? { targetId: action.targetId } : {}),
    outcome: action.outcome,
  }));
}

/** The chapters in ffmpeg's metadata file format (special characters escaped as it asks). */
export function chapterMetadata(chapters: FilmChapter[], title: string): string {
  const escape = (text: string) => text.replace(/[=;#\\\n]/g, (character) => `\\${character}`);
  const blocks = chapters.map(
    (chapter) =>
      `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${Math.round(chapter.at)}\nEND=${Math.round(Math.max(chapter.end, chapter.at + 1))}\ntitle=${escape(chapter.title)}\n`,
  );
  return `;FFMETADATA1\ntitle=${escape(title)}\n${blocks.join('')}`;
}

/** The files of one encoding, by name in the folder ffmpeg runs in (no path reaches its filter graph, which has its own quoting). */
export interface FilmFiles {
  frames: string;
  metadata: string;
  commands: string;
  ring: string;
  pointer: string;
  output: string;
}

/** ffmpeg's arguments: four inputs (frames, chapters, ring, pointer), one filter graph, one output, its own time per frame. */
export function ffmpegArgs(files: FilmFiles, format: FilmFormat, size: { width: number; height: number }): string[] {
  const { width, height } = size;
  const graph = [
    `[0:v]sendcmd=f=${files.commands},scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,format=yuv420p[film]`,
    `[film][2:v]overlay@ring=x=${HIDDEN}:y=${HIDDEN}:eval=frame:shortest=1[ringed]`,
    `[ringed][3:v]overlay@pointer=x=${HIDDEN}:y=${HIDDEN}:eval=frame:shortest=1,format=yuv420p[out]`,
  ].join(';');
  const codec =
    format === 'webm'
      ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '12', '-b:v', '2M', '-threads', '2']
      : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-movflags', '+faststart'];
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'ivf',
    '-i',
    files.frames,
    '-f',
    'ffmetadata',
    '-i',
    files.metadata,
    '-loop',
    '1',
    '-i',
    files.ring,
    '-loop',
    '1',
    '-i',
    files.pointer,
    '-filter_complex',
    graph,
    '-map',
    '[out]',
    '-map_metadata',
    '1',
    '-map_chapters',
    '1',
    // Each frame keeps its own time: no frame is repeated to fill a still stretch.
    '-vsync',
    'passthrough',
    ...codec,
    files.output,
  ];
}
