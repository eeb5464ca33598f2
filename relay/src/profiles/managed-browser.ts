import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config/config.js';
import { TimeoutError, UnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { currentPlatform } from '../config/platform.js';
import { defaultExecutableEnv, ExecutableNotFoundError, findExecutable } from './executable.js';
import { BrowserPipe } from './browser-pipe.js';
import { findProfileProcesses, killProcesses } from './orphans.js';
import { seedProfilePreferences } from './preferences.js';
import type { Profile } from './profile-registry.js';
import { type EgressFailureReason, type LaunchEnvelope, proxyArgs } from './launch-envelope.js';

/**
 * A managed profile's Chromium (spec §4): its own user-data dir, launched on
 * demand and stopped with nothing left behind. It speaks CDP over a pipe
 * only this process holds (browser-pipe.ts), never on a port: what reaches
 * it goes through clawd-browser's guarded endpoint (spec §9). When this
 * process ends, however it ends, the browser ends with it.
 */

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
/** How long a browser asked to close may take to write its profile and exit before it is killed. */
const CLOSE_WAIT_MS = 5_000;
/** The id of the Browser.close sent at stop: far above the ids the mux gives (it counts up from 1), so no client gets its answer. */
const CLOSE_ID = 2_147_483_647;

export interface LaunchSettings {
  headless: boolean;
  noSandbox: boolean;
  /** noSandbox as config.json asks it (a jailed browser runs unprivileged, so running as root is no reason). */
  noSandboxByConfig: boolean;
  executablePath?: string;
  /** Never launch: the profile's browser is the user's own, on its cdpPort (profile-manager.ts). */
  attachOnly: boolean;
}

/** Spec §4, plus: no display means headless, and root cannot use the sandbox. */
export function launchSettings(config: Config, env: NodeJS.ProcessEnv = process.env): LaunchSettings {
  const noDisplay = process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    headless: config.headless || noDisplay,
    noSandbox: config.noSandbox || root,
    noSandboxByConfig: config.noSandbox,
    executablePath: config.executablePath,
    attachOnly: config.attachOnly,
  };
}

/**
 * An agent's browser talks to the pages it is sent to and to nothing else:
 * Chromium's background services are off, so its egress log holds what
 * pages did. The switches Playwright and Puppeteer launch with for this
 * (background networking, component and field-trial downloads, crash and
 * phishing reports, sync, metrics), the features that fetch on their own
 * (optimization hints, translation, media routing, network time, autofill
 * server queries), and two requests no switch stops, whose addresses are
 * pointed at a port Chromium refuses itself, so they never leave the
 * browser: the list of Google accounts a profile lists when its network
 * comes up (its Gaia address; a page at accounts.google.com is then a site
 * like any other, as in other browsers), and on-demand model downloads
 * (the component updater's address).
 */
export const QUIET_SWITCHES: readonly string[] = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-field-trial-config',
  '--disable-breakpad',
  '--disable-client-side-phishing-detection',
  '--disable-component-extensions-with-background-pages',
  '--disable-default-apps',
  '--disable-sync',
  '--disable-domain-reliability',
  '--metrics-recording-only',
  '--no-service-autorun',
  '--disable-features=OptimizationHints,Translate,MediaRouter,DialMediaRouteProvider,NetworkTimeServiceQuerying,AutofillServerCommunication',
  // Port 9 (discard) is on Chromium's list of ports it never connects to.
  '--gaia-url=http://127.0.0.1:9',
  '--component-updater=url-source=http://127.0.0.1:9',
];

/**
 * Every tab an agent holds is driven as the one in front: Chromium holds a
 * tab that is not in front back (its timers slowed, its renderer lowered, an
 * occluded window's painting stopped), and an act waits for frames it never
 * paints, a screenshot for a frame that never comes. Playwright launches with
 * the same three.
 */
export const EVERY_TAB_LIVE_SWITCHES: readonly string[] = [
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
];

