import type { DownloadRecord, EndpointState } from '../api/responses.js';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import type { ChromeAttachment } from '../attach/chrome-attachment.js';
import type { DownloadLog } from './network/download-log.js';
import { UnavailableError } from '../errors.js';
import { BrowserMux } from '../bridge/browser-mux.js';
import type { BrowserPipe } from '../profiles/browser-pipe.js';
import type { CdpChannel } from '../profiles/grid-session.js';
import type { BrowserVersion, ManagedBrowser } from '../profiles/managed-browser.js';
import type { EgressFailureReason } from '../profiles/launch-envelope.js';

/**
 * Where a profile's browser is, and whether reaching it means starting it.
 * These classes (and grid-endpoint.ts) are the only code that differs by profile kind; the
 * driver and the routes above them are the same for all.
 */
export interface BrowserEndpoint {
  /** A CDP URL for connectOverCDP, starting the browser if that is ours to do. */
  connect(): Promise<{ url: string; headers?: Record<string, string> }>;
  /** Stops what we started (a managed browser). Attach-only endpoints have nothing to stop. */
  stop(): Promise<void>;
  /** What `GET /` reports beyond the driver's own state. */
  describe(): Promise<EndpointState>;
  /** Downloads seen outside CDP (the extension watches chrome.downloads); none for others. */
  downloads?(): DownloadRecord[];
  /** A browser behind our egress proxy: why it failed a connection to `host` since `since`, if it did. */
  egressFailure?(host: string, since: number): EgressFailureReason | undefined;
  /** Throws why the browser behind a live connection cannot be used now (the person's Chrome quit); none for others. */
  ready?(): Promise<void>;
  /**
   * A person's browser that is reachable but lends no tab yet: what to do about it (a normal state, so a
   * tab list is empty rather than an error); undefined when tabs are lent. Throws what is wrong instead
   * (the extension not connected, Chrome not attached or asking). Only a person's browser has it.
   */
  nothingLent?(): Promise<string | undefined>;
}

/** What a tab list of a person's browser says while nothing is lent yet. */
export const NOTHING_SHARED = 'No tab attached: click the clawd-browser toolbar button on a tab to share it';
export const NOTHING_LENT = "No tab is lent: the person lends tabs in clawd-browser's picker (`clawd-browser chrome pick` opens it in their Chrome)";

/** A browser whose one CDP connection is ours and is shared out through the relay (launched here, or placed on a Grid). */
export interface MuxedEndpoint extends BrowserEndpoint {
  /** Its mux, starting (or placing) the browser when it has none. */
  mux(): Promise<BrowserMux>;
}

export function isMuxed(endpoint: BrowserEndpoint): endpoint is MuxedEndpoint {
  return 'mux' in endpoint;
}

/** A mux over one CDP channel (a pipe, the Grid's se:cdp socket): clients are told why when it closes. */
export function muxOver(channel: CdpChannel, version: BrowserVersion | undefined): BrowserMux {
  const mux = new BrowserMux((message) => channel.send(message), version);
  channel.onmessage = (message) => mux.fromBrowser(message);
  channel.onclose = (reason) => mux.close(`the browser went away (${reason})`);
  return mux;
}

/**
 * A Chromium this server launches (the clawd profile, created ones, task
 * sessions). It has no port: its pipe is multiplexed (bridge/browser-mux.ts)
 * and served at the relay's `/cdp?profile=<name>`, to the driver (with a key
 * only this process holds) as to every other client (with the token or the
 * session's key).
 */
export class ManagedEndpoint implements MuxedEndpoint {
  private current: { pipe: BrowserPipe; mux: BrowserMux } | undefined;

  constructor(
    readonly browser: ManagedBrowser,
    /** The relay's address for this profile's CDP, and the driver's own key for it. */
    private readonly served: { url: string; driverKey: string },
    /** Asked before a launch: the cap on running browsers. */
    private readonly beforeLaunch: () => Promise<void> = async () => {},
  ) {}

  async connect() {
    await this.mux();
    return { url: this.served.url, headers: { authorization: `Bearer ${this.served.driverKey}` } };
  }

  /** The browser's mux, launching the browser when it is not running. */
  async mux(): Promise<BrowserMux> {
    if (!this.browser.running) await this.beforeLaunch();
    const pipe = await this.browser.ensureRunning();
    if (this.current?.pipe === pipe) return this.current.mux;
    const mux = muxOver(pipe, this.browser.version);
    this.current = { pipe, mux };
    return mux;
  }

  /** How many CDP clients it has now, the driver's connection included. */
  get clientCount(): number {
    return this.browser.running ? (this.current?.mux.clientCount ?? 0) : 0;
  }

