import type { ConsentRequest } from './status';

/**
 * The person's consent to save cookies to the vault: the relay asks to save
 * the cookies of some domains, and the person is shown the extension's own
 * page (never a web page) with the tenant and the domains, and allows some,
 * all or none. Closing the page refuses. Pending requests live in
 * chrome.storage.session, so a restarted worker still knows them.
 */

type PendingConsents = Record<string, ConsentRequest & { tabId?: number }>;

export class VaultConsent {
  /** `answer` sends the person's answer to the relay. */
  constructor(private readonly answer: (id: number, allowed: boolean, domains: string[]) => void) {
    // Registered when the worker starts (top level), as Chrome needs to wake it for this.
    chrome.tabs.onRemoved.addListener((tabId) => {
      void (async () => {
        for (const asked of Object.values(await this.pending())) if (asked.tabId === tabId) await this.answered(asked.id, false, []);
      })();
    });
  }

  async ask(request: { id: number; tenant: string; domains: string[] }): Promise<void> {
    const tab = await chrome.tabs.create({ url: `${chrome.runtime.getURL('options.html')}#consent=${request.id}`, active: true });
    const pending = await this.pending();
    pending[request.id] = { id: request.id, tenant: request.tenant, domains: request.domains, tabId: tab.id };
    await chrome.storage.session.set({ consents: pending });
  }

  /** What the options page shows for a request, if it is still waiting. */
  async request(id: number): Promise<ConsentRequest | undefined> {
    const asked = (await this.pending())[id];
    return asked && { id: asked.id, tenant: asked.tenant, domains: asked.domains };
  }

  async answered(id: number, allowed: boolean, domains: string[]): Promise<void> {
    const pending = await this.pending();
    const asked = pending[id];
    if (!asked) return;
    delete pending[id];
    await chrome.storage.session.set({ consents: pending });
    // Only domains that were asked about can be allowed.
    const granted = allowed ? domains.filter((domain) => asked.domains.includes(domain)) : [];
    this.answer(id, allowed && granted.length > 0, granted);
    if (asked.tabId !== undefined) await chrome.tabs.remove(asked.tabId).catch(() => {});
  }

  private async pending(): Promise<PendingConsents> {
    return ((await chrome.storage.session.get('consents')).consents ?? {}) as PendingConsents;
  }
}
