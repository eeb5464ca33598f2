import type { ElementHandle, FileChooser, Page } from 'playwright-core';
import { NotFoundError, TimeoutError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';
import { ACTION_TIMEOUT_MS } from '../../api/limits.js';
import type { UploadFile } from './uploads.js';

/**
 * `POST /hooks/file-chooser`: files for a tab's upload (read and checked
 * before, uploads.ts), put straight into an input, or into the next file
 * chooser the page opens: on the agent's next click, or on a click on `ref`
 * made here.
 */

/** Sets the files on an `<input type=file>`: a ref of the tab's last snapshot, or a CSS selector. */
export async function setInputFiles(tab: DriverTab, input: { inputRef?: string; element?: string }, files: UploadFile[]): Promise<void> {
  const element = input.inputRef ? await tab.element(input.inputRef) : await elementBySelector(tab.page, input.element!);
  await element.setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
}

/**
 * Armed alone, the hook outlives the request: the agent's next click opens
 * the chooser, and the files go in then (or the hook lapses after `timeoutMs`).
 */
export function armFileChooser(tab: DriverTab, files: UploadFile[], timeoutMs: number): void {
  nextFileChooser(tab.page, timeoutMs)
    .then(
      (opened) => opened.setFiles(files),
      () => {},
    )
    .catch(() => {});
}

/**
 * Clicks `ref` and puts the files into the chooser it opens. Waiting on a
 * click, the hook goes with the request: a bad ref answers before anything
 * is armed, and a failed click or a caller gone disarms it.
 */
export async function uploadThroughChooser(tab: DriverTab, ref: string, files: UploadFile[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const button = await tab.element(ref);
  const disarm = new AbortController();
  const chooser = nextFileChooser(tab.page, timeoutMs, signal ? AbortSignal.any([signal, disarm.signal]) : disarm.signal);
  chooser.catch(() => {});
  try {
    await button.click({ timeout: ACTION_TIMEOUT_MS });
  } catch (error) {
    disarm.abort(error);
    throw error;
  }
  let opened: FileChooser;
  try {
    opened = await chooser;
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new TimeoutError(`No file chooser opened within ${timeoutMs} ms after clicking ${ref}`);
  }
  await opened.setFiles(files, { timeout: ACTION_TIMEOUT_MS });
}

async function elementBySelector(page: Page, selector: string): Promise<ElementHandle> {
  const element = await page.$(selector);
  if (!element) throw new NotFoundError(`No element matches ${JSON.stringify(selector)}`);
  return element;
}

/**
 * The tab's next file chooser, or a rejection after `timeoutMs`, on abort or
 * when the tab closes; the listeners and the timer go either way.
 */
function nextFileChooser(page: Page, timeoutMs: number, signal?: AbortSignal): Promise<FileChooser> {
  return new Promise<FileChooser>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      page.off('filechooser', onChooser);
      page.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const onChooser = (chooser: FileChooser) => {
      done();
      resolve(chooser);
    };
    const onAbort = () => {
      done();
      reject(signal!.reason);
    };
    const onClose = () => {
      done();
      reject(new NotFoundError('The tab closed before a file chooser opened'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new TimeoutError(`No file chooser opened within ${timeoutMs} ms`));
    }, timeoutMs);
    if (signal?.aborted) return onAbort();
    page.on('filechooser', onChooser);
    page.once('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
