import { existsSync, mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Download } from 'playwright-core';
import type { DownloadRecord } from '../api/responses.js';
import type { DriverTab } from './driver-tab.js';

/**
 * The downloads Playwright sees a profile's tabs start, saved under the
 * profile's downloads folder by their suggested names, and listed for
 * `GET /downloads` (newest last, the latest MAX_RECORDS).
 */

const MAX_RECORDS = 200;

export class DownloadSaver {
  private readonly records: DownloadRecord[] = [];

  /** `dir`: where downloads are saved ($CLAWD_HOME/downloads/<profile>). */
  constructor(private readonly dir: string) {}

  /** What has been saved or is being saved, newest last. */
  list(): DownloadRecord[] {
    return [...this.records];
  }

  /** Saves every download the tab starts, and reports it with the tab's next action. */
  watch(tab: DriverTab): void {
    tab.page.on('download', (download) => {
      tab.noteEvent(`download started: ${download.suggestedFilename()} (GET /downloads says where it is)`);
      void this.save(tab, download);
    });
  }

  /** Keeps a download under the profile's downloads folder, by its suggested name. */
  private async save(tab: DriverTab, download: Download): Promise<void> {
    const record: DownloadRecord = { targetId: tab.knownTargetId, url: download.url(), state: 'in_progress' };
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records.shift();
    try {
      mkdirSync(this.dir, { recursive: true });
      record.path = uniquePath(this.dir, basename(download.suggestedFilename()) || 'download');
      await download.saveAs(record.path);
      record.state = 'complete';
    } catch (error) {
      record.state = 'failed';
      record.error = (error as Error).message.split('\n')[0];
    }
  }
}

/** report.txt, then report (1).txt, … */
function uniquePath(dir: string, name: string): string {
  const extension = extname(name);
  const stem = name.slice(0, name.length - extension.length);
  let candidate = join(dir, name);
  for (let n = 1; existsSync(candidate); n++) candidate = join(dir, `${stem} (${n})${extension}`);
  return candidate;
}
