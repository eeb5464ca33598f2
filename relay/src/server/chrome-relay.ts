import { homedir } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ChromeAttachment, type ChromeAttachmentOptions } from '../attach/chrome-attachment.js';
import { CdpBridge, type PeerWords } from '../bridge/cdp-bridge.js';
import { currentPlatform } from '../config/platform.js';
import { DownloadLog } from '../driver/network/download-log.js';
import type { UploadPolicy } from '../driver/acts/uploads.js';
import type { Logger } from '../log.js';
import type { UrlPolicy } from '../runtime/url-policy.js';
import { CdpClients } from './cdp-clients.js';
import { type Dispatch, EndOfTurnFlush } from './relay-dispatch.js';
import { RelayFiles } from './relay-files.js';
import { RelayHttpRoutes } from './relay-http.js';
import { checkRequest, type GuardOptions, refusal } from './request-guard.js';

/**
 * The `chrome` profile on the relay: the person's own Chrome, attached
 * through its remote-debugging consent (attach/). It gets a CdpBridge of its
 * own, the same as the extension's (the browser emulation, method policy,
 * cookie scope, URL gate, Target model), with the attachment as the
 * bridge's extension side. Its clients connect at `/cdp?profile=chrome`
 * (discovery at `/json/version?profile=chrome`), behind the same guard as
 * every other client of the relay.
 */

export const CHROME_PROFILE = 'chrome';

const CHROME_WORDS: PeerWords = {
  name: 'your browser',
  notConnected: 'clawd-browser is not attached to your browser: attach it (`clawd-browser chrome attach`) and allow remote debugging when Chrome asks',
  noTab: "No tab is lent: the person lends tabs in clawd-browser's picker (`clawd-browser chrome pick` opens it in their Chrome)",
  oneContext: "The chrome profile is the person's own browser: it has one browser context and cannot create others",
};

/** How long a client's connection waits for an attach to settle (a browser that asks nobody is attached by then). */
const ATTACH_SETTLE_MS = 3_000;
const EXPIRY_SWEEP_MS = 10_000;

export interface ChromeRelayOptions {
  token: string;
  guard: GuardOptions;
  host: string;
  port: () => number;
  ownPorts: () => readonly number[];
  log: Logger;
  settings: ChromeAttachmentOptions['settings'];
  allowedUrlSchemes?: string[];
  urlPolicy?: () => UrlPolicy | undefined;
  uploadPolicy?: () => UploadPolicy;
  pendingTimeoutMs?: number;
  maxMessageBytes: number;
  maxBufferedBytes: number;
}

export class ChromeRelay {
  readonly bridge: CdpBridge;
  readonly attachment: ChromeAttachment;
  /** Downloads of lent tabs, where the person's Chrome saved them. */
  readonly downloads = new DownloadLog();
  private readonly clients: CdpClients;
  private readonly routes: RelayHttpRoutes;
  private readonly expiry: NodeJS.Timeout;
  /** Frames of the attachment's, joined and handed to the bridge once per turn. */
  private frames: string[] = [];
  private readonly framesFlush = new EndOfTurnFlush(() => this.flushFrames());

  constructor(options: ChromeRelayOptions) {
    const { log } = options;
    this.guard = options.guard;
    this.bridge = new CdpBridge({
      allowedUrlSchemes: options.allowedUrlSchemes,
      urlPolicy: options.urlPolicy,
      pendingTimeoutMs: options.pendingTimeoutMs,
      ownPorts: options.ownPorts,
      words: CHROME_WORDS,
    });
    this.attachment = new ChromeAttachment({ settings: options.settings, platform: currentPlatform(), home: homedir(), ownPorts: options.ownPorts, log });
    const endOfTurn = new EndOfTurnFlush(() => this.clients.uncorkAll());
    const dispatch: Dispatch = (outbound) => {
      for (const message of outbound) {
        if (message.to === 'extension') this.attachment.fromRelay(message.data);
        else if (message.to === 'client') this.clients.deliver(message.clientId, message.data);
        else if (message.to === 'closeClient') this.clients.closeClient(message.clientId, message.reason);
        else if (message.to === 'download') this.downloads.record(message.targetId, message.download);
        else if (message.to === 'copyDownload') void files.copyDownload(message.requestId, message.from, message.dir, message.name);
        else if (message.to === 'readFiles') void files.readForUpload(message.requestId, message.paths);
        // `consent` comes only from the extension's own pages.
      }
    };
    this.dispatch = dispatch;
    this.clients = new CdpClients({
      bridge: this.bridge,
      log,
      dispatch,
      endOfTurn,
      maxMessageBytes: options.maxMessageBytes,
      maxBufferedBytes: options.maxBufferedBytes,
    });
    const files = new RelayFiles({ bridge: this.bridge, log, dispatch, uploadPolicy: options.uploadPolicy });
    this.routes = new RelayHttpRoutes({
      bridge: this.bridge,
      clients: this.clients,
      guard: options.guard,
      token: options.token,
      host: options.host,
      port: options.port,
      profile: CHROME_PROFILE,
    });
    this.attachment.connectRelay({
      connected: () => this.bridge.extensionConnected(),
      frame: (frame) => {
        this.frames.push(frame);
        this.framesFlush.schedule();
      },
      disconnected: () => {
        // What the attachment said last (tabs taken back) reaches the bridge before the link goes.
        this.flushFrames();
        dispatch(this.bridge.extensionDisconnected());
        dispatch(this.bridge.expireGrace());
      },
    });
    this.expiry = setInterval(() => dispatch(this.bridge.expirePending()), EXPIRY_SWEEP_MS);
    this.expiry.unref();
  }

  private readonly dispatch: Dispatch;
  private readonly guard: GuardOptions;

  /** This server listens on other ports now: the lent tabs hold them offline too (bridge/own-origins.ts). */
  ownPortsChanged(): void {
    this.dispatch(this.bridge.ownPortsChanged());
  }

  /** CDP clients of the lent tabs connected now. */
  get socketCount(): number {
    return this.clients.socketCount;
  }

  /** A `/cdp?profile=chrome` upgrade the router admitted: once attached (or refused with why). */
  async accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    await this.attachment.whenAttached(ATTACH_SETTLE_MS);
    if (!socket.destroyed) this.clients.accept(request, socket, head);
  }

  /** `/json/*?profile=chrome`: the guard first, so that no caller without the token makes Chrome ask the person anything. */
  async handleHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const verdict = checkRequest(request, this.guard);
    if (!verdict.ok) throw refusal(verdict);
    if (!verdict.session && !verdict.driver) await this.attachment.whenAttached(ATTACH_SETTLE_MS);
    await this.routes.handle(request, response);
  }

  close(): void {
    clearInterval(this.expiry);
    this.attachment.detach();
    this.clients.close();
  }

  private flushFrames(): void {
    if (!this.frames.length) return;
    const joined = this.frames.join('\n');
    this.frames = [];
    this.dispatch(this.bridge.handleExtensionMessage(Buffer.from(joined)));
  }
}
