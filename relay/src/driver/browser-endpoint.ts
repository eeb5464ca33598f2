import type { DownloadRecord, EndpointState } from '../api/responses.js';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import type { DownloadLog } from './download-log.js';
import { UnavailableError } from '../errors.js';
import type { ManagedBrowser } from '../profiles/managed-browser.js';

/**
 * Where a profile's browser is, and whether reaching it means starting it.
 * These three classes are the only code that differs by profile kind; the
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
}

/** A Chromium this server launches (the clawd profile and created ones). */
export class ManagedEndpoint implements BrowserEndpoint {
  constructor(
    readonly browser: ManagedBrowser,
    /** Asked before a launch (not before attaching to a browser that already runs): the cap on running browsers. */
    private readonly beforeLaunch: () => Promise<void> = async () => {},
  ) {}
  async connect() {
    if (!(await this.browser.answers())) await this.beforeLaunch();
    return { url: await this.browser.ensureRunning() };
  }
  stop() {
    return this.browser.stop();
  }
  async describe() {
    return { running: await this.browser.answers(), pid: this.browser.pid };
  }
}

/** A browser elsewhere (cdpUrl): attach-only, never launched, never stopped. */
export class RemoteEndpoint implements BrowserEndpoint {
  constructor(private readonly cdpUrl: string) {}
  async connect() {
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
    if (this.bridge.extensionState === 'absent')
      throw new UnavailableError('The clawd-browser extension is not connected: open Chrome with the extension installed and paired');
    if (!this.bridge.sharedTabs().length)
      throw new UnavailableError('No tab attached: click the clawd-browser toolbar button on a tab to share it');
    return { url: this.cdpUrl, headers: { authorization: `Bearer ${this.token}` } };
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
