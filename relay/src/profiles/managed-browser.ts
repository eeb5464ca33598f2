import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Config } from '../config/config.js';
import { TimeoutError, UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { currentPlatform } from '../config/platform.js';
import { defaultExecutableEnv, ExecutableNotFoundError, findExecutable } from './executable.js';
import { findPortHolder, findProfileProcesses, killProcesses } from './orphans.js';
import { seedProfilePreferences } from './preferences.js';
import type { Profile } from './profile-registry.js';

/**
 * A managed profile's Chromium (spec §4): its own user-data dir, its CDP port
 * from the profile, launched on demand and stopped with nothing left behind.
 */

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

export interface LaunchSettings {
  headless: boolean;
  noSandbox: boolean;
  executablePath?: string;
  attachOnly: boolean;
}

/** Spec §4, plus: no display means headless, and root cannot use the sandbox. */
export function launchSettings(config: Config, env: NodeJS.ProcessEnv = process.env): LaunchSettings {
  const noDisplay = process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    headless: config.headless || noDisplay,
    noSandbox: config.noSandbox || root,
    executablePath: config.executablePath,
    attachOnly: config.attachOnly,
  };
}

export function chromiumArgs(profile: Profile, settings: LaunchSettings): string[] {
  const args = [
    `--remote-debugging-port=${profile.cdpPort}`,
    `--user-data-dir=${profile.userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    // An agent's browser phones nowhere it was not sent.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--password-store=basic',
  ];
  if (settings.headless) args.push('--headless', '--disable-gpu');
  if (settings.noSandbox) args.push('--no-sandbox', '--disable-setuid-sandbox');
  // No tab until an agent opens one: starting a renderer for an unused
  // about:blank doubled the time to a usable connection (bench: managed start).
  args.push('--no-startup-window');
  return args;
}

export class ManagedBrowser {
  private child: ChildProcess | undefined;
  private stderrTail: string[] = [];

  constructor(
    private readonly profile: Profile,
    private readonly settings: LaunchSettings,
    private readonly log: Logger,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.profile.cdpPort}`;
  }

  /** The pid of the browser on the profile's port, ours or left from an earlier run. */
  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : findPortHolder(this.profile.cdpPort!);
  }

  async answers(timeoutMs = 1000): Promise<boolean> {
    try {
      return (await fetch(`${this.endpoint}/json/version`, { signal: AbortSignal.timeout(timeoutMs) })).ok;
    } catch {
      return false;
    }
  }

  /**
   * Returns a CDP endpoint, launching Chromium when nothing answers on the
   * profile's port. What answers is trusted only if clawd launched it (this
   * server's child, or an earlier server's browser on this profile's data
   * dir): any other process that took the port first would otherwise receive
   * the profile's commands, typed passwords included. With attachOnly the
   * user runs the browser, and whatever answers is theirs.
   */
  async ensureRunning(): Promise<string> {
    if (await this.answers()) {
      if (!this.settings.attachOnly) this.checkPortHolder();
      return this.endpoint;
    }
    if (this.settings.attachOnly)
      throw new UnavailableError(`attachOnly is set and no browser answers on ${this.endpoint} for profile ${this.profile.name}`);
    const executable = this.executable();
    mkdirSync(this.profile.userDataDir!, { recursive: true });
    seedProfilePreferences(this.profile.userDataDir!, { name: this.profile.name, color: this.profile.color });
    const args = chromiumArgs(this.profile, this.settings);
    this.log.info(`launching ${executable} for profile ${this.profile.name} on port ${this.profile.cdpPort}`);
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.stderrTail = [];
    // Chrome prints its endpoint the moment it listens: no polling delay.
    const listening = new Promise<string>((resolve) => {
      let head = ''; // the line may arrive split across chunks
      child.stderr!.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        this.stderrTail.push(...text.split('\n').filter(Boolean));
        this.stderrTail = this.stderrTail.slice(-20);
        head = (head + text).slice(-4096);
        const match = /DevTools listening on (ws:\/\/\S+)\s/.exec(head);
        if (match) resolve(match[1]);
      });
    });
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new UnavailableError(`${executable} exited (${code ?? signal}) before answering: ${this.stderrTail.slice(-3).join(' | ')}`)),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${executable} did not listen on port ${this.profile.cdpPort} within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    });
    try {
      return await Promise.race([listening, exited, timeout]);
    } catch (error) {
      await this.stop();
      throw error;
    } finally {
      clearTimeout(timer);
      exited.catch(() => {});
    }
  }

  private checkPortHolder(): void {
    const port = this.profile.cdpPort!;
    const holder = findPortHolder(port);
    const child = this.child?.exitCode === null ? this.child.pid : undefined;
    if (holder !== undefined && (holder === child || findProfileProcesses(this.profile.userDataDir!).includes(holder))) return;
    // Where the holder cannot be seen (not Linux), only our own running child is trusted.
    if (holder === undefined && process.platform !== 'linux' && child !== undefined) return;
    const who = holder === undefined ? 'a process clawd-browser cannot see' : `pid ${holder}`;
    throw new UnavailableError(
      `Port ${port} of profile ${this.profile.name} is held by ${who}, which clawd-browser did not launch; ` +
        'it will not be sent the profile\'s commands. Stop that process, or give the profile another port',
    );
  }

  private executable(): string {
    try {
      return findExecutable({ executablePath: this.settings.executablePath, platform: currentPlatform(), env: defaultExecutableEnv() });
    } catch (error) {
      if (error instanceof ExecutableNotFoundError) throw new UnavailableError(error.message);
      throw error;
    }
  }

  /** Stops the browser: ours, or whatever still runs on this profile's data dir. */
  async stop(): Promise<void> {
    const pids = new Set<number>(findProfileProcesses(this.profile.userDataDir!));
    const child = this.child;
    this.child = undefined;
    if (child?.pid && child.exitCode === null && child.signalCode === null) pids.add(child.pid);
    if (!pids.size) return;
    const exited = child && child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
    await killProcesses([...pids], STOP_GRACE_MS);
    await exited;
  }

  /**
   * reset-profile: kills a process holding the profile's port or data dir
   * that this server did not start (a crashed server's orphan). Returns the pids.
   */
  async killOrphans(): Promise<number[]> {
    const pids = new Set(findProfileProcesses(this.profile.userDataDir!));
    const holder = findPortHolder(this.profile.cdpPort!);
    if (holder !== undefined) pids.add(holder);
    if (this.child?.pid) pids.delete(this.child.pid);
    return killProcesses([...pids], STOP_GRACE_MS);
  }
}
