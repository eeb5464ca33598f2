import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { GridEndpoint } from '../driver/grid-endpoint.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { Logger } from '../log.js';
import { type GridPlacement, type GridSettings, gridName } from '../profiles/grid-session.js';
import { findProfileProcesses, killProcesses } from '../profiles/orphans.js';
import { seedProfilePreferences } from '../profiles/preferences.js';
import { type Profile, SESSION_PROFILE_PREFIX } from '../profiles/profile-registry.js';
import { type Isolation, type IsolationSettings, isolate } from './session-isolation.js';
import { type SessionRecord, STOP_GRACE_MS } from './session-reaper.js';
import { unmarkJail } from '../jail/jail-reaper.js';

/**
 * Where task sessions' browsers come from, and how they go: a clone of the
 * credential-free template started here (in a jail or as a process, by
 * session-isolation.ts), or a browser asked of a Selenium Grid. Each is a
 * session without an identity until task-sessions.ts hands it one; each
 * writes the record the reaper needs before it launches, and leaves nothing
 * behind when it goes.
 */

const SESSION_COLOR = '#5B6B7A';

export interface Prepared {
  id: string;
  dir: string;
  driver: ProfileDriver;
  /** A local session's jail or process, and its way out. */
  isolation?: Isolation;
  /** Set for a session on a Selenium Grid. */
  grid?: GridEndpoint;
}

export class SessionBrowsers {
  constructor(
    /** $CLAWD_HOME/sessions: one dir per session, and the template. */
    private readonly root: string,
    private readonly deps: {
      manager: ProfileManager;
      log: Logger;
      isolation: () => IsolationSettings;
      /** A jail's limit was passed by session `id`'s browser. */
      limitPassed: (id: string, why: string) => void;
    },
  ) {}

  /** Clones the template and starts a browser on it (a spare also opens its blank page): a session without an identity yet. */
  async prepare(options: { warm?: boolean } = {}): Promise<Prepared> {
    const id = randomBytes(6).toString('hex');
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = `${SESSION_PROFILE_PREFIX}${id}`;
    const { manager } = this.deps;
    const isolation = isolate(
      { id, dir, spare: options.warm },
      this.deps.isolation(),
      { options: manager.egressOptions(name), plain: () => manager.egressFor(name) },
      (why) => this.deps.limitPassed(id, why),
    );
    if (isolation.isolationNote) this.deps.log.info(`task session ${id}: ${isolation.isolation} (${isolation.isolationNote})`);
    // A jailed browser's data lives in its jail's own dir (its user cannot enter $CLAWD_HOME).
    const userDataDir = join(isolation.dataDir, 'user-data');
    cpSync(this.template(), userDataDir, { recursive: true });
    // Made before the launch, so that a jail's user owns it too (its browser writes downloads there).
    mkdirSync(join(isolation.dataDir, 'downloads'), { recursive: true });
    const profile: Profile = { name, driver: 'clawd', color: SESSION_COLOR, builtIn: false, userDataDir };
    const driver = manager.createEphemeral(profile, join(isolation.dataDir, 'downloads'), isolation.envelope);
    // Written before the launch, so that a server killed mid-launch leaves the reaper what it needs.
    writeFileSync(
      join(dir, 'session.json'),
      JSON.stringify({
        id,
        serverPid: process.pid,
        userDataDir,
        ...(isolation.jail ? { jail: isolation.jail } : {}),
        createdAt: new Date().toISOString(),
      } satisfies SessionRecord),
    );
    try {
      await (options.warm ? driver.prewarm() : driver.start());
      isolation.started();
    } catch (error) {
      await driver.stop().catch(() => {});
      removeDirs(dir, isolation.dataDir);
      throw error;
    }
    return { id, dir, driver, isolation };
  }

  /**
   * Asks the Grid for a browser and connects the driver to it; its dir here
   * holds only downloads and the record for the reaper. With `existing`, the
   * browser is one another server of the fleet placed (taken over): session
   * `id`'s, attached to as it is.
   */
  async prepareOnGrid(grid: GridSettings, existing?: { id: string; placement: GridPlacement }): Promise<Prepared> {
    const id = existing?.id ?? randomBytes(6).toString('hex');
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const profile: Profile = { name: `${SESSION_PROFILE_PREFIX}${id}`, driver: 'clawd', color: SESSION_COLOR, builtIn: false };
    const { driver, endpoint } = this.deps.manager.createGridEphemeral(profile, grid, join(dir, 'downloads'), existing?.placement);
    const record = (gridSession?: string): SessionRecord => ({
      id,
      serverPid: process.pid,
      createdAt: new Date().toISOString(),
      grid: { url: gridName(grid), ...(gridSession ? { session: gridSession } : {}) },
    });
    writeFileSync(join(dir, 'session.json'), JSON.stringify(record()));
    try {
      await driver.start();
    } catch (error) {
      await this.deps.manager.release(driver);
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      throw error;
    }
    // Now that the Grid named it, the reaper can end it there if this server dies first.
    writeFileSync(join(dir, 'session.json'), JSON.stringify(record(endpoint.sessionId)));
    return { id, dir, driver, grid: endpoint };
  }

  /** A spare nobody took: its browser stopped, and all it left removed. */
  async discard(prepared: Prepared): Promise<void> {
    await this.deps.manager.release(prepared.driver);
    await this.clearAway(prepared.dir, prepared.isolation?.dataDir);
  }

  /** After a browser was released: its processes still alive are ended (TERM, then KILL after a grace), then its dirs go. */
  async clearAway(dir: string, dataDir = dir): Promise<void> {
    const left = findProfileProcesses(join(dataDir, 'user-data'));
    if (left.length) await killProcesses(left, STOP_GRACE_MS);
    removeDirs(dir, dataDir);
  }

  /** The credential-free template every session starts from: prepared once (first run done, preferences seeded). */
  private template(): string {
    const dir = join(this.root, 'template');
    if (existsSync(join(dir, 'First Run'))) return dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    seedProfilePreferences(dir, { name: 'clawd session', color: SESSION_COLOR });
    writeFileSync(join(dir, 'First Run'), '');
    return dir;
  }
}

/** A session's dir, and its jail's data dir when it has one. */
/** A session's dir (named by its id) and its browser's data dir go, and its jail's mark if it had a jail (jail-reaper.ts). */
function removeDirs(dir: string, dataDir = dir): void {
  for (const each of new Set([dir, dataDir])) rmSync(each, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  unmarkJail(basename(dir));
}