export function chromiumArgs(profile: Profile, settings: LaunchSettings): string[] {
  const args = [
    '--remote-debugging-pipe',
    `--user-data-dir=${profile.userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--password-store=basic',
    ...QUIET_SWITCHES,
    // The tools pages offer agents (document.modelContext, <form toolname>), and CDP's WebMCP domain.
    '--enable-features=WebMCP',
    ...EVERY_TAB_LIVE_SWITCHES,
  ];
  if (settings.headless) args.push('--headless', '--disable-gpu');
  if (settings.noSandbox) args.push('--no-sandbox', '--disable-setuid-sandbox');
  // No tab until an agent opens one: starting a renderer for an unused
  // about:blank doubled the time to a usable connection (bench: managed start).
  args.push('--no-startup-window');
  return args;
}

/** Browser.getVersion's answer, as `/json/version` reports it. */
export interface BrowserVersion {
  product: string;
  protocolVersion: string;
  userAgent: string;
}

export class ManagedBrowser {
  private child: ChildProcess | undefined;
  private pipe: BrowserPipe | undefined;
  private launching: Promise<BrowserPipe> | undefined;
  private stderrTail: string[] = [];
  /** What the running browser said it is (Browser.getVersion, asked at launch). */
  version: BrowserVersion | undefined;

  constructor(
    private readonly profile: Profile,
    private readonly settings: LaunchSettings,
    private readonly log: Logger,
    /** Its way out (and jail), when it has one: every browser a server launches does (profile-manager.ts). */
    private readonly envelope?: LaunchEnvelope,
    /** A task session's: its data goes with it, so stop() need not wait for the browser to write it. */
    private readonly throwaway = false,
  ) {}

  get running(): boolean {
    return this.pipe !== undefined && this.child?.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.running ? this.child!.pid : undefined;
  }

  /** Why its way out failed a connection to `host` since `since`, if it did. */
  egressFailure(host: string, since: number): EgressFailureReason | undefined {
    return this.envelope?.egressFailure?.(host, since);
  }

  /** The browser's pipe, launching it first when it is not running; shared by concurrent callers. */
  ensureRunning(): Promise<BrowserPipe> {
    if (this.running) return Promise.resolve(this.pipe!);
    this.launching ??= this.launch().finally(() => (this.launching = undefined));
    return this.launching;
  }

  private async launch(): Promise<BrowserPipe> {
    const executable = this.executable();
    const userDataDir = this.profile.userDataDir!;
    // A browser on this data dir that this server did not start would take the launch over (Chromium's
    // profile lock) and hand us nothing: named, not adopted and not killed (it may be the user's).
    const holders = findProfileProcesses(userDataDir);
    if (holders.length)
      throw new UnavailableError(
        `Profile ${this.profile.name}'s data dir is in use by pid ${holders.join(', ')}, which this server did not start: ` +
          `stop it, or run \`clawd-browser reset-profile --profile ${this.profile.name}\``,
      );
    mkdirSync(userDataDir, { recursive: true });
    seedProfilePreferences(userDataDir, { name: this.profile.name, color: this.profile.color });
    this.log.info(`launching ${executable} for profile ${this.profile.name}`);
    const prepared = await this.envelope?.prepare();
    // Run by an unprivileged user in its jail, Chromium keeps its own sandbox unless config.json says otherwise.
    const settings = prepared?.unprivileged ? { ...this.settings, noSandbox: this.settings.noSandboxByConfig } : this.settings;
    const args = [...chromiumArgs(this.profile, settings), ...(prepared ? proxyArgs(prepared.proxyServer) : [])];
    const command = prepared?.wrap ? prepared.wrap(executable, args) : { command: executable, args };
    const child = spawn(command.command, command.args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: { ...process.env, ...prepared?.env } });
    this.child = child;
    this.stderrTail = [];
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail.push(...chunk.toString().split('\n').filter(Boolean));
      this.stderrTail = this.stderrTail.slice(-20);
    });
    const pipe = new BrowserPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new UnavailableError(`${executable} exited (${code ?? signal}) before answering: ${this.stderrTail.slice(-3).join(' | ')}`)),
      ),
    );
    // The first answer on the pipe is the browser ready for clients.
    const answered = new Promise<void>((resolve) => {
      pipe.onmessage = (message) => {
        if (!message.startsWith('{"id":0,')) return;
        this.version = (JSON.parse(message) as { result?: BrowserVersion }).result;
        resolve();
      };
      pipe.send(JSON.stringify({ id: 0, method: 'Browser.getVersion' }));
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${executable} did not answer on its pipe within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    });
    try {
      await Promise.race([answered, exited, timeout]);
    } catch (error) {
      await this.stop();
      throw error;
    } finally {
      clearTimeout(timer);
      exited.catch(() => {});
    }
    pipe.onmessage = () => {};
    child.once('exit', () => {
      if (this.pipe === pipe) this.pipe = undefined;
    });
    this.pipe = pipe;
    return pipe;
  }

  private executable(): string {
    try {
      return findExecutable({ executablePath: this.settings.executablePath, platform: currentPlatform(), env: defaultExecutableEnv() });
    } catch (error) {
      if (error instanceof ExecutableNotFoundError) throw new UnavailableError(error.message);
      throw error;
    }
  }

  /**
   * Stops the browser: ours, and whatever still runs on this profile's data
   * dir. Ours is asked to close first (Browser.close on its pipe), as a
   * person closing the window would: Chromium then writes its cookies and
   * storage to the profile, which a signal to each of its processes at once
   * loses. Whatever has not exited after CLOSE_WAIT_MS is killed.
   */
  async stop(): Promise<void> {
    const child = this.child;
    const pipe = this.pipe;
    this.child = undefined;
    this.pipe = undefined;
    if (!this.throwaway && pipe && child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      pipe.send(JSON.stringify({ id: CLOSE_ID, method: 'Browser.close' }));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    }
    const pids = new Set<number>(findProfileProcesses(this.profile.userDataDir!));
    if (child?.pid && child.exitCode === null && child.signalCode === null) pids.add(child.pid);
    if (pids.size) {
      const exited = child && child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
      await killProcesses([...pids], STOP_GRACE_MS);
      await exited;
    }
    await this.envelope?.release();
  }

  /** reset-profile: kills processes on the profile's data dir that this server did not start. Returns the pids. */
  async killOrphans(): Promise<number[]> {
    const pids = new Set(findProfileProcesses(this.profile.userDataDir!));
    if (this.child?.pid) pids.delete(this.child.pid);
    return killProcesses([...pids], STOP_GRACE_MS);
  }
}
