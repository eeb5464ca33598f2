import type { ChromeStatus } from '../api/chrome-schemas.js';
import type { ChromeAttachment, PersonTab } from '../attach/chrome-attachment.js';

/**
 * The `chrome` profile's own work (spec §25), for the HTTP routes and the
 * CLI: attaching to the person's running Chrome and letting go of it,
 * opening the picker there, and what the person does in the picker. Using
 * the lent tabs is every other route's, through the profile's driver.
 */

/** How long opening the picker waits for an attach to settle. */
const ATTACH_SETTLE_MS = 3_000;

export class ChromeService {
  constructor(private readonly attachment: ChromeAttachment) {}

  status(): ChromeStatus {
    return this.attachment.status();
  }

  /** Attaches (Chrome asks the person), answering once settled or after `waitSeconds`, whichever is first. */
  async attach(waitSeconds: number, signal: AbortSignal): Promise<ChromeStatus> {
    const settled = this.attachment.attach().catch(() => {});
    await Promise.race([settled, pause(waitSeconds * 1000, signal)]);
    return this.status();
  }

  detach(): ChromeStatus {
    this.attachment.detach();
    return this.status();
  }

  /**
   * Brings the picker (a page under `pickers`, at its login's own path) to the front in the person's
   * Chrome, or opens it there at a one-time `link()` (which never goes back to the caller).
   */
  async openPicker(pickers: string, link: () => string): Promise<{ opened: true }> {
    await this.attachment.whenAttached(ATTACH_SETTLE_MS);
    await this.attachment.showPage((url) => url.startsWith(pickers) && !url.startsWith(`${pickers}login`), link);
    return { opened: true };
  }

  /** The person's tabs: for the picker's person alone. */
  async pickerTabs(): Promise<{ tabs: PersonTab[]; chrome: ChromeStatus }> {
    return { tabs: await this.attachment.personTabs(), chrome: this.status() };
  }

  /** The person lends a tab, or takes it back. */
  async lend(targetId: string, lent: boolean): Promise<{ tabs: PersonTab[]; chrome: ChromeStatus }> {
    if (lent) await this.attachment.lend(targetId);
    else this.attachment.unlend(targetId);
    return this.pickerTabs();
  }
}

/** Resolves after `ms`, or at once when the caller goes. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
