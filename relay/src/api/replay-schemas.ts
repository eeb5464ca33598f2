import { z } from 'zod';

/**
 * Films (spec §17): a tab or a whole profile (a task session: every tab,
 * one after another) as a video with the pointer, each click and a chapter
 * per action. Requests here, answers below; schemas.ts spreads the requests
 * into `schemas`, the one table the routes and the clients use.
 */

/** A film's file name as the server gives it: its start time, then its format. */
const FilmName = z.string().regex(/^[0-9TZ-]+\.(webm|mp4)$/, "a film's name, as GET /videos lists it");

export const replaySchemas = {
  /** `POST /video/start`: film one tab, or the whole profile. */
  videoStart: z.strictObject({
    targetId: z.string().min(1).optional().describe('Film this tab only; without it, the whole profile: the tab each request uses, one after another'),
    format: z.enum(['webm', 'mp4']).default('webm').describe('WebM (VP8) plays in every browser; MP4 (H.264) in most players'),
  }),
  /** `POST /video/stop`: make the film; `keep` keeps a task session's after it ends. */
  videoStop: z.strictObject({
    keep: z.boolean().optional().describe("Keep it after a task session ends (under recordings/kept/); a managed profile's are kept anyway"),
  }),
  /** `GET /videos`: a profile's films, including an ended task session's kept ones. */
  videosQuery: z.object({ profile: z.string().max(200).optional() }),
  /** `GET /videos/file`: one film's bytes (HTTP ranges, for seeking). */
  videoFile: z.object({ profile: z.string().max(200).optional(), name: FilmName }),
};

export const FilmChapterSchema = z.object({
  at: z.number().describe("ms from the film's start"),
  end: z.number(),
  title: z.string(),
  kind: z.string().describe("The action's kind (click, type, navigate, …)"),
  ref: z.string().optional(),
  targetId: z.string().optional(),
  outcome: z.string(),
});

export const FilmSchema = z.object({
  name: z.string().describe('Its file name, for GET /videos/file'),
  path: z.string().describe('Where it is on this machine (0600)'),
  format: z.enum(['webm', 'mp4']),
  kept: z.boolean().describe('Kept after its task session ends'),
  bytes: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number(),
  frames: z.number().int().describe('Pictures in the film: one per paint (at most 30 a second), none while nothing changes'),
  size: z.object({ width: z.number().int(), height: z.number().int() }),
  tabs: z.array(z.string()).describe('The tabs it shows, in order'),
  chapters: z.array(FilmChapterSchema).describe('One per action, also written into the file as its chapters'),
  encodeMs: z.number().optional().describe('How long ffmpeg took to make it'),
  stoppedGrowing: z.string().optional().describe('Set when it stopped taking frames before it was stopped, and why'),
});

export const FilmStartedSchema = z.object({
  filming: z.literal(true),
  since: z.string(),
  format: z.enum(['webm', 'mp4']),
  targetId: z.string().optional().describe('Set when it films one tab'),
});

export const FilmListSchema = z.object({
  profile: z.string(),
  films: z.array(FilmSchema).describe('Oldest first'),
  filming: FilmStartedSchema.omit({ filming: true }).optional().describe('The film being made now, if any'),
});

export type Film = z.infer<typeof FilmSchema>;
export type FilmList = z.infer<typeof FilmListSchema>;
export type FilmStarted = z.infer<typeof FilmStartedSchema>;
