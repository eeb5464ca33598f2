import { z } from 'zod';
import { BridgeCore } from './bridge-core.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure, parseParams } from './cdp-failure.js';
import type { DebuggerSession } from './client-sessions.js';

/**
 * DOM.setFileInputFiles for clients of shared tabs. chrome.debugger refuses
 * it to extensions, yet unmodified Playwright (`setInputFiles`, file
 * choosers) and Puppeteer (`uploadFile`) send it with file paths. The relay
 * does it itself: the server reads the files (only from the upload folders,
 * never $CLAWD_HOME's secrets: driver/acts/uploads.ts), and the contents are set
 * on the input through the page (a DataTransfer), with the input and change
 * events a user's choice would fire.
 */

const Params = z.object({
  files: z.array(z.string()).max(100),
  nodeId: z.number().int().optional(),
  backendNodeId: z.number().int().optional(),
  objectId: z.string().optional(),
});

export interface ReadFile {
  name: string;
  mimeType: string;
  base64: string;
}

interface Waiting {
  session: DebuggerSession;
  messageId: number;
  target: { objectId?: string; nodeId?: number; backendNodeId?: number };
}

/** Runs in the page, on the file input. */
const SET_FILES = `function (files) {
  if (!(this instanceof HTMLInputElement) || this.type !== 'file') throw new Error('Node is not a file input element');
  if (files.length > 1 && !this.multiple) throw new Error('Non-multiple file input can only accept single file');
  const transfer = new DataTransfer();
  for (const file of files) {
    const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], file.name, { type: file.mimeType, lastModified: Date.now() }));
  }
  this.files = transfer.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
}`;

export class FileUploads {
  private readonly waiting = new Map<number, Waiting>();
  private nextRequest = 1;

  constructor(private readonly core: BridgeCore) {}

  /** A client's DOM.setFileInputFiles: the files are asked of the server first. */
  start(session: DebuggerSession, messageId: number, params: unknown): void {
    const { files, ...target } = parseParams(Params, params, 'DOM.setFileInputFiles');
    if (target.objectId === undefined && target.nodeId === undefined && target.backendNodeId === undefined)
      throw new CdpFailure(CdpErrorCode.invalidParams, 'Either nodeId, backendNodeId or objectId must be specified');
    const requestId = this.nextRequest++;
    this.waiting.set(requestId, { session, messageId, target });
    this.core.out.readFiles(requestId, files);
  }

  /** The server read the files (or refused): set them on the input, or fail the command with why. */
  filesRead(requestId: number, result: { files: ReadFile[] } | { error: string }): void {
    const waiting = this.waiting.get(requestId);
    this.waiting.delete(requestId);
    if (!waiting || waiting.session.closed) return;
    const { session, messageId, target } = waiting;
    const fail = (message: string) => this.core.out.fail(session, messageId, { code: CdpErrorCode.serverError, message });
    if ('error' in result) return fail(`Upload refused: ${result.error}`);
    const chromeSessionId = session.kind === 'child' ? session.chromeSessionId : undefined;
    const tab = session.tab;
    const work = { session, messageId, tabId: tab.tabId };
    const setOn = (objectId: string) =>
      this.core.link.send(
        BridgeCore.cdp(
          tab,
          'Runtime.callFunctionOn',
          { objectId, functionDeclaration: SET_FILES, arguments: [{ value: result.files }], awaitPromise: true },
          chromeSessionId,
        ),
        {
          kind: 'transform',
          ...work,
          transform: (answer) => {
            const thrown = (answer as { exceptionDetails?: { exception?: { description?: string }; text?: string } }).exceptionDetails;
            if (!thrown) return {};
            fail(thrown.exception?.description?.split('\n')[0] ?? thrown.text ?? 'the page refused the files');
            return undefined;
          },
        },
      );
    try {
      if (target.objectId !== undefined) return setOn(target.objectId);
      // A node id (a file chooser gives a backendNodeId): resolved to an object first.
      this.core.link.send(
        BridgeCore.cdp(
          tab,
          'DOM.resolveNode',
          target.backendNodeId !== undefined ? { backendNodeId: target.backendNodeId } : { nodeId: target.nodeId },
          chromeSessionId,
        ),
        {
          kind: 'transform',
          ...work,
          transform: (answer) => {
            const objectId = (answer as { object?: { objectId?: string } }).object?.objectId;
            if (objectId) setOn(objectId);
            else fail('the node could not be resolved');
            return undefined;
          },
        },
      );
    } catch (error) {
      if (!(error instanceof CdpFailure)) throw error;
      fail(error.message);
    }
  }

  /** A client that left takes its waiting uploads with it. */
  forget(predicate: (session: DebuggerSession) => boolean): void {
    for (const [id, waiting] of this.waiting) if (predicate(waiting.session)) this.waiting.delete(id);
  }
}
