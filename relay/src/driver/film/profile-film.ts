import { BadRequestError } from '../../errors.js';
import type { FilmFormat } from '../../replay/film-plan.js';
import type { DriverTab } from '../driver-tab.js';
import { FilmRecorder, type FilmTake } from './film-recorder.js';

/**
 * A profile's film, at most one at a time: of one tab, or of the whole
 * profile, following the tab each request uses (a task session's film shows
 * its tabs one after another, in order). The service makes the film from
 * what this hands back when it stops (service/film-service.ts).
 */

export interface FilmStart {
  /** One tab's film; the whole profile's when undefined. */
  tab?: DriverTab;
  format: FilmFormat;
  dir: string;
  /** Its name without extension: the frames, the film and its chapters share it. */
  stem: string;
  /** Bytes its frames may take. */
  room: number;
}

export interface FilmStopped extends FilmTake {
  format: FilmFormat;
  stem: string;
  since: string;
  /** The tab it was of, when it was one tab's. */
  targetId?: string;
}

interface Filming {
  recorder: FilmRecorder;
  format: FilmFormat;
  stem: string;
  since: string;
  targetId?: string;
}

export class ProfileFilm {
  private filming: Filming | undefined;

  constructor(
    private readonly profile: string,
    /** The tab a request without targetId means now (a whole profile's film starts on it). */
    private readonly currentTab: () => Promise<DriverTab | undefined>,
  ) {}

  /** What is being filmed, if anything. */
  get state(): { since: string; targetId?: string; format: FilmFormat } | undefined {
    if (!this.filming) return undefined;
    const { since, targetId, format } = this.filming;
    return { since, format, ...(targetId ? { targetId } : {}) };
  }

  async start(options: FilmStart): Promise<void> {
    if (this.filming) throw new BadRequestError(`Profile ${this.profile} is being filmed since ${this.filming.since}: stop that film first (POST /video/stop)`);
    const recorder = new FilmRecorder(options.dir, `${options.stem}.frames.ivf`, options.room);
    const targetId = options.tab ? await options.tab.targetId() : undefined;
    this.filming = {
      recorder,
      format: options.format,
      stem: options.stem,
      since: new Date(recorder.startedAt).toISOString(),
      ...(targetId ? { targetId } : {}),
    };
    const first = options.tab ?? (await this.currentTab().catch(() => undefined));
    if (first) await recorder.follow(first);
  }

  /** A request used this tab: a whole profile's film shows it from now on. */
  async follow(tab: DriverTab): Promise<void> {
    const filming = this.filming;
    if (!filming || filming.targetId || filming.recorder.follows(tab)) return;
    await filming.recorder.follow(tab).catch(() => {});
  }

  async stop(): Promise<FilmStopped> {
    const filming = this.filming;
    if (!filming) throw new BadRequestError(`Profile ${this.profile} is not being filmed: POST /video/start first`);
    this.filming = undefined;
    const take = await filming.recorder.stop();
    return { ...take, format: filming.format, stem: filming.stem, since: filming.since, ...(filming.targetId ? { targetId: filming.targetId } : {}) };
  }
}
