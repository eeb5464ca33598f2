import type { RelayMessage } from '../../protocol/wire';
import { showBadge } from './badge';

/**
 * An agent handed a shared tab to the person at this Chrome (spec §15): the
 * tab's badge reads YOU, its tooltip says what the agent asks, and a
 * notification says it too; clicking the notification opens the hand-off's
 * page, where the person answers (the tab itself is theirs to use). When the
 * hand-off ends, the notification goes and the badge is the tab's again.
 */

type HandoffMessage = Extract<RelayMessage, { type: 'handoff' }>;
type HandoffEnded = Extract<RelayMessage, { type: 'handoffEnded' }>;

/** A plain orange square: notifications need an icon, and the extension ships none. */
const ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR4nGN4UchFEmIY1TCqYfhqAACY8GMQEq60LAAAAABJRU5ErkJggg==';
const noticeId = (id: string) => `clawd-handoff-${id}`;

export class HandoffNotices {
  /** Each open hand-off's page, by notification id. */
  private readonly links = new Map<string, string>();

  constructor(private readonly restoreBadge: (tabId: number) => Promise<void>) {
    chrome.notifications.onClicked.addListener((notification) => {
      const link = this.links.get(notification);
      if (!link) return;
      void chrome.tabs.create({ url: link, active: true });
      void chrome.notifications.clear(notification);
    });
  }

  async show(message: HandoffMessage): Promise<void> {
    this.links.set(noticeId(message.id), message.link);
    await showBadge(message.tabId, { kind: 'handoff', why: `your agent asks you: ${message.reason} (answer from the notification)` });
    await chrome.notifications
      .create(noticeId(message.id), {
        type: 'basic',
        iconUrl: ICON,
        title: 'Your agent asks for your help',
        message: message.reason,
        contextMessage: 'Click to answer when you are done',
        requireInteraction: true,
        priority: 2,
      })
      .catch((error: Error) => console.warn(`clawd-browser: cannot show a notification: ${error.message}`));
  }

  async end(message: HandoffEnded): Promise<void> {
    this.links.delete(noticeId(message.id));
    await chrome.notifications.clear(noticeId(message.id)).catch(() => false);
    await this.restoreBadge(message.tabId);
  }
}
