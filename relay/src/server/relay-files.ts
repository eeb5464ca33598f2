import { copyFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, resolve as resolvePath, sep } from 'node:path';
import type { CdpBridge } from '../bridge/cdp-bridge.js';
import { readUploads, type UploadPolicy } from '../driver/acts/uploads.js';
import type { Logger } from '../log.js';
import type { Dispatch } from './relay-dispatch.js';

/**
 * The file work the bridge asks of the relay (it does no I/O itself):
 * copying a finished download for a client, reading the files of an upload.
 * Each hands its result back to the bridge.
 */

export interface RelayFilesOptions {
  bridge: CdpBridge;
  log: Logger;
  /** Routes what the bridge emits (relay-server.ts). */
  dispatch: Dispatch;
  /** Where DOM.setFileInputFiles may read files from (config uploadDirs); none: uploads by path are refused. */
  uploadPolicy?: () => UploadPolicy;
}

export class RelayFiles {
  constructor(private readonly options: RelayFilesOptions) {}

  /**
   * A finished download, copied where an allowAndName client expects it. Only
   * into the system temp dir (where Playwright keeps its artifacts): a client
   * does not get to write into other folders of this machine.
   */
  async copyDownload(requestId: number, from: string, dir: string, name: string): Promise<void> {
    const { bridge, log, dispatch } = this.options;
    let ok = false;
    try {
      const target = resolvePath(dir, basename(name));
      const temp = await realpath(tmpdir());
      const realDir = await realpath(dir);
      if (realDir.startsWith(temp + sep) && from) {
        await copyFile(from, target);
        ok = true;
      } else log.warn(`download not copied: ${dir} is outside the system temp dir`);
    } catch (error) {
      log.warn(`download not copied: ${(error as Error).message}`);
    }
    dispatch(bridge.downloadCopied(requestId, ok));
  }

  /** DOM.setFileInputFiles through the relay: files read under the upload-folder rule, then handed back to the bridge. */
  async readForUpload(requestId: number, paths: string[]): Promise<void> {
    const { bridge, dispatch } = this.options;
    let result: { files: Array<{ name: string; mimeType: string; base64: string }> } | { error: string };
    const policy = this.options.uploadPolicy?.();
    if (!policy) result = { error: 'this relay has no upload folders (run it with clawd-browser serve)' };
    else {
      try {
        const files = await readUploads(paths, policy);
        result = { files: files.map((file) => ({ name: file.name, mimeType: file.mimeType, base64: file.buffer.toString('base64') })) };
      } catch (error) {
        result = { error: (error as Error).message };
      }
    }
    dispatch(bridge.filesRead(requestId, result));
  }
}
