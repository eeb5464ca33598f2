import { OwnPorts } from '../egress/own-ports.js';
import type { BrowserSecrets } from './secrets/browser-secrets.js';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { JailEnvelope } from '../jail/jail-envelope.js';
import { jailHost } from '../jail/jail-host.js';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import type { DownloadLog } from './network/download-log.js';
import type { DownloadHold } from './network/download-saver.js';
import type { Config } from '../config/config.js';
import { BadRequestError, type ClawdError, DisabledError, NotFoundError, TooManyError, UnavailableError } from '../errors.js';
import type { BrowserMux } from '../bridge/browser-mux.js';
import type { Logger } from '../log.js';
import { type AttachedChrome, type BrowserEndpoint, ChromeEndpoint, ExtensionEndpoint, isMuxed, ManagedEndpoint, RemoteEndpoint } from './browser-endpoint.js';
import { GridEndpoint } from './grid-endpoint.js';
import type { GridPlacement, GridSettings } from '../profiles/grid-session.js';
import { type DriverPolicy, ProfileDriver } from './profile-driver.js';
import { IdleBrowsers } from './idle-browsers.js';
import { defaultUploadDirs } from './acts/uploads.js';
import { launchSettings, ManagedBrowser } from '../profiles/managed-browser.js';
import type { LaunchEnvelope } from '../profiles/launch-envelope.js';
import { EgressEnvelope } from '../egress/egress-envelope.js';
import type { EgressOptions } from '../egress/egress-proxy.js';
import { jailedProfileId, type Profile, ProfileRegistry, SESSION_PROFILE_PREFIX } from '../profiles/profile-registry.js';
import { SESSION_DEFAULT_POLICY } from '../runtime/url-policy.js';

/** The relay this process runs, for the extension profile. */
export interface RelayHandle {
  bridge: CdpBridge;
  downloads: DownloadLog;
  /** ws://host:port/cdp: the extension profile's CDP, and with `?profile=` every launched browser's. */
  cdpUrl: string;
  token: string;
  /** What the drivers present at `/cdp?profile=`: held by this process only (relay-server.ts). */
  driverKey: string;
  /** The `chrome` profile: the person's own Chrome, attached through its remote-debugging consent. */
  chrome?: AttachedChrome;
}

/** Ended ephemeral browsers whose end is still told apart from a name never used. */
const ENDED_REMEMBERED = 256;

/**
 * Profiles and their drivers: one ProfileDriver per profile, created on first
 * use. Choosing the endpoint is the one place that looks at the profile kind.
 * Ephemeral browsers (task sessions') are made here too, so every browser
 * this server launches has one path in and one path out.
 */
export class ProfileManager {
  readonly registry: ProfileRegistry;
  private readonly drivers = new Map<string, ProfileDriver>();
  /** Ephemeral browsers that answer on every route by their profile name (a session handed over). */
  private readonly exposed = new Map<string, ProfileDriver>();
  /** Why an ephemeral name no longer answers (an ended session: when, and why). */
  private readonly ended = new Map<string, ClawdError>();
  /** Every ephemeral browser made and not yet released (exposed or not: a spare's driver connects before it is handed over). */
  private readonly ephemerals = new Map<string, ProfileDriver>();

  /**
   * Ports on this machine no browser may reach, through its egress proxy or
   * a shared tab: the server's own (control API, relay; serve adds them) and
   * every proxy's.
   */
  readonly ownPorts = new OwnPorts();
  /** When each profile was last used: a managed browser nobody uses is stopped (sweepIdle). */
  readonly idle: IdleBrowsers;
  /** Hosts a task session may reach though loopback or private, as the token's holder opened it (allowPrivate). */
  private readonly privateHosts = new Map<string, string[]>();

  constructor(
    private readonly home: string,
    private readonly relay: RelayHandle,
    private readonly log: Logger,
  ) {
    this.registry = new ProfileRegistry(home);
    this.idle = new IdleBrowsers(log);
    this.ownPorts.add(Number(new URL(relay.cdpUrl).port));
  }

  /**
   * How a browser's egress proxy decides: by its URL policy as config.json
   * says now, never to this server's own ports; a session's holds at most
   * its sessionLimits.connections at once.
   */
  egressOptions(owner: string): EgressOptions {
    const session = owner.startsWith(SESSION_PROFILE_PREFIX);
    const policy = session ? () => this.sessionPolicy(owner).urlPolicy : () => this.policy().urlPolicy;
    const maxConnections = session ? this.registry.config().sessionLimits.connections : undefined;
    return { owner, policy, forbiddenPorts: () => this.ownPorts, log: this.log, ...(maxConnections ? { maxConnections } : {}) };
  }

