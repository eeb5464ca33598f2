import type { Protocol } from 'devtools-protocol';
import { z } from 'zod';
import type { SharedDownload } from '../../../protocol/wire.js';
import type { BridgeCore } from './bridge-core.js';
import type { BrowserSession } from './client-sessions.js';
import type { SharedTabRecord } from './tab-registry.js';

/**
 * Download events for unmodified clients. chrome.debugger has no browser
 * target, so Chrome's `Browser.downloadWillBegin` / `downloadProgress` never
 * reach the relay; the extension reports downloads (chrome.downloads) and
 * the relay makes those events for every browser session that asked for
 * them (`Browser.setDownloadBehavior` with eventsEnabled). A client that
 * chose `allowAndName` (Playwright) finds the file where it expects it, at
 * `<downloadPath>/<guid>`: the server copies it there from where the user's
 * browser saved it, before the completed event.
 */

export const DownloadBehaviorParams = z.object({
  behavior: z.enum(['deny', 'allow', 'allowAndName', 'default']),
  browserContextId: z.string().optional(),
  downloadPath: z.string().optional(),
  eventsEnabled: z.boolean().optional(),
});
export type DownloadBehavior = z.infer<typeof DownloadBehaviorParams>;

interface Tracked {
  guid: string;
  /** Keys of the browser sessions told of its beginning. */
  announced: Set<string>;
  finished: boolean;
}

export class DownloadEvents {
  private readonly tracked = new Map<number, Tracked>();
  private readonly copies = new Map<number, { session: BrowserSession; guid: string; totalBytes: number }>();
  private nextCopy = 1;

  constructor(private readonly core: BridgeCore) {}

  /** One report from the extension about a download in a shared tab. */
  report(tab: SharedTabRecord, download: SharedDownload): void {
    let tracked = this.tracked.get(download.id);
    if (!tracked) {
      tracked = { guid: `clawd-download-${download.id}-${tab.tabId}`, announced: new Set(), finished: false };
      this.tracked.set(download.id, tracked);
      while (this.tracked.size > 200) this.tracked.delete(this.tracked.keys().next().value!);
    }
    if (tracked.finished) return;
    // Until Chrome has chosen the file's name, there is nothing to announce yet.
    if (!download.filename && download.state === 'in_progress') return;
    // The name the site suggested, as the extension heard it before Chrome made it unique in the folder.
    const suggestedFilename = download.suggestedFilename || download.filename.split(/[\\/]/).pop() || 'download';
    for (const session of this.core.sessions.browserSessions()) {
      const behavior = session.downloads;
      if (!behavior?.eventsEnabled) continue;
      if (!tracked.announced.has(session.key)) {
        tracked.announced.add(session.key);
        // The main frame's id is its target's id in Chrome.
        this.core.out.emit(session, 'Browser.downloadWillBegin', { frameId: tab.targetId, guid: tracked.guid, url: download.url, suggestedFilename });
      }
      const progress = { guid: tracked.guid, totalBytes: download.totalBytes, receivedBytes: download.bytesReceived };
      if (download.state === 'in_progress') this.core.out.emit(session, 'Browser.downloadProgress', { ...progress, state: 'inProgress' });
      else if (download.state === 'interrupted') this.core.out.emit(session, 'Browser.downloadProgress', { ...progress, state: 'canceled' });
      else if (behavior.behavior === 'allowAndName' && behavior.downloadPath) {
        const requestId = this.nextCopy++;
        this.copies.set(requestId, { session, guid: tracked.guid, totalBytes: download.totalBytes });
        this.core.out.copyDownload(requestId, download.filename, behavior.downloadPath, tracked.guid);
      } else this.core.out.emit(session, 'Browser.downloadProgress', { ...progress, state: 'completed' });
    }
    if (download.state !== 'in_progress') tracked.finished = true;
  }

  /** The server copied the file for an allowAndName client (or could not): now it completes (or is canceled). */
  copied(requestId: number, ok: boolean): void {
    const copy = this.copies.get(requestId);
    this.copies.delete(requestId);
    if (!copy || copy.session.closed) return;
    const state: Protocol.Browser.DownloadProgressEvent['state'] = ok ? 'completed' : 'canceled';
    this.core.out.emit(copy.session, 'Browser.downloadProgress', { guid: copy.guid, totalBytes: copy.totalBytes, receivedBytes: copy.totalBytes, state });
  }
}