  async stop() {
    this.current?.mux.close('the browser was stopped');
    this.current = undefined;
    await this.browser.stop();
  }

  async describe() {
    return { running: this.browser.running, pid: this.browser.pid };
  }

  egressFailure(host: string, since: number): EgressFailureReason | undefined {
    return this.browser.egressFailure(host, since);
  }
}

/**
 * A browser the user runs (a remote profile's cdpUrl, or a managed profile's
 * cdpPort under attachOnly): the user's own door, never launched, never stopped.
 */
export class RemoteEndpoint implements BrowserEndpoint {
  constructor(
    readonly cdpUrl: string,
    /** Why the browser must already be there, for the error when it is not. */
    private readonly why?: string,
  ) {}
  async connect() {
    if (
      this.why &&
      !(await fetch(`${this.cdpUrl}/json/version`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      ))
    )
      throw new UnavailableError(`${this.why} and no browser answers on ${this.cdpUrl}`);
    return { url: this.cdpUrl };
  }
  async stop() {}
  async describe() {
    return {};
  }
}

/** The user's own browser, through the extension relay in this process. */
export class ExtensionEndpoint implements BrowserEndpoint {
  constructor(
    private readonly bridge: CdpBridge,
    private readonly downloadLog: DownloadLog,
    private readonly cdpUrl: string,
    private readonly token: string,
  ) {}
  async connect() {
    if ((await this.nothingLent()) !== undefined) throw new UnavailableError(NOTHING_SHARED);
    return { url: this.cdpUrl, headers: { authorization: `Bearer ${this.token}` } };
  }
  async nothingLent() {
    if (this.bridge.extensionState === 'absent')
      throw new UnavailableError('The clawd-browser extension is not connected: open Chrome with the extension installed and paired');
    return this.bridge.sharedTabs().length ? undefined : NOTHING_SHARED;
  }
  async stop() {}
  async describe() {
    return { running: this.bridge.extensionState === 'connected', extension: this.bridge.extensionState, attachedTabs: this.bridge.sharedTabs().length };
  }
  /** The user's Chrome saves into the user's download folder; the extension reports where. */
  downloads(): DownloadRecord[] {
    return this.downloadLog.all().map((download) => ({
      targetId: download.targetId,
      url: download.url,
      path: download.filename || undefined,
      state: download.state === 'interrupted' ? 'failed' : download.state,
      ...(download.error ? { error: download.error } : {}),
    }));
  }
}

/** The person's own Chrome, attached through its remote-debugging consent: the relay's bridge for it holds the lent tabs. */
export interface AttachedChrome {
  bridge: CdpBridge;
  attachment: ChromeAttachment;
  downloads: DownloadLog;
}

/** How long a request waits for an attach to settle before it answers with the state (Chrome asking the person, say). */
const ATTACH_SETTLE_MS = 3_000;

/** The `chrome` profile: the tabs a person lent from their own running Chrome, through the relay's `/cdp?profile=chrome`. */
export class ChromeEndpoint implements BrowserEndpoint {
  constructor(
    private readonly chrome: AttachedChrome,
    private readonly cdpUrl: string,
    private readonly token: string,
  ) {}
  async connect() {
    if ((await this.nothingLent()) !== undefined) throw new UnavailableError(NOTHING_LENT);
    return { url: this.cdpUrl, headers: { authorization: `Bearer ${this.token}` } };
  }
  async nothingLent() {
    await this.chrome.attachment.whenAttached(ATTACH_SETTLE_MS);
    return this.chrome.bridge.sharedTabs().length ? undefined : NOTHING_LENT;
  }
  async ready(): Promise<void> {
    await this.chrome.attachment.whenAttached(ATTACH_SETTLE_MS);
  }
  /** Nothing of the person's browser is stopped: `POST /chrome/detach` lets go of it. */
  async stop() {}
  async describe() {
    const chrome = this.chrome.attachment.status();
    return { running: chrome.state === 'attached', attachedTabs: this.chrome.bridge.sharedTabs().length, chrome };
  }
  downloads(): DownloadRecord[] {
    return this.chrome.downloads.all().map((download) => ({
      targetId: download.targetId,
      url: download.url,
      path: download.filename || undefined,
      state: download.state === 'interrupted' ? 'failed' : download.state,
    }));
  }
}

/** Whether a profile of this kind is a person's own browser behind the relay's bridge (no browser target; their tabs only). */
export function isPersonsBrowser(driver: string): boolean {
  return driver === 'extension' || driver === 'chrome';
}