  /** A way out for a browser of this machine's network (egress/). */
  egressFor(owner: string): EgressEnvelope {
    return new EgressEnvelope(this.egressOptions(owner), this.ownPorts);
  }

  get defaultProfile(): string {
    return this.registry.config().defaultProfile;
  }

  /**
   * The driver for a profile (default: defaultProfile); browser routes get a
   * 503 when the browser is disabled. config.json is read once per call, so
   * hand edits apply on the next request.
   */
  driver(name?: string): ProfileDriver {
    const config = this.registry.config();
    // The name is judged first: a bad one is a 400 whatever the settings.
    const driver = (name && this.ephemeral(name)) || this.driverOf(this.registry.get(name ?? config.defaultProfile, config), config);
    if (!config.enabled) throw new DisabledError();
    this.idle.touch(driver.profile.name);
    return driver;
  }

  /** Like driver(), for status and management, which still answer when disabled. */
  peek(name?: string): ProfileDriver {
    const config = this.registry.config();
    return (name && this.ephemeral(name)) || this.driverOf(this.registry.get(name ?? config.defaultProfile, config), config);
  }

  /**
   * The secrets typed into a profile's browser (browser-secrets.ts), when
   * that browser has a driver here; never makes one or throws, since every
   * answer of every route asks (an ephemeral that is not yet handed over
   * counts: a spare's driver lives before its name answers).
   */
  secretsOf(name?: string): BrowserSecrets | undefined {
    const wanted = name ?? this.registry.config().defaultProfile;
    return (this.exposed.get(wanted) ?? this.ephemerals.get(wanted) ?? this.drivers.get(wanted))?.secrets;
  }

  /**
   * A managed browser of its own for one task (sessions/task-sessions.ts):
   * not in config.json, launched with this server's launch settings and held
   * to its policy. It answers on the routes only once exposed.
   */
  createEphemeral(profile: Profile, downloadsDir: string, envelope: LaunchEnvelope = this.egressFor(profile.name)): ProfileDriver {
    const browser = new ManagedBrowser(profile, launchSettings(this.registry.config()), this.log, envelope, true);
    const driver = new ProfileDriver(profile, new ManagedEndpoint(browser, this.served(profile.name)), downloadsDir, () => this.sessionPolicy(profile.name));
    this.ephemerals.set(profile.name, driver);
    return driver;
  }

  /** A task session's browser placed on a Selenium Grid; like createEphemeral otherwise (it answers once exposed). */
  createGridEphemeral(profile: Profile, grid: GridSettings, downloadsDir: string, existing?: GridPlacement): { driver: ProfileDriver; endpoint: GridEndpoint } {
    const endpoint = new GridEndpoint(grid, this.served(profile.name), existing);
    const driver = new ProfileDriver(profile, endpoint, downloadsDir, () => this.sessionPolicy(profile.name));
    this.ephemerals.set(profile.name, driver);
    return { driver, endpoint };
  }

  /** Where a CDP client reaches a profile: the relay's guarded endpoint, or (remote, attachOnly) the user's own door. */
  cdpUrlOf(driver: ProfileDriver): string {
    const endpoint = driver.endpoint;
    if (endpoint instanceof RemoteEndpoint) return endpoint.cdpUrl;
    if (driver.profile.driver === 'extension') return this.relay.cdpUrl;
    return driver.profile.driver === 'chrome' ? `${this.relay.cdpUrl}?profile=chrome` : this.served(driver.profile.name).url;
  }

