import { existsSync, mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Download } from 'playwright-core';
import type { DownloadRecord } from '../../api/responses.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * The downloads Playwright sees a profile's tabs start, saved under the
 * profile's downloads folder by their suggested names, and listed for
 * `GET /downloads` (newest last, the latest MAX_RECORDS). A download a
 * confirm rule names (an executable's type) is held, unsaved, until `hold`
 * says keep it (a person's yes: service/confirm-service.ts), else discarded.
 */

/** Decides whether a download is kept: true to save it. Resolves when the decision is made (a person may be asked). */
export type DownloadHold = (download: {
  profile: string;
  tab: DriverTab;
  fileName: string;
  url: string;
}) => Promise<{ keep: boolean; rule?: string; why?: string }>;

const MAX_RECORDS = 200;

export class DownloadSaver {
  private readonly records: DownloadRecord[] = [];

  /** `dir`: where downloads are saved ($CLAWD_HOME/downloads/<profile>); `hold`, asked first, when there is one. */
  constructor(
    private readonly dir: string,
    private readonly profile: string,
    private readonly hold: () => DownloadHold | undefined = () => undefined,
  ) {}

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
    const decided = await this.hold()?.({ profile: this.profile, tab, fileName: download.suggestedFilename(), url: download.url() }).catch((error: Error) => ({
      keep: false,
      why: error.message,
    }));
    if (decided && !decided.keep) {
      // Never saved: Playwright's own copy goes too.
      await download.delete().catch(() => {});
      record.state = 'failed';
      record.error = `not kept: ${decided.why ?? 'a person did not say yes'}`;
      tab.noteEvent(`download not kept: ${download.suggestedFilename()} (${record.error})`);
      return;
    }
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
