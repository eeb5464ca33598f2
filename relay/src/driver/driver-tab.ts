import type { CDPSession, Dialog, ElementHandle, Page } from 'playwright-core';
import { resolveRef, TabSnapshots } from '../snapshot/refs.js';
import { ConsoleBuffer } from './console-buffer.js';
import { NetworkLog } from './network/network-log.js';
import { TabScreencast } from './film/screencast.js';
import { TabEmulation } from './toolbox/tab-emulation.js';
import type { BrowserSecrets } from './secrets/browser-secrets.js';
import { TabPageTools } from './page-tools/tab-page-tools.js';
import { PersonWatch } from './person/person-watch.js';

/**
 * One tab of a profile's browser, as the driver knows it: made when the
 * driver first sees the Playwright Page, dropped when the page closes, and
 * holding everything the driver keeps about the tab between requests. What
 * acts on a tab (page-actions.ts, aftermath.ts, url-policy-guard.ts,
 * download-saver.ts, file-chooser.ts) takes the DriverTab.
 */

/** Events waiting for the tab's next action; past this, the oldest go. */
const MAX_PENDING_EVENTS = 20;

/** The mouse moved or pressed at a CSS point of the page: what a film of the tab draws (film-recorder.ts). */
export interface PointerMark {
  kind: 'move' | 'press';
  point: { x: number; y: number };
}

interface DialogAnswer {
  accept: boolean;
  promptText?: string;
  /** Disarms the answer when it lapses unused. */
  timer: NodeJS.Timeout;
}

export class DriverTab {
  readonly console: ConsoleBuffer;
  /** The refs and the previous outline of the tab's `ai` snapshots (snapshot/refs.ts). */
  readonly snapshots: TabSnapshots;
  /**
   * The URL policy's hold on the tab (url-policy-guard.ts): whether its
   * document requests are checked, and the last one refused, to say why a
   * goto failed.
   */
  readonly urlPolicy: { policed: boolean; lastRefusal?: string } = { policed: false };
  /** Its requests, once asked for (network-log.ts). */
  readonly network: NetworkLog;
  /** The secrets typed into its browser (any tab's), redacted from all it answers (browser-secrets.ts). */
  readonly secrets: BrowserSecrets;
  /** Its emulation: its own settings, and how they are put in place (tab-emulation.ts). */
  readonly emulation = new TabEmulation(this);
  /** The tools its page offers agents, heard once asked for (page-tools/tab-page-tools.ts). */
  readonly pageTools = new TabPageTools(this);
  /** What a person does in it, heard while they demonstrate or write a note (person-watch.ts). */
  readonly person = new PersonWatch(this);
  /** Told where the mouse goes while a film is made of the tab (film-recorder.ts); unset otherwise. */
  pointerMarks: ((mark: PointerMark) => void) | undefined;
  /** A request has driven the tab (it was once the tab a request without targetId means). */
  used = false;
  private id: string | undefined;
  /** Dialogs, downloads and refusals since the tab's last action: reported with the next action's result. */
  private pendingEvents: string[] = [];
  /** The answer armed for the tab's next dialog (POST /hooks/dialog). */
  private dialogAnswer: DialogAnswer | undefined;
  private cast: TabScreencast | undefined;
  private session: Promise<CDPSession> | undefined;

  constructor(
    readonly page: Page,
    secrets: BrowserSecrets,
  ) {
    this.console = new ConsoleBuffer(page);
    this.snapshots = new TabSnapshots(page);
    this.network = new NetworkLog(page);
    this.secrets = secrets;
    // One listener answers every dialog: the armed answer, or dismissed, so a page never hangs on one.
    page.on('dialog', (dialog) => this.answer(dialog));
  }

  /** The targetId if it has been asked already; never asks (a download's record, the URL guard with requests paused, do not wait). */
  get knownTargetId(): string | undefined {
    return this.id;
  }

