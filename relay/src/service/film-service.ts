import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Film, FilmList, FilmStarted } from '../api/replay-schemas.js';
import type { schemas } from '../api/schemas.js';
import { encodeFilm, findFfmpeg, sideFiles } from '../driver/film/film-encoder.js';
import type { FilmStopped } from '../driver/film/profile-film.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { SessionFilms } from '../sessions/task-sessions.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { chaptersOf } from '../replay/film-plan.js';
import { roomLeft } from './recording-room.js';
import type { RecordingHome } from './recording-service.js';

/**
 * Films (spec §17), for HTTP, MCP and task sessions opened with
 * `record: "video"`: started on a tab or a whole profile, made by ffmpeg
 * when stopped, with a chapter per action of the action log. A film lives
 * with the profile's other recordings (`recordings/<profile>/`, 0600): a task
 * session's go with it unless kept (`recordings/kept/<profile>/`). Beside each
 * film, `<name>.film.json` says what it holds (GET /videos reads these, so an
 * ended session's kept films are still listed and played).
 */

/** A profile name as the registry allows it (and as session-<id> is): it becomes a folder name. */
const PROFILE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const SIDECAR = '.film.json';

export class FilmService {
  constructor(
    private readonly manager: ProfileManager,
    private readonly home: RecordingHome,
  ) {}

  async start(profile: string | undefined, request: z.output<typeof schemas.videoStart>): Promise<FilmStarted> {
    const driver = this.manager.driver(profile);
    const name = driver.profile.name;
    const { maxMiB, ffmpeg } = this.limits();
    // Asked now: no frames are kept for a film that could never be made.
    findFfmpeg(ffmpeg);
    const room = roomLeft(name, this.dirsOf(name), maxMiB);
    const dir = this.home.dirFor(name, false);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tab = request.targetId ? await driver.tabFor(request.targetId) : undefined;
    await driver.film.start({ tab, format: request.format, dir, stem: new Date().toISOString().replace(/[:.]/g, '-'), room });
    return { filming: true, ...driver.film.state! };
  }

  async stop(profile: string | undefined, request: z.output<typeof schemas.videoStop>): Promise<Film> {
    const driver = this.manager.driver(profile);
    return this.make(driver.profile.name, await driver.film.stop(), request.keep === true);
  }

  /**
   * What a task session opened with `record: "video"` needs: its film from
   * the start; at its end, the filming stopped while its browser lives, and
   * the film made (and kept) once the browser is gone.
   */
  sessionFilms(): SessionFilms {
    return {
      start: async (profile) => void (await this.start(profile, { format: 'webm' })),
      stop: async (profile) => {
        const driver = this.manager.driver(profile);
        const taken = await driver.film.stop();
        return async () => void (await this.make(driver.profile.name, taken, true));
      },
    };
  }

  /** `GET /videos`: the profile's films (kept ones included), oldest first, and the one being made. */
  list(profile: string | undefined): FilmList {
    const name = this.nameOf(profile);
    const films = [false, true].flatMap((kept) => {
      const dir = this.home.dirFor(name, kept);
      const names = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(SIDECAR)) : [];
      return names.flatMap((file) => {
        try {
          return [{ ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Film), kept }];
        } catch {
          return [];
        }
      });
    });
    const filming = this.filmingNow(name);
    return { profile: name, films: films.sort((a, b) => a.startedAt.localeCompare(b.startedAt)), ...(filming ? { filming } : {}) };
  }

  /** `GET /videos/file`: where one film is; a 404 when the profile has no such film. */
  file(profile: string | undefined, film: string): string {
    const name = this.nameOf(profile);
    for (const kept of [false, true]) {
      const path = join(this.home.dirFor(name, kept), film);
      if (existsSync(path) && existsSync(`${path.replace(/\.(webm|mp4)$/, '')}${SIDECAR}`)) return path;
    }
    throw new NotFoundError(`Profile ${name} has no film ${JSON.stringify(film)}: GET /videos lists them`);
  }

  private async make(name: string, taken: FilmStopped, keep: boolean): Promise<Film> {
    try {
      if (!taken.frameCount)
        throw new ConflictError(`The film of ${name} has no frames: the tab it followed painted nothing, or it followed none (open a tab first)`);
      const chapters = chaptersOf(this.home.actionsSince(name, taken.since), taken.startedAt, taken.durationMs);
      const output = `${taken.stem}.${taken.format}`;
      const began = Date.now();
      await encodeFilm(findFfmpeg(this.limits().ffmpeg), taken, chapters, `clawd-browser: ${name}`, taken.format, output);
      const encodeMs = Date.now() - began;
      let dir = taken.dir;
      if (keep) {
        dir = this.home.dirFor(name, true);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        renameSync(join(taken.dir, output), join(dir, output));
      }
      const path = join(dir, output);
      chmodSync(path, 0o600);
      const film: Film = {
        name: output,
        path,
        format: taken.format,
        kept: keep,
        bytes: statSync(path).size,
        startedAt: taken.since,
        durationMs: taken.durationMs,
        frames: taken.frameCount,
        size: taken.size,
        tabs: taken.tabs,
        chapters,
        encodeMs,
        ...(taken.stoppedGrowing ? { stoppedGrowing: taken.stoppedGrowing } : {}),
      };
      writeFileSync(join(dir, `${taken.stem}${SIDECAR}`), JSON.stringify(film, null, 1), { mode: 0o600 });
      return film;
    } finally {
      for (const file of sideFiles(taken.frames)) rmSync(join(taken.dir, file), { force: true });
    }
  }

  private filmingNow(name: string): FilmList['filming'] {
    try {
      return this.manager.peek(name).film.state;
    } catch {
      return undefined; // an ended session, or a profile no longer configured: its films are still listed
    }
  }

  private nameOf(profile: string | undefined): string {
    const name = profile ?? this.manager.registry.config().defaultProfile;
    if (!PROFILE_NAME.test(name)) throw new BadRequestError(`profile: ${JSON.stringify(name)} is not a profile name`);
    return name;
  }

  private dirsOf(name: string): string[] {
    return [this.home.dirFor(name, false), this.home.dirFor(name, true)];
  }

  private limits() {
    return this.manager.registry.config().recordings;
  }
}
