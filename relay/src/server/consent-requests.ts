import type { CdpBridge } from '../bridge/cdp-bridge.js';
import { UnavailableError } from '../errors.js';
import type { Dispatch } from './relay-dispatch.js';

/**
 * Cookie-saving consent, asked of the user in the extension's own page: a
 * `consentRequest` frame goes to the extension, and its answer comes back
 * from the bridge (Outbound `consent`).
 */

interface WaitingConsent {
  resolve: (domains: string[]) => void;
  timer: NodeJS.Timeout;
  asked: string[];
}

export class ConsentRequests {
  /** Consent requests the extension has not answered yet. */
  private readonly waiting = new Map<number, WaitingConsent>();
  private nextId = 1;

  constructor(
    private readonly bridge: CdpBridge,
    /** Routes what the bridge emits (relay-server.ts); the request goes out as an `extension` message. */
    private readonly dispatch: Dispatch,
  ) {}

  /**
   * Asks which of `domains` may have their cookies saved for `tenant`;
   * resolves with those allowed (none if refused, closed or unanswered in time).
   */
  ask(tenant: string, domains: string[], timeoutMs: number): Promise<string[]> {
    if (this.bridge.extensionState !== 'connected')
      return Promise.reject(new UnavailableError('The clawd-browser extension is not connected: it is where you confirm which cookies may be saved'));
    const id = this.nextId++;
    return new Promise<string[]>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve([]);
      }, timeoutMs);
      this.waiting.set(id, { resolve, timer, asked: domains });
      this.dispatch([{ to: 'extension', data: JSON.stringify({ type: 'consentRequest', id, tenant, domains }) }]);
    });
  }

  /** The user's answer (Outbound `consent`): only domains that were asked count. */
  answered(id: number, allowed: boolean, domains: string[]): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (waiting) {
      clearTimeout(waiting.timer);
      waiting.resolve(allowed ? domains.filter((domain) => waiting.asked.includes(domain)) : []);
    }
  }
}