  /**
   * Playwright does not expose target ids; one CDP call per tab asks, then it
   * is kept. It asks through a session of its own, detached at once: listing
   * the tabs of the user's browser must not leave the tab's session (cdp(),
   * with the Page domain on) open in every one of them.
   */
  async targetId(): Promise<string> {
    if (this.id) return this.id;
    const session = await this.page.context().newCDPSession(this.page);
    try {
      const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
      this.id = targetInfo.targetId;
      return targetInfo.targetId;
    } finally {
      await session.detach().catch(() => {});
    }
  }

  /**
   * The tab's own CDP session, with the Page domain on (its events, such as
   * `Page.windowOpen`, come to it): opened on first need and kept while the
   * tab lives, so an action costs no attach and detach. Opened again if
   * it closes.
   */
  cdp(): Promise<CDPSession> {
    if (this.session) return this.session;
    const opening = (async () => {
      const session = await this.page.context().newCDPSession(this.page);
      session.on('close', () => {
        if (this.session === opening) this.session = undefined;
      });
      await session.send('Page.enable').catch(() => {});
      return session;
    })();
    opening.catch(() => {
      if (this.session === opening) this.session = undefined;
    });
    return (this.session = opening);
  }

  /** A ref from this tab's last snapshot; a 404 (RefNotFoundError, with which ref and why) when it is unknown or stale. */
  element(ref: string): Promise<ElementHandle> {
    return resolveRef(this.snapshots, ref);
  }

  /** The tab's live view, shared by its viewers (screencast.ts). */
  screencast(): TabScreencast {
    return (this.cast ??= new TabScreencast(this.page));
  }

  /** The mouse went to (or pressed at) a CSS point: drawn in a film of the tab, if one is made. */
  markPointer(kind: PointerMark['kind'], point: { x: number; y: number }): void {
    this.pointerMarks?.({ kind, point });
  }

  /**
   * The mouse is about to go to an element's middle (an act by ref): found
   * only while a film is made, scrolled into view first as the act will.
   */
  async markElement(kind: PointerMark['kind'], element: ElementHandle): Promise<void> {
    if (!this.pointerMarks) return;
    await element.scrollIntoViewIfNeeded({ timeout: 2000 }).catch(() => {});
    const box = await element.boundingBox().catch(() => null);
    if (box) this.markPointer(kind, { x: box.x + box.width / 2, y: box.y + box.height / 2 });
  }

  noteEvent(event: string): void {
    this.pendingEvents.push(event);
    if (this.pendingEvents.length > MAX_PENDING_EVENTS) this.pendingEvents.shift();
  }

  /** What happened on the tab since the last call (dialogs, downloads, refusals), for an action's result. */
  takeEvents(): string[] {
    const events = this.pendingEvents;
    this.pendingEvents = [];
    return events;
  }

  /** Arms the answer to the tab's next dialog, for `timeoutMs` (POST /hooks/dialog). */
  armDialog(accept: boolean, promptText: string | undefined, timeoutMs: number): void {
    clearTimeout(this.dialogAnswer?.timer);
    const timer = setTimeout(() => (this.dialogAnswer = undefined), timeoutMs);
    this.dialogAnswer = { accept, promptText, timer };
  }

  /** The page closed (or its browser went): nothing armed outlives it. */
  dispose(): void {
    clearTimeout(this.dialogAnswer?.timer);
    this.dialogAnswer = undefined;
  }

  private answer(dialog: Dialog): void {
    const armed = this.dialogAnswer;
    this.dialogAnswer = undefined;
    clearTimeout(armed?.timer);
    const accepted = armed?.accept === true;
    this.noteEvent(
      `${dialog.type()} dialog ${JSON.stringify(dialog.message().slice(0, 200))} ${accepted ? 'accepted' : 'dismissed'}${armed ? ' (as armed)' : ' (no answer was armed)'}`,
    );
    void (accepted ? dialog.accept(armed?.promptText) : dialog.dismiss()).catch(() => {});
  }
}
