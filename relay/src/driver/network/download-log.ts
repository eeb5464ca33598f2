import type { SharedDownload } from '../../../../protocol/wire.js';

const MAX_DOWNLOADS = 200;

/**
 * The downloads shared tabs of the user's browser started, as the extension
 * reports them (chrome.downloads), newest last and bounded. Not part of the
 * CDP model: the relay server fills it from the bridge's `download` output,
 * the extension profile's endpoint reads it.
 */
export class DownloadLog {
  private readonly byId = new Map<number, SharedDownload & { targetId: string }>();

  record(targetId: string, download: SharedDownload): void {
    // Re-inserted so that the newest change is last.
    this.byId.delete(download.id);
    this.byId.set(download.id, { ...download, targetId });
    while (this.byId.size > MAX_DOWNLOADS) this.byId.delete(this.byId.keys().next().value!);
  }

  all(): Array<SharedDownload & { targetId: string }> {
    return [...this.byId.values()].map((download) => ({ ...download }));
  }
}
