import { pairedWith } from '../../protocol/url-gate';
import { isNonce, newNonce, prove, verifyProof } from '../../protocol/link-auth';
import { encodeExtensionFrame, joinExtensionFrames, type RelayBatch, type RelayMessage } from '../../protocol/wire';
import { retryDelayMs } from './logic/backoff';
import type { Pairing } from './pairing';

/**
 * The WebSocket to the relay's /extension endpoint: reconnects with backoff
 * (1 s doubling to 30 s, with jitter) and pings every 20 s, which also keeps
 * the service worker alive while connected (Chrome 116+ counts WebSocket
 * traffic as activity).
 *
 * Nothing is sent or obeyed until the peer has proved it holds the extension
 * key (link-auth.ts): whatever listens on the relay's port while the relay is
 * down learns no secret, no tab, and gets no command run.
 *
 * Outgoing frames are batched under load: while other commands are still in
 * flight, a frame waits one task so the answers that are already queued
 * leave together in one WebSocket message. With nothing else in flight (a
 * client doing one thing at a time) it leaves at once.
 */
export type LinkState = 'unpaired' | 'connecting' | 'authenticating' | 'open' | 'waiting';

export interface LinkEvents {
  /** The relay proved the key; `proof` is ours, for the hello. */
  onOpen(proof: string): void;
  onMessage(message: RelayMessage): void;
  onClose(): void;
}

const PING_INTERVAL_MS = 20_000;
/** Close code for a peer that did not prove the extension key. */
const UNPROVEN_PEER = 4008;

export class RelayLink {
  state: LinkState = 'unpaired';
  lastError: string | undefined;
  private socket: WebSocket | undefined;
  private pairing: Pairing | undefined;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;

  private outbox: string[] = [];
  private flushPosted = false;
  private readonly flushChannel = new MessageChannel();

  constructor(
    private readonly events: LinkEvents,
    /** True while commands are in flight, i.e. more answers are coming. */
    private readonly busy: () => boolean,
  ) {
    this.flushChannel.port1.onmessage = () => this.flush();
  }

  get relayUrl(): string | undefined {
    return this.pairing?.relayUrl;
  }

  /** Adopts new pairing settings; reconnects if they changed. */
  configure(pairing: Pairing | undefined): void {
    // The clawd-browser paired with: its own pages are never shared (url-gate.ts).
    pairedWith(pairing?.relayUrl);
    const same = pairing && this.pairing && pairing.relayUrl === this.pairing.relayUrl && pairing.key === this.pairing.key;
    this.pairing = pairing;
    if (same) return this.connectSoon();
    this.drop();
    this.attempt = 0;
    if (pairing) this.connect();
    else this.state = 'unpaired';
  }

  /** Connects now if we are only waiting for the next retry (toolbar click, alarm). */
  connectSoon(): void {
    if (this.state === 'waiting' || (this.state === 'unpaired' && this.pairing)) {
      clearTimeout(this.retryTimer);
      this.connect();
    }
  }

  /** Drops any pending attempt and connects now (the relay was just started). */
  retryNow(): void {
    if (!this.pairing || this.state === 'open') return;
    this.drop();
    this.attempt = 0;
    this.connect();
  }

  /** Queues an encoded frame; false (and dropped) when the link is not open (the relay has not proved the key). */
  send(frame: string): boolean {
    if (this.state !== 'open' || !this.socket) return false;
    this.outbox.push(frame);
    if (!this.busy()) this.flush();
    else if (!this.flushPosted) {
      this.flushPosted = true;
      this.flushChannel.port2.postMessage(null);
    }
    return true;
  }

  private flush(): void {
    this.flushPosted = false;
    if (!this.outbox.length) return;
    const frames = this.outbox;
    this.outbox = [];
    this.socket?.send(joinExtensionFrames(frames));
  }

  private connect(): void {
    const pairing = this.pairing;
    if (!pairing) return;
    this.state = 'connecting';
    // No secret in the URL: the key is proved inside the connection, never sent.
    const socket = new WebSocket(`${pairing.relayUrl}/extension`);
    this.socket = socket;
    const nonce = newNonce();
    let refusedPeer: string | undefined;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.state = 'authenticating';
      socket.send(encodeExtensionFrame({ type: 'auth', nonce }));
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      let batch: RelayBatch;
      try {
        batch = JSON.parse(event.data as string) as RelayBatch;
      } catch {
        console.warn('clawd-browser: relay sent a frame that is not JSON');
        return;
      }
      if (this.state === 'authenticating') {
        void this.checkRelay(socket, pairing, nonce, batch).then((problem) => {
          if (!problem || refusedPeer) return;
          refusedPeer = problem;
          // Browsers may close only with 1000 or 3000-4999: 4008 is our "policy violation".
          socket.close(UNPROVEN_PEER, 'the peer did not prove the extension key');
        });
        return;
      }
      if (this.state !== 'open') return;
      for (const message of Array.isArray(batch) ? batch : [batch]) {
        if (message && typeof message === 'object' && typeof message.type === 'string') this.events.onMessage(message);
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const wasOpen = this.state === 'open';
      this.drop();
      this.lastError =
        refusedPeer ??
        (event.code === 4002
          ? 'another browser with the clawd-browser extension is connected to this relay'
          : event.code === 1008
            ? `the relay refused the extension key (${event.reason || 'pair again'})`
            : wasOpen
              ? `relay closed the connection (${event.code})`
              : `cannot reach the relay at ${pairing.relayUrl}`);
      // A peer that cannot prove the key, or a live rival: no point hammering it.
      this.scheduleRetry(refusedPeer !== undefined || event.code === 4001 || event.code === 4002 || event.code === 1008);
      if (wasOpen) this.events.onClose();
    };
  }

  /** The relay's answer to our auth: undefined when it proved the key (the link is then open), else why not. */
  private async checkRelay(socket: WebSocket, pairing: Pairing, nonce: string, batch: RelayBatch): Promise<string | undefined> {
    const answer = (Array.isArray(batch) ? batch[0] : batch) as Partial<{ type: string; nonce: string; proof: string }> | undefined;
    const notRelay = `the server at ${pairing.relayUrl} did not prove the extension key: it is not your clawd-browser relay (or the key changed: pair again)`;
    if (answer?.type !== 'auth' || !isNonce(answer.nonce)) return notRelay;
    if (!(await verifyProof(pairing.key, 'relay', answer.proof, nonce))) return notRelay;
    if (this.socket !== socket || this.state !== 'authenticating') return undefined;
    const proof = await prove(pairing.key, 'extension', answer.nonce, nonce);
    if (this.socket !== socket) return undefined;
    this.state = 'open';
    this.attempt = 0;
    this.lastError = undefined;
    this.pingTimer = setInterval(() => this.send(JSON.stringify({ type: 'ping' })), PING_INTERVAL_MS);
    this.events.onOpen(proof);
    return undefined;
  }

  private scheduleRetry(slow: boolean): void {
    this.state = 'waiting';
    const delay = retryDelayMs(this.attempt, slow);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private drop(): void {
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    this.outbox = [];
    const socket = this.socket;
    this.socket = undefined;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000);
  }
}
