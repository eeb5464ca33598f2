import type { SharedDownload } from '../../protocol/wire';
import { downloadOwner } from './logic/ownership';
import type { SharedTabs } from './shared-tabs';

/**
 * chrome.debugger gives an extension no download events (Browser.* is not
 * available to it), so downloads are watched here and reported for the tab
 * that started them. Only downloads whose referrer is a shared tab's page
 * are reported: the relay learns nothing of the user's other downloads.
 */
export function watchDownloads(shared: SharedTabs, report: (tabId: number, download: SharedDownload) => void): void {
  const owners = new Map<number, number>(); // download id -> tab id
  const suggested = new Map<number, string>(); // download id -> the site's name for it

  // Chrome asks for a name before it makes the site's one unique in the
  // folder: that is the name a CDP client is told. Our answer is no answer
  // (suggest() with nothing), so the download is named as it would be anyway.
  chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
    if (owners.has(item.id)) suggested.set(item.id, item.filename);
    suggest();
  });

  chrome.downloads.onCreated.addListener((item) => {
    const owner = downloadOwner(shared.list(), item.referrer);
    if (owner === undefined) return;
    owners.set(item.id, owner);
    report(owner, describe(item, suggested.get(item.id)));
  });

  chrome.downloads.onChanged.addListener((delta) => {
    const owner = owners.get(delta.id);
    if (owner === undefined) return;
    void chrome.downloads.search({ id: delta.id }).then(([item]) => {
      if (!item) return;
      report(owner, describe(item, suggested.get(item.id)));
      if (item.state !== 'in_progress') {
        owners.delete(delta.id);
        suggested.delete(delta.id);
      }
    });
  });
}

function describe(item: chrome.downloads.DownloadItem, suggestedFilename: string | undefined): SharedDownload {
  return {
    id: item.id,
    url: item.finalUrl || item.url,
    filename: item.filename,
    ...(suggestedFilename ? { suggestedFilename } : {}),
    state: item.state as SharedDownload['state'],
    bytesReceived: item.bytesReceived,
    totalBytes: item.totalBytes,
    ...(item.error ? { error: item.error } : {}),
  };
}