  /**
   * The mux of a browser this server launched, for a CDP client of the relay's
   * `/cdp?profile=`. The driver's own connection (`forDriver`) only needs the
   * browser running; any other client first has the driver connected, so that
   * the URL policy (held at the browser level by the driver) is in place
   * before the client's first command, and the browser has a page (one
   * blank tab where it had none: clawd-browser starts its browsers with no
   * window, which costs a tab nobody uses).
   */
  async cdpMux(name: string, forDriver: boolean): Promise<BrowserMux> {
    const driver = forDriver ? (this.ephemerals.get(name) ?? this.drivers.get(name)) : this.driver(name);
    if (!driver) throw new NotFoundError(`No browser for profile ${name}`);
    const endpoint = driver.endpoint;
    if (!isMuxed(endpoint)) {
      const where =
        endpoint instanceof RemoteEndpoint
          ? `its own CDP is at ${endpoint.cdpUrl}`
          : endpoint instanceof ChromeEndpoint
            ? "its CDP is the relay's /cdp?profile=chrome, served by its own bridge"
            : "its CDP is the relay's /cdp without ?profile=";
      throw new BadRequestError(`Profile ${name} is not a browser clawd-browser launches: ${where}`);
    }
    if (!forDriver) {
      await driver.start();
      // A browser a person opens has a window: a CDP tool that lists pages (Chrome DevTools MCP) finds one to work in.
      await driver.ensurePage();
    }
    return endpoint.mux();
  }

  private served(name: string): { url: string; driverKey: string } {
    return { url: `${this.relay.cdpUrl}?profile=${name}`, driverKey: this.relay.driverKey };
  }

  /** Every route now answers for this ephemeral browser under its profile name (`session-<id>`). */
  expose(driver: ProfileDriver): void {
    this.exposed.set(driver.profile.name, driver);
    this.ended.delete(driver.profile.name);
  }

  /** Session `name`'s browser may reach these hosts though they are loopback or private (its opener's allowPrivate). */
  allowPrivate(name: string, hosts: string[]): void {
    if (hosts.length) this.privateHosts.set(name, hosts);
  }

  /** Stops an ephemeral browser and forgets it; later calls on its name get `ended` (when it was exposed). */
  async release(driver: ProfileDriver, ended?: ClawdError): Promise<void> {
    const name = driver.profile.name;
    this.privateHosts.delete(name);
    if (this.exposed.get(name) === driver) this.exposed.delete(name);
    if (this.ephemerals.get(name) === driver) this.ephemerals.delete(name);
    if (ended) {
      this.ended.set(name, ended);
      if (this.ended.size > ENDED_REMEMBERED) this.ended.delete(this.ended.keys().next().value!);
    }
    await driver.stop().catch(() => {});
  }

  /** Why an ephemeral name no longer answers, if it ended here. */
  endedError(name: string): ClawdError | undefined {
    return this.ended.get(name);
  }

  private ephemeral(name: string): ProfileDriver | undefined {
    const exposed = this.exposed.get(name);
    if (exposed) return exposed;
    const ended = this.ended.get(name);
    if (ended) throw ended;
    return undefined;
  }

  async resetProfile(name: string): Promise<{ killed: number[] }> {
    const driver = this.peek(name);
    const endpoint = driver.endpoint;
    if (!(endpoint instanceof ManagedEndpoint))
      throw new BadRequestError(
        `reset-profile applies to local (managed) profiles; ${name} is ${driver.profile.driver === 'clawd' ? 'attach-only (attachOnly is set)' : driver.profile.driver}`,
      );
    // Orphans first (reported), then our own browser, so the profile starts clean.
    const killed = await endpoint.browser.killOrphans();
    await driver.stop();
    return { killed };
  }

