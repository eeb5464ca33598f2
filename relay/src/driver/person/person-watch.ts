import { randomBytes } from 'node:crypto';
import type { CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import type { PersonStep } from '../../replay/person-steps.js';
import type { PersonWatchMode, SecretWindow } from '../../page-runtime/person-watch.js';
import { personWatchSource } from '../../page-runtime/runtime-source.js';
import { OutOfProcessFrames } from '../page-tools/frame-sessions.js';
import type { TabPort } from '../tab-port.js';
import { framePath, type WatchedSession } from './frame-paths.js';

/**
 * What a person does in one tab, heard while a demonstration or a note is
 * being made (spec §23), on every kind of profile alike: a shared tab of the
 * person's own Chrome (their own mouse and keyboard), or any tab through the
 * live view (their input, sent by the console).
 *
 * Why this way: a script of clawd's own, in an isolated world of its own in
 * every document of the tab (Page.addScriptToEvaluateOnNewDocument with a
 * worldName), reports DOM events through a CDP binding that exists in that
 * world only (Runtime.addBinding with executionContextName). The page's
 * scripts can neither see it nor call it, and it counts only trusted events.
 * It hears what the person did to which element (CDP input events would give
 * points and keys, not elements), describes that element at that moment
 * (page-runtime/person-watch.ts, the page runtime's part for this world),
 * before a click can take the page away, and never
 * reads a password's value. Navigations the browser started (the address
 * bar, reload) are heard from CDP: a page's own navigation (a link, a form,
 * a script) follows from the click that caused it, or from no one, and is
 * not a step. Back and forward are the one kind CDP cannot tell apart: a
 * page's `history.back()` starts a history navigation exactly as the
 * toolbar's button does, so one is a step only after the person's own keys
 * or mouse buttons for it were heard in the page (Alt+←, the mouse's back
 * button); the toolbar's buttons are not heard.
 *
 * Every frame of the tab has the watch, the in-process ones through the
 * tab's session and each out-of-process one through a session of its own
 * (page-tools/frame-sessions.ts); a step heard in a child frame carries its
 * frame path, the selectors of the frames' elements from the top
 * (frame-paths.ts), so a routine and a test find the element again.
 */

/** Who started a main-frame navigation, as CDP tells it (frameRequestedNavigation comes first for a page's own). */
type NavigationCause = 'page' | 'history' | 'browser';

export class PersonWatch {
  private session: CDPSession | undefined;
  /** The tab's session first, then each out-of-process frame's: where the watch is installed. */
  private watched: WatchedSession[] = [];
  private frames: OutOfProcessFrames | undefined;
  /** Steps in the order heard: one in a frame waits for its frame path, and those after it for it. */
  private placing: Promise<void> = Promise.resolve();
  /** Each frame's path when last found: a frame that went right after the person's act (a payment form closing) keeps it. */
  private readonly paths = new Map<string, string[]>();
  private readonly binding = `__clawdPerson_${randomBytes(6).toString('hex')}`;
  private readonly world = `clawd-person-${randomBytes(6).toString('hex')}`;
  private mainFrame: string | undefined;
  /** The main frame asked to navigate itself (a link, a form, a script): its next document is not a step. */
  private pageNavigating = false;
  /** What started the main frame's latest navigation since its last document (undefined: CDP did not say). */
  private started: NavigationCause | undefined;
  /** The person's own back or forward was heard in the page since its last document. */
  private historyAsked = false;

  /** The secrets the server is typing into the tab now, by the act typing them (typingSecrets). */
  private readonly typing = new Map<number, SecretWindow['names']>();
  private windows = 0;

  /** Who hears the steps now (the demonstration, or the note being written). */
  private heard: (step: PersonStep) => void = () => {};

  constructor(private readonly tab: TabPort) {}

  get mode(): PersonWatchMode {
    return this.current;
  }
  private current: PersonWatchMode = 'off';
  /** The mode last asked for (installed after those before it). */
  private wanted: PersonWatchMode = 'off';

  /** Starts hearing the person (or changes what a click means), in the document there is and every one after. */
  async watch(mode: Exclude<PersonWatchMode, 'off'>, heard: (step: PersonStep) => void): Promise<void> {
    this.heard = heard;
    this.wanted = mode;
    if (!this.session) await this.open();
    await this.install(mode);
  }

  /**
   * The server is about to type `named` into the tab (an act with
   * `{{secret:…}}` or `{{totp:…}}`): until the answer is called, every field
   * that takes input is heard as a secret's, its value never read, in the
   * document there is and any the act leads to. The value never reaches the
   * demonstration, so nothing later has to find it there (a page may keep a
   * transform of it in the field, which no redaction recognises). Opened
   * whether or not the person is heard now: a demonstration that starts
   * meanwhile starts with it.
   */
  async typingSecrets(named: SecretWindow['names']): Promise<() => Promise<void>> {
    if (!named.length) return async () => {};
    const id = ++this.windows;
    this.typing.set(id, named);
    if (this.session) await this.install(this.wanted);
    return async () => {
      this.typing.delete(id);
      if (this.session) await this.install(this.wanted).catch(() => {});
    };
  }

  /** The window the page script is given: every secret being typed now, under the latest act's id. */
  private secretWindow(): SecretWindow | undefined {
    if (!this.typing.size) return undefined;
    return { id: Math.max(...this.typing.keys()), names: [...this.typing.values()].flat() };
  }

  /** Stops hearing: the world keeps no listener that acts, no later document gets one, the binding goes. */
  async stop(): Promise<void> {
    const session = this.session;
    const frames = this.frames;
    this.session = undefined;
    this.frames = undefined;
    this.heard = () => {};
    this.current = 'off';
    this.wanted = 'off';
    if (!session) return;
    await this.install('off').catch(() => {});
    const watched = this.watched;
    this.watched = [];
    this.paths.clear();
    await Promise.all(
      watched.map(async (one) => {
        if (one.script) await one.session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: one.script }).catch(() => {});
        await one.session.send('Runtime.removeBinding', { name: this.binding }).catch(() => {});
      }),
    );
    await frames?.stop();
    await session.detach().catch(() => {});
  }

  private async open(): Promise<void> {
    const session = await this.tab.page.context().newCDPSession(this.tab.page);
    const tabs = this.follow(session);
    session.on('Page.frameRequestedNavigation', (event: Protocol.Page.FrameRequestedNavigationEvent) => {
      if (event.frameId === this.mainFrame) this.pageNavigating = true;
    });
    session.on('Page.frameStartedNavigating', (event: Protocol.Page.FrameStartedNavigatingEvent) => {
      if (event.frameId !== this.mainFrame || event.navigationType === 'sameDocument' || event.navigationType === 'historySameDocument') return;
      this.started = this.pageNavigating ? 'page' : event.navigationType === 'historyDifferentDocument' ? 'history' : 'browser';
    });
    session.on('Page.frameNavigated', (event: Protocol.Page.FrameNavigatedEvent) => {
      if (event.frame.parentId !== undefined) return;
      this.mainFrame = event.frame.id;
      const cause: NavigationCause = this.started ?? (this.pageNavigating ? 'page' : 'browser');
      const asked = this.historyAsked;
      this.pageNavigating = false;
      this.started = undefined;
      this.historyAsked = false;
      // A page restored from the back-forward cache was a history navigation too.
      const history = cause === 'history' || event.type === 'BackForwardCacheRestore';
      const persons = history ? asked : cause === 'browser';
      if (persons && this.current === 'demonstrate') this.heard({ kind: 'goto', url: event.frame.url });
    });
    await session.send('Runtime.enable');
    await session.send('Page.enable');
    const { frameTree } = await session.send('Page.getFrameTree');
    this.mainFrame = frameTree.frame.id;
    await session.send('Runtime.addBinding', { name: this.binding, executionContextName: this.world });
    this.session = session;
    this.watched = [tabs];
    // Out-of-process frames (another site's, under site isolation) are heard on sessions of their own.
    const frames = (this.frames = new OutOfProcessFrames(this.tab.page, {
      opened: (frame) => this.openFrame(frame),
      closed: (frame) => this.closeFrame(frame),
    }));
    await frames.watch();
  }

  /** An out-of-process frame's session: the binding and the watch there too, in the mode the tab's has. */
  private async openFrame(session: CDPSession): Promise<void> {
    if (!this.session) return;
    const one = this.follow(session);
    await session.send('Runtime.enable');
    await session.send('Runtime.addBinding', { name: this.binding, executionContextName: this.world });
    if (!this.session) return;
    this.watched.push(one);
    await this.install(this.wanted, one);
  }

  private closeFrame(session: CDPSession): void {
    this.watched = this.watched.filter((one) => one.session !== session);
  }

  /** The session's person worlds, by frame, and what its binding hears. */
  private follow(session: CDPSession): WatchedSession {
    const one: WatchedSession = { session, worlds: new Map() };
    session.on('Runtime.executionContextCreated', ({ context }: Protocol.Runtime.ExecutionContextCreatedEvent) => {
      const frameId = (context.auxData as { frameId?: string } | undefined)?.frameId;
      if (context.name === this.world && frameId) one.worlds.set(frameId, context.id);
    });
    session.on('Runtime.executionContextDestroyed', ({ executionContextId }: Protocol.Runtime.ExecutionContextDestroyedEvent) => {
      for (const [frame, id] of one.worlds) if (id === executionContextId) one.worlds.delete(frame);
    });
    session.on('Runtime.executionContextsCleared', () => one.worlds.clear());
    session.on('Runtime.bindingCalled', (event: Protocol.Runtime.BindingCalledEvent) => {
      if (event.name !== this.binding) return;
      const step = parseStep(event.payload);
      if (step?.kind === 'history') this.historyAsked = true;
      else if (step) this.hear(step, frameOf(one, event.executionContextId));
    });
    return one;
  }

  /** A step, given its frame path when it was in a child frame; in the order heard. */
  private hear(step: PersonStep, frame: string | undefined): void {
    const heard = this.heard;
    this.placing = this.placing.then(async () => {
      if (frame === undefined || frame === this.mainFrame || !this.mainFrame) return heard(step);
      const found = await framePath(frame, this.mainFrame, this.watched).catch(() => undefined);
      const path = found ?? this.paths.get(frame);
      // A frame that can no longer be placed: its step could not be found again, so it is not one.
      if (!path) return;
      this.paths.set(frame, path);
      heard(path.length && 'element' in step && step.element ? { ...step, element: { ...step.element, frames: path } } : step);
    });
  }

  /** Installs, one after another (a secret's window and a mode change may come at once): each replaces the one before. */
  private queue: Promise<unknown> = Promise.resolve();
  private install(mode: PersonWatchMode, only?: WatchedSession): Promise<void> {
    const next = this.queue.then(async () => {
      // A frame's session that went meanwhile does not stop the others; the tab's own failing does.
      const done = await Promise.allSettled((only ? [only] : this.watched).map((one) => this.installNow(one, mode)));
      if (only) return;
      this.current = mode;
      if (done[0]?.status === 'rejected') throw done[0].reason;
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /** The source for new documents, and run at once in the ones there are: a world that has it already only takes the mode and the window. */
  private async installNow(one: WatchedSession, mode: PersonWatchMode): Promise<void> {
    const before = one.script;
    const { identifier } = await one.session.send('Page.addScriptToEvaluateOnNewDocument', {
      source: personWatchSource(this.binding, mode, this.secretWindow()),
      worldName: this.world,
      runImmediately: true,
    });
    one.script = identifier;
    if (before) await one.session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: before }).catch(() => {});
  }
}

/** The frame whose person world called the binding. */
function frameOf(one: WatchedSession, context: number): string | undefined {
  for (const [frame, id] of one.worlds) if (id === context) return frame;
  return undefined;
}

/** The person's own back or forward, heard in the page: the watch's signal that the history navigation next is theirs, never a step. */
interface HistoryAsked {
  kind: 'history';
}

/** What the page script sent, as a step or the signal (a malformed one is dropped: only clawd's world can call the binding). */
function parseStep(payload: string): PersonStep | HistoryAsked | undefined {
  try {
    const step = JSON.parse(payload) as PersonStep | HistoryAsked;
    return step && typeof step === 'object' && typeof step.kind === 'string' ? step : undefined;
  } catch {
    return undefined;
  }
}
