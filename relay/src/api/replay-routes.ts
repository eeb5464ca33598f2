import { BROWSER_ERRORS, type RouteSpec } from './route-spec.js';
import { FilmListSchema, FilmSchema, FilmStartedSchema } from './replay-schemas.js';
import { schemas } from './schemas.js';

/** The film routes (spec §17), spread into api/routes.ts's table. */

const tag = 'Recording' as const;

export const REPLAY_ROUTES = {
  'POST /video/start': {
    summary: 'Start a film of a tab or of the whole profile (its tabs one after another), with the pointer, clicks and a chapter per action',
    tag,
    query: schemas.profileQuery,
    body: schemas.videoStart,
    answer: FilmStartedSchema,
    errors: [...BROWSER_ERRORS, 429],
  },
  'POST /video/stop': {
    summary: 'Stop the film and make it (ffmpeg): WebM or MP4 under $CLAWD_HOME/recordings',
    tag,
    query: schemas.profileQuery,
    body: schemas.videoStop,
    answer: FilmSchema,
    errors: BROWSER_ERRORS,
  },
  'GET /videos': {
    summary: "A profile's films with their chapters, an ended task session's kept ones included",
    tag,
    query: schemas.videosQuery,
    answer: FilmListSchema,
  },
  'GET /videos/file': {
    summary: "One film's bytes, with HTTP ranges (a player seeks in it)",
    tag,
    query: schemas.videoFile,
    answer: { media: 'video/*', description: 'The film: video/webm or video/mp4' },
    errors: [404],
  },
} satisfies Record<string, RouteSpec>;