  /** Stops its browser and removes its user data (local profiles) before forgetting it. */
  async deleteProfile(name: string): Promise<Profile> {
    const profile = this.registry.get(name);
    if (profile.builtIn) this.registry.remove(name); // throws: built-ins stay
    await this.drivers.get(name)?.stop();
    this.drivers.delete(name);
    // Chromium's helper processes may write for a moment after the browser exits: retry.
    if (profile.userDataDir) rmSync(dirname(profile.userDataDir), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    return this.registry.remove(name);
  }

  /** Stops the managed browsers unused for `idleMs` (config idleStopMinutes); task sessions end by their ttl instead. */
  sweepIdle(idleMs: number): Promise<string[]> {
    return this.idle.sweep(
      this.runningManaged().map((driver) => ({ name: driver.profile.name, stop: () => driver.stop() })),
      idleMs,
    );
  }

  /** Whether any browser this server launched for a profile (not a task session's, not a spare) runs. */
  get managedRunning(): boolean {
    return this.runningManaged().length > 0;
  }

  /** The profiles' drivers whose browser this server launched and is running (task sessions' and spares' are not here). */
  private runningManaged(): ProfileDriver[] {
    return [...this.drivers.values()].filter((driver) => driver.endpoint instanceof ManagedEndpoint && driver.endpoint.browser.running);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.drivers.values()].map((driver) => driver.stop().catch(() => {})));
  }

  /** Before a managed browser launches: the cap on running ones (config maxRunningBrowsers), as a 429 naming them. */
  private async checkCapacity(launching: string): Promise<void> {
    const max = this.registry.config().maxRunningBrowsers;
    const running = this.runningManaged()
      .map((driver) => driver.profile.name)
      .filter((name) => name !== launching);
    if (running.length >= max)
      throw new TooManyError(
        `${running.length} managed browsers are running (${running.join(', ')}), the most allowed (config maxRunningBrowsers: ${max}): stop one first`,
        {
          running: running.join(','),
          max,
        },
      );
  }

  /** Asked before a download is kept (the service's confirm rules: a person's yes for an executable). */
  holdDownload: DownloadHold | undefined;

  /** What every driver of this server may do, from config.json (read when asked). */
  policy(): DriverPolicy {
    const current = this.registry.config();
    return {
      allowedUrlSchemes: current.allowedUrlSchemes,
      uploads: { dirs: current.uploadDirs ?? defaultUploadDirs(this.home), clawdHome: this.home },
      urlPolicy: current.urlPolicy,
      ...(this.holdDownload ? { holdDownload: this.holdDownload } : {}),
    };
  }

  /**
   * A task session's: config.json's urlPolicy, or public addresses only when
   * it sets none (SESSION_DEFAULT_POLICY), with the private hosts its opener
   * let session `name` reach.
   */
  sessionPolicy(name?: string): DriverPolicy {
    const policy = this.policy();
    const base = policy.urlPolicy ?? SESSION_DEFAULT_POLICY;
    const hosts = name === undefined ? undefined : this.privateHosts.get(name);
    return { ...policy, urlPolicy: hosts ? { ...base, private: [...base.private, ...hosts] } : base };
  }

  private driverOf(profile: Profile, config: Config): ProfileDriver {
    const existing = this.drivers.get(profile.name);
    if (existing) return existing;
    const driver = new ProfileDriver(profile, this.endpointFor(profile, config), join(this.home, 'downloads', profile.name), () => this.policy());
    this.drivers.set(profile.name, driver);
    return driver;
  }

  private endpointFor(profile: Profile, config: Config): BrowserEndpoint {
    switch (profile.driver) {
      case 'extension':
        return new ExtensionEndpoint(this.relay.bridge, this.relay.downloads, this.relay.cdpUrl, this.relay.token);
      case 'chrome':
        if (!this.relay.chrome) throw new UnavailableError('This server does not attach to your browser');
        return new ChromeEndpoint(this.relay.chrome, `${this.relay.cdpUrl}?profile=chrome`, this.relay.token);
      case 'remote':
        return new RemoteEndpoint(profile.cdpUrl!);
      case 'clawd':
        // attachOnly: the user runs this profile's browser, on its cdpPort; clawd-browser only connects.
        if (config.attachOnly) return new RemoteEndpoint(`http://127.0.0.1:${profile.cdpPort}`, `attachOnly is set for profile ${profile.name}`);
        return new ManagedEndpoint(
          new ManagedBrowser(profile, launchSettings(config), this.log, profile.jail ? this.jailFor(profile, config) : this.egressFor(profile.name)),
          this.served(profile.name),
          () => this.checkCapacity(profile.name),
        );
    }
  }

  /**
   * A jailed profile's envelope (config profiles.<name>.jail): a jail like a
   * task session's, kept across launches with the profile's data in it; where
   * the host cannot make one, the launch is refused with why, never run
   * unjailed in its place.
   */
  private jailFor(profile: Profile, config: Config): LaunchEnvelope {
    const host = jailHost();
    if ('unusable' in host) {
      const refusal = new UnavailableError(`Profile ${profile.name} asks for a jail (config profiles.${profile.name}.jail), and ${host.unusable}`);
      return { prepare: () => Promise.reject(refusal), release: async () => {} };
    }
    return new JailEnvelope({
      id: jailedProfileId(this.home, profile.name),
      host,
      limits: config.sessionLimits,
      egress: this.egressOptions(profile.name),
      keep: { dir: dirname(profile.userDataDir!) },
      onLimit: (why) => {
        this.log.warn(`the ${profile.name} browser ${why}: stopping it (the next use starts it again)`);
        void this.drivers
          .get(profile.name)
          ?.stop()
          .catch(() => {});
      },
    });
  }
}
