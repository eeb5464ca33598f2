import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type Config, ensureConfig, loadConfig, saveConfig } from '../config/config.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';

/**
 * The profiles (spec §5): `clawd` (managed, default), `extension` and
 * `chrome` (the person's own Chrome, attached through its consent) are
 * built in; others are created managed (a CDP port allocated once from
 * 18800-18899 and persisted) or remote (a cdpUrl, attach-only). config.json
 * is the only store, re-read on every call so hand edits are seen.
 */

import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import type { Profile } from '../api/responses.js';
export type { Profile };

export const PROFILE_NAME_RULE = 'profile names use lowercase letters, digits and hyphens, start with a letter or digit, and have at most 64 characters';
const PROFILE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const CDP_PORTS = { first: 18800, last: 18899 } as const;
const BUILT_IN = new Set(['clawd', 'extension', 'chrome']);

/** Where jailed profiles keep their data: outside $CLAWD_HOME, which their jail's user cannot enter. */
export const JAILED_PROFILES_ROOT = '/var/lib/clawd-browser';

/**
 * A jailed profile's own dir (its browser's HOME, and its user-data inside):
 * one per home and profile, so two homes on a machine never share one.
 */
export function jailedProfileDir(home: string, name: string): string {
  return join(JAILED_PROFILES_ROOT, jailedProfileId(home, name));
}

/** A short, stable name for a jailed profile's netns, cgroup and uid: the same on every launch. */
export function jailedProfileId(home: string, name: string): string {
  return `p-${createHash('sha256').update(`${home}\0${name}`).digest('hex').slice(0, 12)}`;
}
export { SESSION_PROFILE_PREFIX };
/** Colours for new profiles, so two browsers on screen are told apart at a glance. */
const PALETTE = ['#1E88E5', '#43A047', '#8E24AA', '#00897B', '#F4B400', '#6D4C41', '#D81B60', '#546E7A'];

export function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) throw new BadRequestError(`Invalid profile name ${JSON.stringify(name)}: ${PROFILE_NAME_RULE}`);
}

export class ProfileRegistry {
  constructor(readonly home: string) {}

  /**
   * First run, by `serve`: config.json is written with its defaults, and the
   * built-in clawd profile gets its port like any created profile. Reading
   * profiles never writes.
   */
  prepare(): void {
    ensureConfig(this.home);
    this.ensureBuiltIns();
  }

  config(): Config {
    return loadConfig(this.home);
  }

  list(): Profile[] {
    const config = this.config();
    const names = new Set([...BUILT_IN, ...Object.keys(config.profiles)]);
    return [...names].map((name) => this.describe(config, name));
  }

  /** Pass `config` when the caller has just read it: one read per request. */
  get(name: string, config: Config = this.config()): Profile {
    checkProfileName(name);
    if (!BUILT_IN.has(name) && !config.profiles[name]) throw new NotFoundError(`No profile named ${JSON.stringify(name)}`);
    return this.describe(config, name);
  }

  create(request: { name: string; color?: string; cdpUrl?: string; jail?: boolean }): Profile {
    checkProfileName(request.name);
    // `session-<id>` is how a task session is addressed on every route: a profile of that name would shadow one.
    if (request.name.startsWith(SESSION_PROFILE_PREFIX))
      throw new BadRequestError(
        `Invalid profile name ${JSON.stringify(request.name)}: names starting "${SESSION_PROFILE_PREFIX}" belong to task sessions; choose another`,
      );
    const config = this.config();
    if (BUILT_IN.has(request.name) || config.profiles[request.name]) throw new ConflictError(`Profile ${JSON.stringify(request.name)} already exists`);
    const color = request.color ?? PALETTE[Object.keys(config.profiles).length % PALETTE.length];
    config.profiles[request.name] = request.cdpUrl
      ? { driver: 'remote', cdpUrl: request.cdpUrl, color }
      : { driver: 'clawd', cdpPort: this.freePort(config), color, ...(request.jail ? { jail: true } : {}) };
    saveConfig(this.home, config);
    return this.describe(config, request.name);
  }

  /** Forgets the profile; the caller stops its browser and removes its data first. */
  remove(name: string): Profile {
    const profile = this.get(name);
    if (profile.builtIn) throw new BadRequestError(`Profile ${JSON.stringify(name)} is built in and cannot be deleted`);
    const config = this.config();
    delete config.profiles[name];
    saveConfig(this.home, config);
    return profile;
  }

  private describe(config: Config, name: string): Profile {
    const entry = config.profiles[name] ?? {};
    const driver: Profile['driver'] = name === 'extension' || name === 'chrome' ? name : (entry.driver ?? (entry.cdpUrl ? 'remote' : 'clawd'));
    const profile: Profile = { name, driver, color: entry.color ?? config.accentColor, builtIn: BUILT_IN.has(name) };
    if (driver === 'clawd') {
      profile.cdpPort = entry.cdpPort;
      profile.userDataDir = join(entry.jail ? jailedProfileDir(this.home, name) : join(this.home, 'browser', name), 'user-data');
      if (entry.jail) profile.jail = true;
    }
    if (driver === 'remote') profile.cdpUrl = entry.cdpUrl;
    return profile;
  }

  /** The built-in clawd profile gets its port on first run, like any created profile. */
  private ensureBuiltIns(): void {
    const config = this.config();
    if (config.profiles.clawd?.cdpPort) return;
    config.profiles.clawd = {
      ...config.profiles.clawd,
      driver: 'clawd',
      cdpPort: this.freePort(config),
      color: config.profiles.clawd?.color ?? config.accentColor,
    };
    saveConfig(this.home, config);
  }

  private freePort(config: Config): number {
    const taken = new Set(Object.values(config.profiles).map((p) => p.cdpPort));
    for (let port: number = CDP_PORTS.first; port <= CDP_PORTS.last; port++) if (!taken.has(port)) return port;
    throw new ConflictError(`All CDP ports ${CDP_PORTS.first}-${CDP_PORTS.last} are allocated: delete a profile first`);
  }
}
