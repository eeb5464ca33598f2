import type { Protocol } from 'devtools-protocol';
import type { SharedDownload } from '../../../protocol/wire.js';

/**
 * The downloads a lent tab's page starts, from Chrome's own download events
 * (the behaviour left as the person set it, events on: chrome-attachment.ts),
 * reported on the wire as the extension reports chrome.downloads. A download
 * belongs to a lent tab when its main frame started it (a page target's id is
 * its main frame's); nothing of the person's other downloads is kept.
 */

/** Downloads followed at once; beyond, the oldest is forgotten (one that never ends). */
const FOLLOWED = 200;

interface Followed {
  tabId: number;
  /** The wire's number for it. */
  id: number;
  url: string;
  suggestedFilename: string;
}

export class LentDownloads {
  private readonly followed = new Map<string, Followed>();
  private nextId = 1;

  constructor(
    /** The lent tab whose page target (main frame) this is, if any. */
    private readonly tabOfFrame: (frameId: string) => number | undefined,
    /** Whether the tab is still lent. */
    private readonly lent: (tabId: number) => boolean,
    private readonly report: (tabId: number, download: SharedDownload) => void,
  ) {}

  willBegin(event: Protocol.Browser.DownloadWillBeginEvent): void {
    const tabId = this.tabOfFrame(event.frameId);
    if (tabId === undefined) return;
    this.followed.set(event.guid, { tabId, id: this.nextId++, url: event.url, suggestedFilename: event.suggestedFilename });
    while (this.followed.size > FOLLOWED) this.followed.delete(this.followed.keys().next().value!);
  }

  progress(event: Protocol.Browser.DownloadProgressEvent): void {
    const download = this.followed.get(event.guid);
    if (!download) return;
    if (event.state !== 'inProgress') this.followed.delete(event.guid);
    if (!this.lent(download.tabId)) return;
    const state = event.state === 'inProgress' ? 'in_progress' : event.state === 'completed' ? 'complete' : 'interrupted';
    this.report(download.tabId, {
      id: download.id,
      url: download.url,
      filename: event.filePath ?? '',
      suggestedFilename: download.suggestedFilename,
      state,
      bytesReceived: event.receivedBytes,
      totalBytes: event.totalBytes,
    });
  }
}
