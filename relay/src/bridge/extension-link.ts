import type { RelayCommand } from '../../../protocol/wire.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import type { Client } from './client-sessions.js';
import type { OutboundQueue } from './outbound.js';

/**
 * The bridge's side of the link to the extension: whether it is up, the
 * commands sent and not yet answered, and those held while it reconnects.
 *
 * One state, four values:
 * - `absent`: no extension and no tabs held; commands fail at once.
 * - `handshaking`: a socket proved the key; until its hello, commands queue.
 * - `connected`: the hello arrived; commands go out.
 * - `reconnecting`: the socket went; shared tabs are held through the grace
 *   period and commands queue.
 *
 * A command in flight when the socket went may or may not have reached
 * Chrome. It fails, unless it is repeatable (method-policy.ts): then it is
 * queued again, to run once the extension is back.
 */
export type LinkState = 'absent' | 'handshaking' | 'connected' | 'reconnecting';

/** What status pages and the control API report. */
export type ExtensionState = 'absent' | 'connected' | 'reconnecting';

/**
 * How the bridge names the far side of its link to a person, in the errors
 * clients read: the extension, or the person's Chrome attached through
 * remote debugging (attach/). Only the words differ; the bridge is the same.
 */
export interface PeerWords {
  /** Who holds the tabs, in a sentence: "the clawd-browser extension". */
  name: string;
  /** Nothing is connected and nothing is held. */
  notConnected: string;
  /** Connected, and no tab is shared. */
  noTab: string;
  /** New browser contexts are refused: why. */
  oneContext: string;
}

export const EXTENSION_WORDS: PeerWords = {
  name: 'the clawd-browser extension',
  notConnected: 'The clawd-browser extension is not connected: click its toolbar button on a tab to share it',
  noTab: 'No tab is shared: share a tab with the clawd-browser extension first',
  oneContext: "The extension profile is the user's own browser: it has one browser context and cannot create others",
};

export interface ExtensionLinkOptions {
  /** How errors name the far side. */
  words: PeerWords;
  /** Commands held while the extension reconnects; beyond this they fail. */
  maxQueuedCommands: number;
  /** Commands one client may have waiting for the extension; beyond this they fail at once. */
  maxPendingPerClient: number;
  /** A command the extension has not answered in this long fails (see settleExpired). */
  pendingTimeoutMs: number;
  now: () => number;
}

/**
 * `Work` is what the bridge will do with the answer; the link only needs to
 * know which client (if any) a command counts against.
 */
export class ExtensionLink<Work> {
  private linkState: LinkState = 'absent';
  private readonly pending = new Map<number, { work: Work; sentAt: number; data: string; repeatable: boolean }>();
  private readonly queue: string[] = [];
  private nextCommandId = 1;

  constructor(
    private readonly options: ExtensionLinkOptions,
    private readonly out: OutboundQueue,
    private readonly clientOf: (work: Work) => Client | undefined,
  ) {}

  get state(): LinkState {
    return this.linkState;
  }

  /** How errors name the far side of the link. */
  get words(): PeerWords {
    return this.options.words;
  }

  get isUp(): boolean {
    return this.linkState === 'connected';
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  get timeoutSeconds(): number {
    return Math.round(this.options.pendingTimeoutMs / 1000);
  }

  /** A socket proved the key; it must say hello before anything else. */
  opened(): void {
    this.linkState = 'handshaking';
  }

  /** The hello arrived: what was queued goes out, in order. */
  helloReceived(): void {
    this.linkState = 'connected';
    for (const data of this.queue.splice(0)) this.out.toExtension(data);
  }

  /**
   * The socket closed: the commands sent or queued are lost with it (`lost`,
   * settled, for the caller to fail), but for repeatable ones while tabs are
   * held (`repeated`), which queue again, in their order. Commands sent from
   * now on queue.
   */
  closed(holdingTabs: boolean): { lost: Work[]; repeated: Work[] } {
    this.linkState = holdingTabs ? 'reconnecting' : 'absent';
    this.queue.length = 0;
    if (!holdingTabs) return { lost: this.settleWhere(() => true), repeated: [] };
    const lost: Work[] = [];
    const repeated: Work[] = [];
    for (const [commandId, entry] of this.pending) {
      if (entry.repeatable) {
        this.queue.push(entry.data);
        repeated.push(entry.work);
      } else lost.push(this.settle(commandId)!);
    }
    return { lost, repeated };
  }

  /** The grace period ended. Returns false when the link came back (or never left) meanwhile. */
  graceExpired(): boolean {
    if (this.linkState !== 'reconnecting') return false;
    this.linkState = 'absent';
    this.queue.length = 0;
    return true;
  }

  /** Fails when there is no extension to send to (no link and nothing held). */
  require(): void {
    if (this.linkState === 'absent') throw new CdpFailure(CdpErrorCode.serverError, this.options.words.notConnected, 'unavailable');
  }

  /**
   * Sends now, or holds the command while the extension (re)connects. The one
   * place a command gets its id and its expiry stamp. `repeatable`: running it
   * twice does what running it once does (see closed()).
   */
  send(command: RelayCommand, work: Work, { repeatable = false }: { repeatable?: boolean } = {}): void {
    this.require();
    const client = this.clientOf(work);
    if (client && client.inFlight >= this.options.maxPendingPerClient)
      throw new CdpFailure(
        CdpErrorCode.serverError,
        `Too many commands in flight (${this.options.maxPendingPerClient}): wait for answers before sending more`,
        'unavailable',
      );
    if (!this.isUp && this.queue.length >= this.options.maxQueuedCommands)
      throw new CdpFailure(CdpErrorCode.serverError, `Too many commands queued while ${this.options.words.name} reconnects`, 'unavailable');
    command.id = this.nextCommandId++;
    const data = JSON.stringify(command);
    this.pending.set(command.id, { work, sentAt: this.options.now(), data, repeatable });
    if (client) client.inFlight++;
    if (this.isUp) this.out.toExtension(data);
    else this.queue.push(data);
  }

  /** Takes a command out of the pending map (answered, failed or expired). */
  settle(commandId: number): Work | undefined {
    const entry = this.pending.get(commandId);
    if (!entry) return undefined;
    this.pending.delete(commandId);
    const client = this.clientOf(entry.work);
    if (client) client.inFlight--;
    return entry.work;
  }

  /** Settles every pending command `predicate` picks; the caller fails them. */
  settleWhere(predicate: (work: Work) => boolean): Work[] {
    const settled: Work[] = [];
    for (const [commandId, entry] of this.pending) {
      if (predicate(entry.work)) settled.push(this.settle(commandId)!);
    }
    return settled;
  }

  /**
   * The commands the extension has not answered within pendingTimeoutMs (a
   * wedged worker, a lost frame), settled so no client waits forever and the
   * pending map cannot grow without bound.
   */
  settleExpired(): Work[] {
    const cutoff = this.options.now() - this.options.pendingTimeoutMs;
    const expired: Work[] = [];
    for (const [commandId, entry] of this.pending) {
      if (entry.sentAt < cutoff) expired.push(this.settle(commandId)!);
    }
    return expired;
  }
}
